package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.main.StallwatchCommand;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class DiagnoseCommandTest {
  static final String NOW = "2026-12-02T16:12:00Z";
  static final String DS = "nvidia-container-toolkit-daemonset";
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** What one run printed and returned. */
  record Run(int exit, String out, String err) {
    JsonNode json() throws Exception {
      return JSON.readTree(out);
    }

    JsonNode daemonSet(String name) throws Exception {
      for (JsonNode ds : json().get("daemonSets")) {
        if (ds.get("name").asText().equals(name)) {
          return ds;
        }
      }
      throw new AssertionError(name + " not in " + out);
    }
  }

  static Run run(String... args) {
    return runWithStdin(InputStream.nullInputStream(), args);
  }

  static Run runWithStdin(InputStream stdin, String... args) {
    CommandLine cli = StallwatchCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    InputStream original = System.in;
    System.setIn(stdin);
    try {
      List<String> all = new ArrayList<>(List.of("diagnose"));
      all.addAll(List.of(args));
      return new Run(cli.execute(all.toArray(String[]::new)), out.toString(), err.toString());
    } finally {
      System.setIn(original);
    }
  }

  static String dump(String name) {
    try {
      return Path.of(DiagnoseCommandTest.class.getResource("/kube/dumps/" + name).toURI())
          .toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static void assertNoStackTrace(Run run) {
    assertThat(run.err())
        .doesNotContain("Exception")
        .doesNotContain("\tat ")
        .doesNotContain("at dev.");
  }

  @Test
  void the_seed_story_is_stalled_on_image_pull_with_ready_2_of_3() throws Exception {
    Run run = run("-f", dump("imagepull-stalled.json"), "--now", NOW, "-o", "json");

    assertThat(run.exit()).isEqualTo(ExitCodes.STALLED);
    assertThat(run.err()).isEmpty();
    JsonNode ds = run.daemonSet(DS);
    assertThat(run.json().get("evaluatedAt").asText()).isEqualTo(NOW);
    assertThat(ds.get("namespace").asText()).isEqualTo("gpu-operator");
    assertThat(ds.get("phase").asText()).isEqualTo("Stalled");
    assertThat(ds.get("cause").asText()).isEqualTo("ImagePull");
    assertThat(ds.get("stalledNodes").toString()).isEqualTo("[\"gpu-node-1\"]");
    assertThat(ds.get("counts").get("desired").asInt()).isEqualTo(3);
    assertThat(ds.get("counts").get("ready").asInt()).isEqualTo(2);
    assertThat(ds.get("counts").get("upToDate").asInt()).isEqualTo(1);
    assertThat(ds.get("oldRevision").get("hash").asText()).isEqualTo("6d4f9b8c7d");
    assertThat(ds.get("newRevision").get("hash").asText()).isEqualTo("7c9d5f6b84");
    assertThat(ds.get("nodes")).hasSize(3);
    assertThat(ds.get("nodes").get(1).get("revision").asText()).isEqualTo("old");
  }

  @Test
  void yaml_multi_document_yaml_and_stdin_give_the_same_verdict_as_json() throws Exception {
    String json = run("-f", dump("imagepull-stalled.json"), "--now", NOW, "-o", "json").out();
    Run yaml = run("-f", dump("imagepull-stalled.yaml"), "--now", NOW, "-o", "json");
    Run multi = run("-f", dump("imagepull-stalled-multidoc.yaml"), "--now", NOW, "-o", "json");
    Run stdin =
        runWithStdin(
            new ByteArrayInputStream(Files.readAllBytes(Path.of(dump("imagepull-stalled.yaml")))),
            "-f",
            "-",
            "--now",
            NOW,
            "-o",
            "json");

    for (Run r : List.of(yaml, multi, stdin)) {
      assertThat(r.exit()).isEqualTo(ExitCodes.STALLED);
      assertThat(r.json().get("daemonSets")).isEqualTo(JSON.readTree(json).get("daemonSets"));
    }
  }

  @Test
  void a_complete_rollout_exits_0_and_says_what_it_skipped() {
    Run run = run("-f", dump("complete.json"), "--now", NOW);

    assertThat(run.exit()).isEqualTo(ExitCodes.OK);
    assertThat(run.out().lines().toList().get(1).split("\\s+"))
        .endsWith("3", "3", "3", "3", "3", "Complete", "-");
    assertThat(run.out()).contains("skipped objects of other kinds: Service 1, ConfigMap 1");
  }

  @Test
  void a_gpu_the_node_cannot_spare_is_insufficient_resources() throws Exception {
    Run run = run("-f", dump("insufficient-gpu.json"), "--now", NOW, "-o", "json");
    assertThat(run.exit()).isEqualTo(ExitCodes.STALLED);
    assertThat(run.daemonSet(DS).get("cause").asText()).isEqualTo("InsufficientResources");
  }

  @Test
  void a_node_dropped_by_the_new_node_selector_is_excluded_though_status_looks_complete()
      throws Exception {
    Run run = run("-f", dump("node-excluded.json"), "--now", NOW, "-o", "json");

    assertThat(run.exit()).isEqualTo(ExitCodes.STALLED);
    JsonNode ds = run.daemonSet(DS);
    assertThat(ds.get("cause").asText()).isEqualTo("NodeExcluded");
    assertThat(ds.get("stalledNodes").toString()).isEqualTo("[\"gpu-node-3\"]");
    assertThat(ds.get("counts").get("desired").asInt()).isEqualTo(2);
  }

  @Test
  void before_stall_after_has_passed_the_rollout_is_still_progressing() throws Exception {
    Run run =
        run(
            "-f",
            dump("imagepull-stalled.json"),
            "--now",
            NOW,
            "--stall-after",
            "PT15M",
            "-o",
            "json");
    assertThat(run.exit()).isEqualTo(ExitCodes.OK);
    assertThat(run.daemonSet(DS).get("phase").asText()).isEqualTo("Progressing");
    assertThat(run.daemonSet(DS).get("cause").isNull()).isTrue();
  }

  @Test
  void the_table_fits_100_columns() {
    for (String name :
        List.of("imagepull-stalled.json", "insufficient-gpu.json", "node-excluded.json")) {
      Run run = run("-f", dump(name), "--now", NOW);
      assertThat(run.out().lines())
          .allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(100));
      assertThat(run.out()).contains("NODE").contains("gpu-node-1");
    }
  }

  @Test
  void a_malformed_daemonset_is_reported_in_one_line_and_the_rest_is_still_diagnosed()
      throws Exception {
    String file = dump("one-malformed-daemonset.json");
    Run run = run("-f", file, "--now", NOW, "-o", "json");

    assertThat(run.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.daemonSet(DS).get("phase").asText()).isEqualTo("Complete");
    assertThat(run.err().lines())
        .containsExactly(
            "error: "
                + file
                + " items[0]: DaemonSet gpu-operator/dcgm-exporter:"
                + " spec.updateStrategy.rollingUpdate.maxUnavailable: \"abc\" is neither an"
                + " integer nor a percentage like \"25%\"");
    assertNoStackTrace(run);
  }

  @Test
  void filters_select_by_namespace_and_name_and_say_when_nothing_matches() {
    assertThat(run("-f", dump("complete.json"), "--now", NOW, "-n", "gpu-operator", DS).exit())
        .isEqualTo(ExitCodes.OK);

    Run wrongNs = run("-f", dump("complete.json"), "--now", NOW, "-n", "kube-system");
    assertThat(wrongNs.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(wrongNs.err())
        .isEqualTo(
            "error: no DaemonSet in namespace \"kube-system\" in the input; it holds: gpu-operator/"
                + DS
                + System.lineSeparator());

    Run wrongName = run("-f", dump("complete.json"), "--now", NOW, "kube-proxy");
    assertThat(wrongName.err()).contains("no DaemonSet named \"kube-proxy\" in the input");
    assertThat(wrongName.out()).isEmpty();
  }

  @Test
  void input_without_daemonsets_or_nodes_is_explained() throws Exception {
    Path nodesOnly = dir.resolve("nodes.yaml");
    Files.writeString(nodesOnly, "kind: Node\napiVersion: v1\nmetadata:\n  name: n1\n");
    Run none = run("-f", nodesOnly.toString(), "--now", NOW);
    assertThat(none.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(none.err())
        .contains(
            "error: no DaemonSet in the input (0 DaemonSets, 0 Pods, 1 Nodes, 0 ControllerRevisions)");

    Path dsOnly = dir.resolve("ds.json");
    String all = Files.readString(Path.of(dump("complete.json")));
    JsonNode list = JSON.readTree(all);
    Files.writeString(dsOnly, list.get("items").get(0).toString());
    Run run = run("-f", dsOnly.toString(), "--now", NOW);
    assertThat(run.err()).contains("warning: the input holds no Node objects");
    assertNoStackTrace(run);
  }

  @Test
  void a_daemonset_of_another_api_is_listed_as_unsupported_not_judged() throws Exception {
    Path kruise = dir.resolve("kruise.yaml");
    Files.writeString(
        kruise,
        "apiVersion: apps.kruise.io/v1beta2\nkind: DaemonSet\n"
            + "metadata: {name: node-agent, namespace: kube-system, generation: 2}\n"
            + "spec: {updateStrategy: {rollingUpdate: {partition: 2, paused: true}}}\n"
            + "status: {desiredNumberScheduled: 3, numberAvailable: 1, observedGeneration: 2}\n");

    Run alone = run("-f", kruise.toString(), "--now", NOW);
    assertThat(alone.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(alone.out())
        .contains(
            "unsupported, not judged (only apps/v1 and apps.kruise.io/v1beta1, v1alpha1 DaemonSets"
                + " are):"
                + " DaemonSet.apps.kruise.io kube-system/node-agent (apps.kruise.io/v1beta2)");
    assertThat(alone.err()).contains("error: no DaemonSet stallwatch judges in the input");

    // Found by DiagnoseFuzzTest: with -o json stdout was the table's line, not JSON.
    Run aloneJson = run("-f", kruise.toString(), "--now", NOW, "-o", "json");
    assertThat(aloneJson.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(aloneJson.json().get("daemonSets")).isEmpty();
    assertThat(aloneJson.json().get("unsupported").get(0).get("apiVersion").asText())
        .isEqualTo("apps.kruise.io/v1beta2");
    assertThat(aloneJson.err()).contains("error: no DaemonSet stallwatch judges in the input");

    Run beside =
        run("-f", dump("complete.json"), "-f", kruise.toString(), "--now", NOW, "-o", "json");
    assertThat(beside.exit()).isEqualTo(ExitCodes.OK);
    assertThat(beside.json().get("daemonSets")).hasSize(1);
    assertThat(beside.json().get("unsupported").get(0).get("name").asText())
        .isEqualTo("node-agent");
    assertNoStackTrace(beside);
  }

  /** Standard input that fails with the given error on the first read. */
  private static InputStream failing(java.util.function.Supplier<? extends Throwable> error) {
    return new InputStream() {
      @Override
      public int read() {
        throw sneaky(error.get());
      }

      @Override
      public int read(byte[] b, int off, int len) {
        throw sneaky(error.get());
      }
    };
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
    throw (T) t;
  }

  @Test
  void out_of_memory_while_reading_exits_2_with_the_heap_hint_in_process() {
    Run run =
        runWithStdin(
            failing(() -> new OutOfMemoryError("Java heap space")), "-f", "-", "--now", NOW);

    assertThat(run.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .startsWith("error: out of memory (Java heap limit ")
        .contains("-Xmx2g")
        .doesNotContain("\tat ");
  }

  @Test
  void an_unexpected_failure_exits_2_with_a_hint_never_1() {
    Run run =
        runWithStdin(failing(() -> new IllegalStateException("boom")), "-f", "-", "--now", NOW);

    assertThat(run.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("boom").doesNotContain("\tat ");
    assertThat(run.err().lines().filter(l -> l.startsWith("hint:") || l.contains("-Xmx")))
        .as("a hint: %s", run.err())
        .isNotEmpty();
  }

  @Test
  void a_number_beyond_any_range_is_named_not_an_unexpected_exception() throws Exception {
    // Found by DiagnoseFuzzTest: 1E+400 reads as Infinity, and quoting it threw.
    Path ds = dir.resolve("ds.json");
    JsonNode list = JSON.readTree(Files.readString(Path.of(dump("complete.json"))));
    String object = list.get("items").get(0).toString();
    Files.writeString(
        ds, object.replaceFirst("\"numberAvailable\":\\s*\\d+", "\"numberAvailable\": 1E+400"));
    assertThat(Files.readString(ds)).contains("1E+400");

    Run run = run("-f", ds.toString(), "--now", NOW);

    assertThat(run.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .contains("status.numberAvailable: expected an integer, found a number beyond any range");
    assertNoStackTrace(run);
    assertThat(run.err()).doesNotContain("Exception");
  }

  @Test
  void usage_errors_exit_2_with_one_clear_line() {
    Run badNow = run("-f", dump("complete.json"), "--now", "yesterday");
    assertThat(badNow.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(badNow.err()).contains("\"yesterday\" is not an RFC 3339 time");

    Run badDuration = run("-f", dump("complete.json"), "--stall-after", "soon");
    assertThat(badDuration.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(badDuration.err()).contains("\"soon\" is not a duration");

    Run badFormat = run("-f", dump("complete.json"), "-o", "yaml");
    assertThat(badFormat.exit()).isEqualTo(ExitCodes.USAGE);

    Run noFile = run("--now", NOW);
    assertThat(noFile.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(noFile.err()).contains("--filename");

    Run missing = run("-f", dir.resolve("gone.json").toString());
    assertThat(missing.exit()).isEqualTo(ExitCodes.USAGE);
    assertThat(missing.err()).startsWith("error: " + dir.resolve("gone.json") + ": no such file");
    for (Run r : List.of(badNow, badDuration, badFormat, noFile, missing)) {
      assertNoStackTrace(r);
    }
  }

  @Test
  void help_documents_the_exit_codes_and_filters() {
    Run help = run("--help");
    assertThat(help.exit()).isZero();
    assertThat(help.out())
        .contains("--stall-after")
        .contains("Exit codes:")
        .contains("no DaemonSet in the input matches -n / DAEMONSET")
        .contains("kubectl get daemonsets,pods,nodes,controllerrevisions,events -A -o json");
  }

  @Test
  void withoutNowTheCommandsClockSaysWhenItIs() {
    CommandLine cli = StallwatchCommand.commandLine();
    StringWriter out = new StringWriter();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(new StringWriter()));
    DiagnoseCommand diagnose = cli.getSubcommands().get("diagnose").getCommand();
    diagnose.basics.clock(
        java.time.Clock.fixed(java.time.Instant.parse(NOW), java.time.ZoneOffset.UTC));

    int code = cli.execute("diagnose", "-f", dump("imagepull-stalled.json"), "-o", "json");

    Run asOfNow = run("-f", dump("imagepull-stalled.json"), "--now", NOW, "-o", "json");
    assertThat(code).isEqualTo(asOfNow.exit());
    assertThat(out.toString()).isEqualTo(asOfNow.out()).contains(NOW);
  }
}
