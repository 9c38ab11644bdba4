package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The DaemonSet cases of kubectl's, kstatus's and Argo CD's own tests, re-expressed as our fixtures
 * under {@code src/test/resources/peers} (a few with the nodes and pods behind the status), plus
 * stallwatch scenarios that show what status-only tools cannot see. For each: what {@code diagnose}
 * says (asserted), what each peer says (the case's own tool as its upstream test asserts it; the
 * others by {@link PeerRules}, checked here), and why we differ wherever we do. The table of {@code
 * docs/comparison.md} is rendered from {@link PeerCases#CASES}; a stale doc is rewritten and fails
 * the test.
 */
class PeerVerdictsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final Path DOC = Path.of("docs/comparison.md");
  static final String BEGIN = "<!-- peer-verdicts:begin -->";
  static final String END = "<!-- peer-verdicts:end -->";

  @TempDir Path tmp;

  static Stream<PeerCases.Case> cases() {
    return PeerCases.CASES.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void diagnoseGivesTheVerdictTheTableClaims(PeerCases.Case c) throws IOException {
    PeerCases.Fixture fixture = PeerCases.Fixture.load(c.fixture());
    Path dump = tmp.resolve("dump.json");
    JSON.writeValue(dump.toFile(), fixture.objects());
    CliRun run = CliRun.diagnoseJson(dump, fixture.now(), fixture.stallAfter());

    assertThat(run.err()).doesNotContain("error").doesNotContain("Exception");
    assertThat(run.exitCode()).as("exit code").isEqualTo(c.exit());
    JsonNode verdicts = JSON.readTree(run.out()).get("daemonSets");
    assertThat(verdicts).hasSize(1);
    JsonNode v = verdicts.get(0);
    assertThat(ours(v)).as("verdict").isEqualTo(c.ours());
    assertThat(v.get("evidence").asText()).as("evidence").isEqualTo(c.evidence());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void thePeerVerdictsFollowTheirRules(PeerCases.Case c) throws IOException {
    JsonNode ds = PeerCases.Fixture.load(c.fixture()).daemonSet();

    assertThat(PeerRules.kubectl(ds)).as("kubectl rollout status").isEqualTo(c.kubectl());
    assertThat(PeerRules.kstatus(ds)).as("kstatus").isEqualTo(c.kstatus());
    assertThat(PeerRules.argoCd(ds)).as("Argo CD").isEqualTo(c.argoCd());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyDifferenceIsExplainedAndOnlyThose(PeerCases.Case c) {
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
    sb.append("<!-- written by PeerVerdictsTest from PeerCases; edit those, not this -->\n\n");
    sb.append(
        "| # | case | facts: generation/observed, strategy,"
            + " desired/current/updated/ready/available | `kubectl rollout status` | kstatus"
            + " | Argo CD | stallwatch `diagnose` |\n");
    sb.append("|---|---|---|---|---|---|---|\n");
    int n = 0;
    for (PeerCases.Case c : PeerCases.CASES) {
      n++;
      PeerCases.Fixture f = PeerCases.Fixture.load(c.fixture());
      sb.append("| ")
          .append(n)
          .append(" | ")
          .append(caseCell(c))
          .append(" | ")
          .append(facts(f))
          .append(" | ")
          .append(peerCell(c, PeerCases.Source.KUBECTL, c.kubectl()))
          .append(" | ")
          .append(peerCell(c, PeerCases.Source.KSTATUS, c.kstatus()))
          .append(" | ")
          .append(peerCell(c, PeerCases.Source.ARGO_CD, c.argoCd()))
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
    for (PeerCases.Case c : PeerCases.CASES) {
      n++;
      if (c.why() != null) {
        sb.append("- **#").append(n).append(" ").append(c.id()).append("**: ");
        sb.append(c.why()).append('\n');
      }
    }
    sb.append('\n').append(END);
    return sb.toString();
  }

  private static String caseCell(PeerCases.Case c) {
    String fixture = "[`" + c.id() + "`](../src/test/resources/" + c.fixture() + ")";
    if (c.source() == PeerCases.Source.STALLWATCH) {
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
  private static String peerCell(PeerCases.Case c, PeerCases.Source peer, String verdict) {
    return c.source() == peer ? "_" + verdict + "_ (its test)" : verdict;
  }

  private static String facts(PeerCases.Fixture f) {
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
}
