package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.main.StallwatchCommand;
import dev.stallwatch.report.JsonReport;
import dev.stallwatch.report.TableReport;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class StatusCommandIT {

  static final Instant LONG_AGO = Instant.now().minusSeconds(3600);
  static final Duration STALL_AFTER = Duration.ofSeconds(1);
  static final AnalyzerSettings SETTINGS = new AnalyzerSettings(STALL_AFTER);

  /**
   * The server's clock, which the test moves on: the CLI judges by the cluster's clock (its Date
   * header), so objects are past stall-after once {@link #status} has moved it, without waiting.
   */
  final dev.stallwatch.sim.SimClock serverClock =
      dev.stallwatch.sim.SimClock.virtual(Instant.now());

  final TestApiServer server = new TestApiServer(serverClock);

  final DaemonSetFixture toolkit = new DaemonSetFixture(server.client(), "gpu", "toolkit");
  @TempDir Path tmp;
  String kubeconfig;

  @BeforeEach
  void cluster() {
    kubeconfig = server.writeKubeconfig(tmp.resolve("kubeconfig")).toString();
    toolkit.nodes("gpu-node-1", "gpu-node-2", "gpu-node-3");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /**
   * The seed's stall: revision 2's image cannot be pulled on gpu-node-1. The server dates pods by
   * its clock, so the commands run with {@code --stall-after 1s} once it has moved on.
   */
  void stalledToolkit() {
    toolkit.daemonSet(2, 3, 1, 2);
    toolkit.waitingPod(
        "gpu-node-1", 2, LONG_AGO, "ImagePullBackOff", "Back-off pulling image \"toolkit:v2\"");
    toolkit.readyPod("gpu-node-2", 1, LONG_AGO);
    toolkit.readyPod("gpu-node-3", 1, LONG_AGO);
  }

  CliRun status(String... args) {
    serverClock.advance(STALL_AFTER.plusSeconds(2)); // past stall-after, beyond Date's rounding
    List<String> all =
        new ArrayList<>(List.of("status", "--kubeconfig", kubeconfig, "--stall-after", "1s"));
    all.addAll(List.of(args));
    return CliRun.of(all.toArray(String[]::new));
  }

  @Test
  void theClustersRecordWinsOverALongerStallAfterThanTheOperatorsOwn() {
    stalledToolkit();
    // Recorded by an operator with stall-after 2m, 3 minutes ago; this CLI asks for 10m.
    String since =
        java.time.Instant.now()
            .minusSeconds(180)
            .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            .toString();
    toolkit.operatorStall(2, "gpu-node-1", "ImagePull", since);

    CliRun run =
        CliRun.of("status", "--kubeconfig", kubeconfig, "--stall-after", "10m", "-n", "gpu");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.STALLED);
    assertThat(run.out()).contains("Stalled").contains("since " + since);
  }

  @Test
  void theOperatorsActiveRolloutStallDatesTheNodesAndIsNamed() {
    stalledToolkit();
    String since = LONG_AGO.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    String name = toolkit.operatorStall(2, "gpu-node-1", "ImagePull", since);

    // The pod is seconds old: alone, --stall-after 10m would say Progressing.
    CliRun run =
        CliRun.of("status", "--kubeconfig", kubeconfig, "--stall-after", "10m", "-n", "gpu");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.STALLED);
    assertThat(run.out())
        .contains("since " + since)
        .contains(
            "gpu/toolkit: recorded by the operator: RolloutStall gpu/"
                + name
                + " Active: ImagePull on gpu-node-1 since "
                + since);
  }

  @Test
  void showsTheDiagnoseTableForAStalledRolloutAndExitsOne() {
    stalledToolkit();

    CliRun run = status("-n", "gpu");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.STALLED);
    assertThat(run.out())
        .contains("toolkit", "Stalled", "ImagePull", "gpu-node-1", "gpu-node-2", "gpu-node-3");
    // The very report diagnose prints, from the same objects read straight from the server.
    var client = server.client();
    var verdict =
        RolloutAnalyzer.analyze(
            Snapshots.of(
                client.apps().daemonSets().inNamespace("gpu").withName("toolkit").get(),
                client.pods().inNamespace("gpu").list().getItems(),
                client.nodes().list().getItems(),
                client.apps().controllerRevisions().inNamespace("gpu").list().getItems()),
            serverClock.instant(),
            SETTINGS);
    String expected = TableReport.render(serverClock.instant(), List.of(verdict));
    assertThat(withoutAges(run.out())).isEqualTo(withoutAges(expected));
  }

  /** Ages ("59m", "1h") may tick between two renders; everything else must be identical. */
  static String withoutAges(String table) {
    return table.replaceAll("\\b\\d+[smhd](\\d+[smh])?\\b", "AGE");
  }

  @Test
  void printsTheDiagnoseJsonSchema() throws Exception {
    stalledToolkit();

    CliRun run = status("-n", "gpu", "toolkit", "-o", "json");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.STALLED);
    ObjectMapper mapper = new ObjectMapper();
    JsonNode json = mapper.readTree(run.out());
    JsonNode ds = json.path("daemonSets").get(0);
    assertThat(ds.path("phase").asText()).isEqualTo("Stalled");
    assertThat(ds.path("cause").asText()).isEqualTo("ImagePull");
    JsonNode reference =
        mapper.readTree(JsonReport.render(Instant.now(), List.of(verdictOfToolkit())));
    assertThat(keys(json)).isEqualTo(keys(reference));
  }

  dev.stallwatch.rollout.RolloutVerdict verdictOfToolkit() {
    var client = server.client();
    return RolloutAnalyzer.analyze(
        Snapshots.of(
            client.apps().daemonSets().inNamespace("gpu").withName("toolkit").get(),
            client.pods().inNamespace("gpu").list().getItems(),
            client.nodes().list().getItems(),
            client.apps().controllerRevisions().inNamespace("gpu").list().getItems()),
        Instant.now(),
        SETTINGS);
  }

  /** Every key path of a JSON tree (array elements merged), to compare schemas. */
  static Set<String> keys(JsonNode node) {
    Set<String> out = new TreeSet<>();
    collect(node, "", out);
    return out;
  }

  private static void collect(JsonNode node, String path, Set<String> out) {
    if (node.isObject()) {
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        out.add(path + "." + key);
        collect(node.get(key), path + "." + key, out);
      }
    } else if (node.isArray()) {
      node.forEach(item -> collect(item, path + "[]", out));
    }
  }

  @Test
  void exitsZeroWhenEveryRolloutIsComplete() {
    toolkit.daemonSet(2, 3, 3, 3);
    for (String node : List.of("gpu-node-1", "gpu-node-2", "gpu-node-3")) {
      toolkit.readyPod(node, 2, LONG_AGO);
    }

    CliRun run = status("-n", "gpu");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    assertThat(run.out()).contains("Complete");
  }

  @Test
  void allNamespacesListsDaemonSetsEverywhereAndNamespaceNarrows() {
    stalledToolkit();
    DaemonSetFixture agent = new DaemonSetFixture(server.client(), "monitoring", "node-agent");
    agent.daemonSet(1, 3, 3, 3);
    for (String node : List.of("gpu-node-1", "gpu-node-2", "gpu-node-3")) {
      agent.readyPod(node, 1, LONG_AGO);
    }

    CliRun all = status("-A");
    CliRun monitoring = status("-n", "monitoring");

    assertThat(all.out()).contains("gpu", "toolkit", "monitoring", "node-agent");
    assertThat(all.exitCode()).isEqualTo(ExitCodes.STALLED);
    assertThat(monitoring.out()).contains("node-agent").doesNotContain("toolkit");
    assertThat(monitoring.exitCode()).isEqualTo(ExitCodes.OK);
  }

  /** The GET requests the server has received since the last call, decoded. */
  List<String> requests() throws InterruptedException {
    List<String> gets = new ArrayList<>();
    for (var r = server.mockServer().takeRequest(100, TimeUnit.MILLISECONDS);
        r != null;
        r = server.mockServer().takeRequest(100, TimeUnit.MILLISECONDS)) {
      if (r.getMethod().equals("GET")) {
        gets.add(URLDecoder.decode(r.getPath(), StandardCharsets.UTF_8));
      }
    }
    return gets;
  }

  @Test
  void readsOnlyTheDaemonSetsPodsAndNodesFromTheServersCache() throws Exception {
    stalledToolkit();
    // Pods no DaemonSet owns: a web server beside the toolkit and a job elsewhere.
    for (String ns : List.of("gpu", "batch")) {
      server
          .client()
          .pods()
          .inNamespace(ns)
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName("not-a-daemon")
                  .withLabels(Map.of("app", "toolkit"))
                  .endMetadata()
                  .withNewSpec()
                  .withNodeName("gpu-node-1")
                  .addNewContainer()
                  .withName("web")
                  .withImage("nginx")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
    }
    requests();

    List<CliRun> runs = List.of(status("-A"), status("-n", "gpu"), status("-n", "gpu", "toolkit"));
    List<String> gets = requests();

    assertThat(runs).allSatisfy(run -> assertThat(run.exitCode()).isEqualTo(ExitCodes.STALLED));
    assertThat(runs.get(2).out()).doesNotContain("not-a-daemon");
    List<String> podLists =
        gets.stream().filter(g -> g.matches("/api/v1/(namespaces/[^/]+/)?pods.*")).toList();
    assertThat(podLists)
        .containsExactly(
            "/api/v1/pods?labelSelector=pod-template-generation",
            "/api/v1/namespaces/gpu/pods?labelSelector=pod-template-generation",
            "/api/v1/namespaces/gpu/pods?labelSelector=app=toolkit,pod-template-generation");
    assertThat(gets.stream().filter(g -> g.startsWith("/api/v1/nodes")))
        .hasSize(3)
        .allSatisfy(g -> assertThat(g).isEqualTo("/api/v1/nodes?resourceVersion=0"));
  }

  @Test
  void usesTheNamespaceOfTheChosenContext() {
    DaemonSetFixture other = new DaemonSetFixture(server.client(), "other-ns", "in-other");
    other.daemonSet(1, 3, 0, 0);

    CliRun run = status("--context", "other");

    assertThat(run.out()).as(run.toString()).contains("in-other");
  }

  @Test
  void saysSoWhenTheNamespaceHasNoDaemonSets() {
    CliRun run = status("-n", "empty");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(run.out()).isEqualTo("No DaemonSets found in namespace empty.\n");
  }

  @Test
  void aMissingDaemonSetIsAUsageError() {
    CliRun run = status("-n", "gpu", "ds/nope");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).isEqualTo("error: daemonset.apps/nope not found in namespace gpu\n");
  }

  @Test
  void anUnknownContextIsAUsageError() {
    CliRun run = status("--context", "nope");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("--context nope: no such context");
  }

  @Test
  void forbiddenIsOneLineAndExitThree() {
    server
        .mockServer()
        .expect()
        .get()
        .withPath("/apis/apps/v1/namespaces/gpu/daemonsets")
        .andReturn(
            403,
            new StatusBuilder()
                .withStatus("Failure")
                .withReason("Forbidden")
                .withCode(403)
                .withMessage(
                    "daemonsets.apps is forbidden: User \"ci\" cannot list resource \"daemonsets\""
                        + " in API group \"apps\" in the namespace \"gpu\"")
                .build())
        .always();

    CliRun run = status("-n", "gpu");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.ACCESS);
    assertThat(run.err())
        .isEqualTo(
            "error: forbidden (HTTP 403): daemonsets.apps is forbidden: User \"ci\" cannot list"
                + " resource \"daemonsets\" in API group \"apps\" in the namespace \"gpu\"\n");
  }

  @Test
  void anUnreachableClusterIsOneLineAndExitThree() {
    String dead =
        TestApiServer.writeKubeconfig(tmp.resolve("dead"), "http://127.0.0.1:1").toString();

    CliRun run = CliRun.of("status", "--kubeconfig", dead);

    assertThat(run.exitCode()).isEqualTo(ExitCodes.ACCESS);
    assertThat(run.err()).startsWith("error: cannot reach the cluster at http://127.0.0.1:1");
    assertThat(run.err().lines()).hasSize(1);
  }

  @Test
  void watchRefreshesUntilInterrupted() throws Exception {
    stalledToolkit();
    serverClock.advance(STALL_AFTER.plusSeconds(2));
    CommandLine cli = StallwatchCommand.commandLine();
    StringWriter out = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(new StringWriter(), true));
    int[] code = {-1};
    Thread watch =
        new Thread(
            () ->
                code[0] =
                    cli.execute(
                        "status",
                        "--kubeconfig",
                        kubeconfig,
                        "--stall-after",
                        "1s",
                        "-n",
                        "gpu",
                        "-w",
                        "--interval",
                        "200ms"));
    watch.start();
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> out.toString().split("Every 200ms", -1).length > 3);
    watch.interrupt();
    watch.join(5000);

    assertThat(watch.isAlive()).isFalse();
    assertThat(code[0]).isEqualTo(ExitCodes.OK);
    // Not a terminal: snapshots follow each other, separated, each with the whole table.
    String[] snapshots = out.toString().split("\nEvery ");
    assertThat(snapshots.length).isGreaterThanOrEqualTo(3);
    assertThat(snapshots[1]).contains("gpu-node-1", "Stalled");
    assertThat(out.toString()).doesNotContain(StatusCommand.CLEAR_SCREEN);
  }
}
