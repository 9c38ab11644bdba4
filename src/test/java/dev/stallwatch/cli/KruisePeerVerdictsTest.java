package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Argo CD's health check of OpenKruise's Advanced DaemonSet ({@code
 * resource_customizations/apps.kruise.io/DaemonSet/health.lua}) on its own test fixtures,
 * re-expressed as ours under {@code src/test/resources/peers/argocd-kruise-*.yaml}, beside
 * stallwatch's {@code diagnose}: each Argo CD verdict as its test asserts it (and as {@link
 * #argoCd} re-computes it), ours asserted, and a sentence wherever the two differ. The table of
 * {@code docs/comparison.md} between {@value #BEGIN} and {@value #END} is rendered from {@link
 * #CASES}; a stale doc is rewritten and fails the test.
 */
class KruisePeerVerdictsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String BEGIN = "<!-- kruise-peer-verdicts:begin -->";
  static final String END = "<!-- kruise-peer-verdicts:end -->";
  private static final String LINK =
      "https://github.com/argoproj/argo-cd/blob/9f43a89faff4d074112aa86e4a280a8e9cbb54ed/resource_customizations/apps.kruise.io/DaemonSet/health_test.yaml";

  @TempDir Path tmp;

  /**
   * One fixture.
   *
   * @param upstream the testdata file of Argo CD's test
   * @param argoCd its health status and message, as its test asserts them
   * @param ours phase, reason and evidence of {@code diagnose}
   * @param why why we differ; null exactly when we agree (both done, both waiting, both paused)
   */
  record Case(String id, String upstream, String argoCd, String ours, int exit, String why) {
    String fixture() {
      return "peers/argocd-kruise-" + id + ".yaml";
    }
  }

  static final List<Case> CASES =
      List.of(
          new Case(
              "healthy",
              "healthy.yaml",
              "Healthy: All Daemonset workloads are ready and updated",
              "Complete (RolloutComplete), StatusOnly",
              0,
              null),
          new Case(
              "partition-string-zero",
              "partition_string_zero_healthy.yaml",
              "Healthy: All Daemonset workloads are ready and updated",
              "Complete (RolloutComplete), StatusOnly",
              0,
              null),
          new Case(
              "partition-percent-zero",
              "partition_percentage_zero_healthy.yaml",
              "Healthy: All Daemonset workloads are ready and updated",
              "Complete (RolloutComplete), StatusOnly",
              0,
              null),
          new Case(
              "degraded",
              "degraded.yaml",
              "Degraded: Some pods are not ready or available",
              "Progressing (StatusIncomplete), StatusOnly",
              0,
              "the one pod is updated but not ready: Argo CD calls that Degraded at once; from"
                  + " .status alone stallwatch cannot tell a pod that is starting from one that is"
                  + " stuck, so it waits, and with the node and pod in the input would name the node"
                  + " and its cause after stall-after."),
          new Case(
              "no-status",
              "unknown.yaml",
              "Progressing: Waiting for initialization",
              "Progressing (StatusNotReported), StatusOnly",
              0,
              null),
          new Case(
              "no-partition-zero-desired",
              "no-update-strategy-partition.yaml",
              "Progressing: Waiting for initialization",
              "Complete (RolloutComplete), StatusOnly",
              0,
              "no node should run it: Argo CD waits because numberAvailable is absent (the API omits"
                  + " zeros); stallwatch reads the absent count as 0 and the rollout as done on all"
                  + " 0 nodes."),
          new Case(
              "paused",
              "suspended.yaml",
              "Suspended: Daemonset is paused",
              "Paused (Paused), StatusOnly",
              0,
              null),
          new Case(
              "partition-four",
              "partition_suspended.yaml",
              "Suspended: Daemonset needs manual intervention",
              "Progressing (StatusIncomplete), StatusOnly",
              0,
              "7 of 10 nodes are updated with a partition of 4, more than the 6 kruise lets it"
                  + " update — the partition was raised after the rollout went further — but only 1"
                  + " node has a pod (currentNumberScheduled 1): stallwatch waits and says so, Argo"
                  + " CD asks for a person."),
          new Case(
              "partition-half-of-ten",
              "partition_percentage_suspended.yaml",
              "Suspended: Daemonset needs manual intervention",
              "Complete (RolloutComplete), StatusOnly",
              0,
              "50% of 10 holds 5: 7 updated is more than the 5 the partition lets the rollout"
                  + " update, every pod is available. Kruise never rolls back nodes a raised"
                  + " partition now holds; stallwatch reports the rollout done among the nodes it may"
                  + " update (5 held), Argo CD asks for a person."),
          new Case(
              "partition-half-of-three",
              "partition_percentage_rounding.yaml",
              "Progressing: Waiting for initialization",
              "Complete (RolloutComplete), StatusOnly",
              0,
              "50% of 3 holds 1 (kruise rounds down): the 2 nodes the rollout may update are updated"
                  + " and all 3 available — done for stallwatch; Argo CD's check, which counts the"
                  + " same target, has no verdict for reaching it and stays at its initial"
                  + " Progressing."),
          new Case(
              "partition-numeric-string",
              "partition_numeric_string_suspended.yaml",
              "Suspended: Daemonset needs manual intervention",
              "Progressing (StatusIncomplete), StatusOnly",
              0,
              "the partition is the string \"3\": Argo CD reads it as the number 3, but kruise's"
                  + " controller cannot scale a string that is not a percentage and updates no"
                  + " node; stallwatch names the field and judges from .status only."),
          new Case(
              "partition-all",
              "partition_percentage_hold.yaml",
              "Progressing: Waiting for initialization",
              "Complete (RolloutComplete), StatusOnly",
              0,
              "100% holds all 10 nodes: nothing is to be updated and every pod is available —"
                  + " done for stallwatch (10 held by the partition); Argo CD stays at its initial"
                  + " Progressing."),
          new Case(
              "terminating",
              "terminating.yaml (main)",
              "Progressing: Pending deletion; blocked by finalizers: example.com/cleanup",
              "Complete (RolloutComplete), StatusOnly",
              0,
              "being deleted, behind a finalizer: Argo CD reports the deletion; stallwatch judges"
                  + " the rollout, complete until the DaemonSet is gone."));

  static Stream<Case> cases() {
    return CASES.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void diagnoseGivesTheVerdictTheTableClaims(Case c) throws IOException {
    JsonNode ds = PeerCases.Fixture.load(c.fixture()).daemonSet();
    Path dump = tmp.resolve("dump.json");
    JSON.writeValue(dump.toFile(), ds);

    CliRun run = CliRun.diagnoseJson(dump, "2026-12-02T10:00:00Z", "5m");

    assertThat(run.err()).doesNotContain("Exception");
    assertThat(run.exitCode()).as("exit code: %s", run).isEqualTo(c.exit());
    JsonNode v = JSON.readTree(run.out()).get("daemonSets").get(0);
    assertThat(
            v.get("phase").asText()
                + " ("
                + v.get("reason").asText()
                + "), "
                + v.get("evidence").asText())
        .as("%s", v)
        .isEqualTo(c.ours());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void argoCdsVerdictFollowsItsHealthCheck(Case c) throws IOException {
    JsonNode ds = PeerCases.Fixture.load(c.fixture()).daemonSet();

    assertThat(argoCd(ds)).isEqualTo(c.argoCd());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyDifferenceIsExplainedAndOnlyThose(Case c) {
    assertThat(c.why() != null).as("a sentence exactly where we differ").isEqualTo(differ(c));
  }

  /** Done, waiting, paused, or a call for a person: what each verdict asks of whoever reads it. */
  private static boolean differ(Case c) {
    return !kind(c.argoCd()).equals(kind(c.ours()));
  }

  private static String kind(String verdict) {
    if (verdict.startsWith("Healthy") || verdict.startsWith("Complete")) {
      return "done";
    }
    if (verdict.startsWith("Suspended: Daemonset is paused") || verdict.startsWith("Paused")) {
      return "paused";
    }
    if (verdict.startsWith("Progressing: Waiting") || verdict.startsWith("Progressing (")) {
      return "waiting";
    }
    return verdict;
  }

  /**
   * Argo CD's health of an Advanced DaemonSet: its generic handling of an object being deleted,
   * then health.lua (at the commit {@link #LINK} names) in Java.
   */
  static String argoCd(JsonNode ds) {
    JsonNode meta = ds.path("metadata");
    if (meta.has("deletionTimestamp")) {
      StringBuilder finalizers = new StringBuilder();
      meta.path("finalizers")
          .forEach(f -> finalizers.append(finalizers.isEmpty() ? "" : ", ").append(f.asText()));
      return "Progressing: Pending deletion; blocked by finalizers: " + finalizers;
    }
    String waiting = "Progressing: Waiting for initialization";
    JsonNode st = ds.path("status");
    if (st.isMissingNode() || st.isNull()) {
      return waiting;
    }
    JsonNode generation = meta.path("generation");
    JsonNode observed = st.path("observedGeneration");
    if (!(generation.isMissingNode() && observed.isMissingNode())
        && generation.asLong(-1) != observed.asLong(-2)) {
      return waiting;
    }
    JsonNode rolling = ds.at("/spec/updateStrategy/rollingUpdate");
    JsonNode updated = st.path("updatedNumberScheduled");
    if (rolling.path("paused").asBoolean(false) || updated.isMissingNode()) {
      return "Suspended: Daemonset is paused";
    }
    Long desired =
        st.has("desiredNumberScheduled") ? st.get("desiredNumberScheduled").asLong() : null;
    Long target = target(desired, rolling.path("partition"));
    if (target != null && !target.equals(desired) && generation.asLong(0) > 1) {
      return updated.asLong() > target ? "Suspended: Daemonset needs manual intervention" : waiting;
    }
    if (desired != null
        && updated.asLong() == desired
        && st.has("numberAvailable")
        && st.get("numberAvailable").asLong() == desired) {
      return "Healthy: All Daemonset workloads are ready and updated";
    }
    if (desired != null
        && updated.asLong() == desired
        && st.has("numberUnavailable")
        && st.get("numberUnavailable").asLong() == desired) {
      return "Degraded: Some pods are not ready or available";
    }
    return waiting;
  }

  /** health.lua's getTargetUpdated: desired minus the partition (a percentage rounded down). */
  private static Long target(Long desired, JsonNode partition) {
    if (desired == null) {
      return null;
    }
    if (partition.isMissingNode() || partition.isNull()) {
      return desired;
    }
    if (partition.isTextual()) {
      String s = partition.asText();
      if (s.matches("\\d+%")) {
        long held = desired * Long.parseLong(s.substring(0, s.length() - 1)) / 100;
        return desired - Math.min(held, desired);
      }
      try {
        return desired - Long.parseLong(s);
      } catch (NumberFormatException e) {
        return desired;
      }
    }
    return desired - partition.asLong();
  }

  @Test
  void theDocumentShowsThisTable() throws IOException {
    Path doc = PeerVerdictsTest.DOC;
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    int begin = text.indexOf(BEGIN);
    int end = text.indexOf(END);
    assertThat(begin).as("%s in %s", BEGIN, doc).isNotNegative();
    assertThat(end).as("%s in %s", END, doc).isGreaterThan(begin);
    String committed = text.substring(begin, end + END.length());
    String rendered = render();
    if (!committed.equals(rendered)) {
      Files.writeString(
          doc,
          text.substring(0, begin) + rendered + text.substring(end + END.length()),
          StandardCharsets.UTF_8);
    }
    assertThat(committed)
        .as("%s was stale; the test rewrote it: review and commit it", doc)
        .isEqualTo(rendered);
  }

  static String render() throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append(BEGIN).append('\n');
    sb.append(
        "<!-- written by KruisePeerVerdictsTest from its CASES; edit those, not this -->\n\n");
    sb.append(
        "| # | case ([Argo CD's fixture]("
            + LINK
            + ")) | facts: API, generation/observed,"
            + " partition, paused, desired/current/updated/ready/available | Argo CD"
            + " | stallwatch `diagnose` |\n");
    sb.append("|---|---|---|---|---|\n");
    int n = 0;
    for (Case c : CASES) {
      n++;
      JsonNode ds = PeerCases.Fixture.load(c.fixture()).daemonSet();
      sb.append("| ")
          .append(n)
          .append(" | [`")
          .append(c.id())
          .append("`](../src/test/resources/")
          .append(c.fixture())
          .append(") (`")
          .append(c.upstream())
          .append("`) | ")
          .append(facts(ds))
          .append(" | _")
          .append(c.argoCd())
          .append("_ (its test) | ")
          .append(c.ours())
          .append(", exit ")
          .append(c.exit())
          .append(" |\n");
    }
    sb.append("\nWhere we differ:\n\n");
    n = 0;
    for (Case c : CASES) {
      n++;
      if (c.why() != null) {
        sb.append("- **#")
            .append(n)
            .append(" ")
            .append(c.id())
            .append("**: ")
            .append(c.why())
            .append('\n');
      }
    }
    sb.append('\n').append(END);
    return sb.toString();
  }

  private static String facts(JsonNode ds) {
    JsonNode st = ds.path("status");
    JsonNode rolling = ds.at("/spec/updateStrategy/rollingUpdate");
    String partition =
        rolling.has("partition")
            ? (rolling.get("partition").isTextual()
                ? "\"" + rolling.get("partition").asText() + "\""
                : rolling.get("partition").asText())
            : "–";
    StringBuilder sb = new StringBuilder();
    sb.append(ds.path("apiVersion").asText().replace("apps.kruise.io/", ""))
        .append(", ")
        .append(number(ds.at("/metadata/generation")))
        .append('/')
        .append(number(st.path("observedGeneration")))
        .append(", ")
        .append(partition)
        .append(", ")
        .append(rolling.path("paused").asBoolean(false) ? "paused" : "–")
        .append(", ");
    if (st.isMissingNode()) {
      sb.append("no status");
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
    if (ds.at("/metadata/deletionTimestamp").isTextual()) {
      sb.append("; being deleted");
    }
    return sb.toString();
  }

  private static String number(JsonNode n) {
    return n.isMissingNode() || n.isNull() ? "–" : n.asText();
  }
}
