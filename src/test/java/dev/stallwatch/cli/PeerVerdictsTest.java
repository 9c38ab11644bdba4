package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.stallwatch.main.StallwatchCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * The DaemonSet cases of kubectl's, kstatus's and Argo CD's own tests, re-expressed as our fixtures
 * under {@code src/test/resources/peers} (a few with the nodes and pods behind the status), plus
 * stallwatch scenarios that show what status-only tools cannot see. For each: what {@code diagnose}
 * says (asserted), what each peer says (the case's own tool as its upstream test asserts it; the
 * others by {@link PeerRules}, checked here), and why we differ wherever we do. The table of {@code
 * docs/comparison.md} is rendered from {@link #CASES}; a stale doc is rewritten and fails the test.
 */
class PeerVerdictsTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path RESOURCES = Path.of("src/test/resources");
  static final Path DOC = Path.of("docs/comparison.md");
  static final String BEGIN = "<!-- peer-verdicts:begin -->";
  static final String END = "<!-- peer-verdicts:end -->";
  private static final String NOW = "2026-12-02T10:00:00Z";

  /** Where a case comes from: the upstream test that asserts its verdict, or our own scenario. */
  enum Source {
    KUBECTL(
        "kubectl",
        "https://github.com/kubernetes/kubectl/blob/dee3483a3d6a64c07fdf746caf80af446dee99ac/pkg/polymorphichelpers/rollout_status_test.go"),
    KSTATUS(
        "kstatus",
        "https://github.com/kubernetes-sigs/cli-utils/blob/5895ad6c17dd06b99c1e5c8af17e2b12a3504fad/pkg/kstatus/status/status_compute_test.go"),
    ARGO_CD(
        "Argo CD",
        "https://github.com/argoproj/gitops-engine/blob/5baed5604d2dd970619fc9b91e8d31724662ab3e/pkg/health/health_test.go"),
    STALLWATCH("stallwatch", "../src/test/resources/scenarios");

    final String label;
    final String link;

    Source(String label, String link) {
      this.label = label;
      this.link = link;
    }
  }

  /**
   * One case.
   *
   * @param upstream the case's name in its source's test
   * @param fixture below {@code src/test/resources}; a scenario fixture's objects, instant and
   *     stall-after are used
   * @param ours phase, with the cause when Stalled: {@code Stalled (ImagePull)}
   * @param why why we differ from a peer; null exactly when every peer agrees with us
   */
  record Case(
      Source source,
      String upstream,
      String fixture,
      String kubectl,
      String kstatus,
      String argoCd,
      String ours,
      String evidence,
      int exit,
      String why) {

    String id() {
      return fixture.substring(fixture.lastIndexOf('/') + 1, fixture.length() - ".yaml".length());
    }

    @Override
    public String toString() {
      return id();
    }
  }

  static final List<Case> CASES =
      List.of(
          new Case(
              Source.KUBECTL,
              "test1",
              "peers/kubectl-generation-zero.yaml",
              "waits: 0 of 1 updated",
              "InProgress (NoGeneration)",
              "Progressing",
              "Progressing",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KUBECTL,
              "test2",
              "peers/kubectl-one-of-two-available.yaml",
              "waits: 1 of 2 available",
              "InProgress (LessAvailable)",
              "Progressing",
              "Progressing",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KUBECTL,
              "test2",
              "peers/kubectl-one-of-two-available-with-nodes.yaml",
              "waits: 1 of 2 available",
              "InProgress (LessAvailable)",
              "Progressing",
              "Stalled (CrashLoop)",
              "Full",
              1,
              "Same .status, but with the nodes and pods stallwatch sees that the new pod on node-b"
                  + " has crash-looped for 20 minutes, longer than stall-after (5m): Stalled,"
                  + " cause CrashLoop, rolling back would help. The peers read .status only and"
                  + " keep waiting: `kubectl rollout status` until its `--timeout`, kstatus and"
                  + " Argo CD indefinitely (none has a progress deadline for DaemonSets)."),
          new Case(
              Source.KUBECTL,
              "test3",
              "peers/kubectl-rolled-out.yaml",
              "done",
              "Current",
              "Healthy",
              "Complete",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KUBECTL,
              "test4",
              "peers/kubectl-spec-not-observed.yaml",
              "waits: spec update not observed",
              "InProgress (LatestGenerationNotObserved)",
              "Progressing",
              "Progressing",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KUBECTL,
              "WithWrongUpdateStrategyType",
              "peers/kubectl-on-delete.yaml",
              "error: only for RollingUpdate",
              "InProgress (NoGeneration)",
              "Healthy",
              "OnDelete",
              "StatusOnly",
              0,
              "With OnDelete the controller replaces a pod only when someone deletes it, so there"
                  + " is no rollout to finish or to stall: stallwatch reports the phase OnDelete"
                  + " (exit 0, never Stalled). kubectl refuses the strategy (an error, exit 1),"
                  + " Argo CD calls any OnDelete DaemonSet Healthy, and kstatus, which has no"
                  + " OnDelete rule, waits for a metadata.generation this object lacks."),
          new Case(
              Source.KSTATUS,
              "dsNoStatus",
              "peers/kstatus-no-status.yaml",
              "waits: spec update not observed",
              "InProgress (NoObservedGeneration)",
              "Progressing",
              "Progressing",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KSTATUS,
              "dsBadStatus",
              "peers/kstatus-bad-status.yaml",
              "done",
              "InProgress (NoDesiredNumber)",
              "Healthy",
              "Progressing",
              "StatusOnly",
              0,
              "The DaemonSet controller always writes desiredNumberScheduled, so a status without"
                  + " it is not the controller's report. kubectl and Argo CD read the missing"
                  + " numbers as 0 of 0 and call the rollout done; stallwatch, like kstatus, takes"
                  + " the status as not reported yet (reason StatusNotReported). This comparison"
                  + " found that stallwatch, too, used to read 0 desired and say Complete."),
          new Case(
              Source.KSTATUS,
              "dsOK",
              "peers/kstatus-ok.yaml",
              "done",
              "Current",
              "Healthy",
              "Complete",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KSTATUS,
              "dsOK",
              "peers/kstatus-ok-with-nodes.yaml",
              "done",
              "Current",
              "Healthy",
              "Complete",
              "Full",
              0,
              null),
          new Case(
              Source.KSTATUS,
              "dsDifferentGeneration",
              "peers/kstatus-different-generation.yaml",
              "waits: spec update not observed",
              "InProgress (LatestGenerationNotObserved)",
              "Progressing",
              "Progressing",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KSTATUS,
              "dsLessReady",
              "peers/kstatus-less-ready.yaml",
              "done",
              "InProgress (LessReady)",
              "Healthy",
              "Progressing",
              "StatusOnly",
              0,
              "The status contradicts itself (4 available but 2 ready, and an available pod is a"
                  + " ready one), so stallwatch does not take it as proof of completion and, like"
                  + " kstatus, says Progressing. kubectl and Argo CD never read numberReady and"
                  + " call it done. This comparison found that stallwatch used to say Complete."),
          new Case(
              Source.KSTATUS,
              "dsLessAvailable",
              "peers/kstatus-less-available.yaml",
              "waits: 2 of 4 available",
              "InProgress (LessAvailable)",
              "Progressing",
              "Progressing",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.ARGO_CD,
              "TestDaemonSetOnDeleteHealth",
              "peers/argocd-on-delete.yaml",
              "error: only for RollingUpdate",
              "InProgress (NoGeneration)",
              "Healthy",
              "OnDelete",
              "StatusOnly",
              0,
              "Argo CD's Healthy comes with the message that 0 of 1 new pods are updated: the one"
                  + " node still runs the old spec. stallwatch reports OnDelete, neither complete"
                  + " nor stalled, and says .status reports 0 of 1 desired nodes updated. kubectl"
                  + " refuses OnDelete; kstatus waits for the missing metadata.generation."),
          new Case(
              Source.STALLWATCH,
              "seed-image-pull",
              "scenarios/seed-image-pull.yaml",
              "waits: 1 of 3 updated",
              "InProgress (LessUpdated)",
              "Progressing",
              "Stalled (ImagePull)",
              "Full",
              1,
              "The seed's stall: the new image cannot be pulled on gpu-node-1 for 12 minutes."
                  + " .status only shows a rollout in progress, so every peer waits and `kubectl"
                  + " rollout status` ends at its `--timeout` with no node and no cause; stallwatch"
                  + " names the node, the cause, the revisions and that rolling back would help."),
          new Case(
              Source.STALLWATCH,
              "image-pull-not-yet-stalled",
              "scenarios/image-pull-not-yet-stalled.yaml",
              "waits: 1 of 3 updated",
              "InProgress (LessUpdated)",
              "Progressing",
              "Progressing",
              "Full",
              0,
              null),
          new Case(
              Source.STALLWATCH,
              "node-selector-narrowed",
              "scenarios/node-selector-narrowed.yaml",
              "done",
              "Current",
              "Healthy",
              "Stalled (NodeExcluded)",
              "Full",
              1,
              "The new nodeSelector drops gpu-node-3, so DESIRED shrank from 3 to 2 and .status"
                  + " says 2 of 2 updated and available: complete by every status-based rule."
                  + " stallwatch matches the old and new templates against the nodes and reports"
                  + " the node the new spec silently left (NodeExcluded), unless the DaemonSet"
                  + " allows it with the annotation stallwatch.dev/allow-node-exclusion."));

  @TempDir Path tmp;

  static Stream<Case> cases() {
    return CASES.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void diagnoseGivesTheVerdictTheTableClaims(Case c) throws IOException {
    Fixture fixture = Fixture.load(c.fixture());
    Path dump = tmp.resolve("dump.json");
    JSON.writeValue(dump.toFile(), fixture.objects());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = StallwatchCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));

    int code =
        cli.execute(
            "diagnose",
            "-f",
            dump.toString(),
            "--now",
            fixture.now(),
            "--stall-after",
            fixture.stallAfter(),
            "-o",
            "json");

    assertThat(err.toString()).doesNotContain("error").doesNotContain("Exception");
    assertThat(code).as("exit code").isEqualTo(c.exit());
    JsonNode verdicts = JSON.readTree(out.toString()).get("daemonSets");
    assertThat(verdicts).hasSize(1);
    JsonNode v = verdicts.get(0);
    assertThat(ours(v)).as("verdict").isEqualTo(c.ours());
    assertThat(v.get("evidence").asText()).as("evidence").isEqualTo(c.evidence());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void thePeerVerdictsFollowTheirRules(Case c) throws IOException {
    JsonNode ds = Fixture.load(c.fixture()).daemonSet();

    assertThat(PeerRules.kubectl(ds)).as("kubectl rollout status").isEqualTo(c.kubectl());
    assertThat(PeerRules.kstatus(ds)).as("kstatus").isEqualTo(c.kstatus());
    assertThat(PeerRules.argoCd(ds)).as("Argo CD").isEqualTo(c.argoCd());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyDifferenceIsExplainedAndOnlyThose(Case c) {
    String mine = kindOf(c.ours());
    boolean differs =
        !kindOf(c.kubectl()).equals(mine)
            || !kindOf(c.kstatus()).equals(mine)
            || !kindOf(c.argoCd()).equals(mine);
    assertThat(c.why() != null).as("a sentence exactly where we differ").isEqualTo(differs);
  }

  @Test
  void theDocumentShowsThisTable() throws IOException {
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    int begin = doc.indexOf(BEGIN);
    int end = doc.indexOf(END);
    assertThat(begin).as("%s in %s", BEGIN, DOC).isNotNegative();
    assertThat(end).as("%s in %s", END, DOC).isGreaterThan(begin);
    String committed = doc.substring(begin, end + END.length());
    String rendered = render();
    if (!committed.equals(rendered)) {
      Files.writeString(
          DOC,
          doc.substring(0, begin) + rendered + doc.substring(end + END.length()),
          StandardCharsets.UTF_8);
    }
    assertThat(committed)
        .as("%s was stale; the test rewrote it: review and commit it", DOC)
        .isEqualTo(rendered);
  }

  /** Done, waiting, stalled, an error, or OnDelete: what a CI gate would make of a verdict. */
  private static String kindOf(String verdict) {
    if (verdict.equals("done") || verdict.equals("Current") || verdict.equals("Healthy")) {
      return "done";
    }
    if (verdict.equals("Complete")) {
      return "done";
    }
    if (verdict.startsWith("waits") || verdict.startsWith("InProgress")) {
      return "waiting";
    }
    if (verdict.equals("Progressing")) {
      return "waiting";
    }
    if (verdict.startsWith("Stalled")) {
      return "stalled";
    }
    if (verdict.startsWith("error")) {
      return "error";
    }
    return verdict;
  }

  private static String ours(JsonNode verdict) {
    String phase = verdict.get("phase").asText();
    return phase.equals("Stalled") ? phase + " (" + verdict.get("cause").asText() + ")" : phase;
  }

  static String render() throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append(BEGIN).append('\n');
    sb.append("<!-- written by PeerVerdictsTest from its table; edit the test, not this -->\n\n");
    sb.append(
        "| # | case | facts: generation/observed, strategy,"
            + " desired/current/updated/ready/available | `kubectl rollout status` | kstatus"
            + " | Argo CD | stallwatch `diagnose` |\n");
    sb.append("|---|---|---|---|---|---|---|\n");
    int n = 0;
    for (Case c : CASES) {
      n++;
      Fixture f = Fixture.load(c.fixture());
      sb.append("| ")
          .append(n)
          .append(" | ")
          .append(caseCell(c))
          .append(" | ")
          .append(facts(f))
          .append(" | ")
          .append(peerCell(c, Source.KUBECTL, c.kubectl()))
          .append(" | ")
          .append(peerCell(c, Source.KSTATUS, c.kstatus()))
          .append(" | ")
          .append(peerCell(c, Source.ARGO_CD, c.argoCd()))
          .append(" | ")
          .append(c.ours().startsWith("Stalled") ? "**" + c.ours() + "**" : c.ours())
          .append(", ")
          .append(c.evidence())
          .append(", exit ")
          .append(c.exit())
          .append(" |\n");
    }
    sb.append("\nWhere we differ:\n\n");
    n = 0;
    for (Case c : CASES) {
      n++;
      if (c.why() != null) {
        sb.append("- **#").append(n).append(" ").append(c.id()).append("**: ");
        sb.append(c.why()).append('\n');
      }
    }
    sb.append('\n').append(END);
    return sb.toString();
  }

  private static String caseCell(Case c) {
    String fixture = "[`" + c.id() + "`](../src/test/resources/" + c.fixture() + ")";
    if (c.source() == Source.STALLWATCH) {
      return fixture + " (stallwatch scenario)";
    }
    return fixture
        + " (["
        + c.source().label
        + " `"
        + c.upstream()
        + "`]("
        + c.source().link
        + "))";
  }

  /** The case's own tool's verdict is what its upstream test asserts: shown in italics. */
  private static String peerCell(Case c, Source peer, String verdict) {
    return c.source() == peer ? "_" + verdict + "_ (its test)" : verdict;
  }

  private static String facts(Fixture f) {
    JsonNode ds = f.daemonSet();
    JsonNode st = ds.path("status");
    StringBuilder sb = new StringBuilder();
    sb.append(number(ds.at("/metadata/generation")))
        .append('/')
        .append(number(st.path("observedGeneration")))
        .append(", ")
        .append(ds.at("/spec/updateStrategy/type").asText("–"))
        .append(", ");
    if (!st.has("desiredNumberScheduled") && !st.has("currentNumberScheduled")) {
      sb.append(st.isMissingNode() ? "no status" : "status without the counts");
    } else {
      sb.append(number(st.path("desiredNumberScheduled")))
          .append('/')
          .append(number(st.path("currentNumberScheduled")))
          .append('/')
          .append(number(st.path("updatedNumberScheduled")))
          .append('/')
          .append(number(st.path("numberReady")))
          .append('/')
          .append(number(st.path("numberAvailable")));
    }
    if (f.nodes() > 0) {
      sb.append("; ").append(f.nodes()).append(" nodes, ").append(f.pods()).append(" pods");
    }
    return sb.toString();
  }

  private static String number(JsonNode n) {
    return n.isMissingNode() || n.isNull() ? "–" : n.asText();
  }

  /** A fixture: a bare object or List (peers), or a scenario with its instant and stall-after. */
  record Fixture(JsonNode objects, String now, String stallAfter) {
    static Fixture load(String path) throws IOException {
      JsonNode tree = YAML.readTree(RESOURCES.resolve(path).toFile());
      if (tree.has("objects")) {
        return new Fixture(
            tree.get("objects"), tree.get("now").asText(), tree.get("stallAfter").asText());
      }
      return new Fixture(tree, NOW, "5m");
    }

    List<JsonNode> items() {
      if (!objects.has("items")) {
        return List.of(objects);
      }
      return Stream.of(objects.get("items")).flatMap(i -> stream(i)).toList();
    }

    private static Stream<JsonNode> stream(JsonNode array) {
      Stream.Builder<JsonNode> b = Stream.builder();
      array.forEach(b::add);
      return b.build();
    }

    JsonNode daemonSet() {
      return items().stream()
          .filter(i -> i.path("kind").asText().equals("DaemonSet"))
          .findFirst()
          .orElseThrow();
    }

    long nodes() {
      return items().stream().filter(i -> i.path("kind").asText().equals("Node")).count();
    }

    long pods() {
      return items().stream().filter(i -> i.path("kind").asText().equals("Pod")).count();
    }
  }
}
