package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.testing.AdvancedDaemonSetWorld;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * OpenKruise Advanced DaemonSets through {@code diagnose -o json}: the objects as kruise's
 * controller leaves them (its revision label, {@code updateRevision}/{@code daemonSetHash}, the
 * nodes its partition and update selector hold — the lowest names among the nodes with an old pod),
 * and the verdict stallwatch gives. One world of five nodes {@code node-1}…{@code node-5}, revision
 * {@code old1} rolled to {@code new2} from 09:50; the evaluation is at 10:00 with stall-after 5m.
 */
class AdvancedDaemonSetDiagnoseTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NOW = "2026-12-02T10:00:00Z";
  private static final java.time.Instant NOW_INSTANT = java.time.Instant.parse(NOW);

  @TempDir Path tmp;

  private JsonNode diagnose(AdvancedDaemonSetWorld w) throws IOException {
    Path dump = tmp.resolve("dump.json");
    JSON.writeValue(dump.toFile(), w.dump());
    CliRun run = CliRun.diagnoseJson(dump, NOW, "5m");
    assertThat(run.err()).doesNotContain("Exception");
    JsonNode verdicts = JSON.readTree(run.out()).get("daemonSets");
    assertThat(verdicts).as(run.toString()).hasSize(1);
    return verdicts.get(0);
  }

  private static Map<String, String> standings(JsonNode v) {
    Map<String, String> out = new LinkedHashMap<>();
    v.get("nodes").forEach(n -> out.put(n.get("node").asText(), n.get("standing").asText()));
    return out;
  }

  private static final String V1BETA1 = "apps.kruise.io/v1beta1";
  private static final String V1ALPHA1 = "apps.kruise.io/v1alpha1";

  /** A world of {@code pods} on node-1…node-N at {@link #V1BETA1}. */
  private static AdvancedDaemonSetWorld world(AdvancedDaemonSetWorld.Pod... pods) {
    return new AdvancedDaemonSetWorld(V1BETA1, NOW_INSTANT, pods);
  }

  private static final AdvancedDaemonSetWorld.Pod OLD = AdvancedDaemonSetWorld.Pod.OLD_READY;
  private static final AdvancedDaemonSetWorld.Pod NEW = AdvancedDaemonSetWorld.Pod.NEW_READY;
  private static final AdvancedDaemonSetWorld.Pod PULL = AdvancedDaemonSetWorld.Pod.NEW_IMAGE_PULL;
  private static final AdvancedDaemonSetWorld.Pod NONE = AdvancedDaemonSetWorld.Pod.NONE;

  /**
   * One row per case: what it proves, the world, and the verdict's fields expected. A text field
   * ({@code phase}, {@code message}, …) is matched whole, or as a suffix when it starts with {@code
   * …}, a prefix when it ends with one, a part when it does both; {@code standings} lists each
   * node's standing in node order; {@code stalledNodes} and {@code nodes} are JSON; {@code cause:
   * null} asks for a JSON null; {@code revision} is the new revision's hash.
   */
  static Stream<Arguments> verdicts() {
    return Stream.of(
        row(
            "a partition holds the lowest-named old nodes and the rest completes",
            world(OLD, OLD, NEW, NEW, NEW).rolling(r -> r.put("partition", 2)),
            "phase",
            "Complete",
            "message",
            "all 3 of 5 desired nodes the rollout may update run revision 2 (new2), available;"
                + " 2 nodes held by partition 2",
            "standings",
            "held,held,updated,updated,updated",
            "remaining",
            "0"),
        row(
            "a stall happens only among the nodes the partition lets the rollout update (kruise"
                + " went from node-5 down)",
            world(OLD, OLD, OLD, OLD, PULL).rolling(r -> r.put("partition", 2)),
            "phase",
            "Stalled",
            "cause",
            "ImagePull",
            "stalledNodes",
            "[\"node-5\"]",
            "standings",
            "held,held,waiting,waiting,stuck"),
        row(
            "a percentage partition is scaled from the last status and rounded down (50% of 5: 2)",
            world(OLD, OLD, NEW, NEW, NEW).rolling(r -> r.put("partition", "50%")),
            "phase",
            "Complete",
            "message",
            "…; 2 nodes held by partition 2"),
        row(
            "the update selector holds every node it does not match",
            world(OLD, PULL, OLD, NEW, OLD)
                .label("node-2", "wave", "one")
                .label("node-4", "wave", "one")
                .rolling(r -> r.putObject("selector").putObject("matchLabels").put("wave", "one")),
            "phase",
            "Stalled",
            "stalledNodes",
            "[\"node-2\"]",
            "standings",
            "held,stuck,held,updated,held"),
        row(
            "a selector that matches no node holds them all and says so",
            world(OLD, OLD, OLD)
                .rolling(r -> r.putObject("selector").putObject("matchLabels").put("wave", "none")),
            "phase",
            "Complete",
            "message",
            "…all 0 of 3 desired nodes the rollout may update…",
            "message",
            "…3 nodes held by update selector wave=none"),
        row(
            "a paused rollout is Paused, never Stalled, though a node is stuck",
            world(OLD, OLD, NEW, PULL).rolling(r -> r.put("paused", true)),
            "phase",
            "Paused",
            "reason",
            "Paused",
            "message",
            "rollout paused (rollingUpdate.paused); 1 of 4 nodes updated to revision 2 (new2);"
                + " node node-4 would hold it back (ImagePull)",
            "cause",
            null),
        row(
            "an old pod held in the pre-delete hook is stuck with reason PreDeleteHook",
            world(OLD, NEW, AdvancedDaemonSetWorld.Pod.OLD_PRE_DELETE)
                .spec(
                    s ->
                        s.putObject("lifecycle")
                            .putObject("preDelete")
                            .putObject("labelsHandler")
                            .put("example.com/drain", "true")),
            "phase",
            "Stalled",
            "cause",
            "Unknown",
            "reason",
            "PreDeleteHook",
            "suspect",
            "Unknown",
            "stalledNodes",
            "[\"node-3\"]"),
        row(
            "partitioned scaling holds the empty nodes the partition keeps empty (desired 5, 1 new"
                + " pod, partition 2: kruise creates 2 pods, on node-2 and node-3)",
            world(NEW, NONE, NONE, NONE, NONE)
                .rolling(r -> r.put("partition", 2))
                .spec(s -> s.putObject("scaleStrategy").put("partitionedScaling", true)),
            "standings",
            "updated,stuck,stuck,held,held"),
        row(
            "an unknown rolling type is judged from status and named",
            world(OLD, PULL, NEW).rolling(r -> r.put("rollingUpdateType", "Teleport")),
            "phase",
            "Progressing",
            "evidence",
            "StatusOnly",
            "message",
            "…rollingUpdateType \"Teleport\"…",
            "nodes",
            "[]"),
        row(
            "a partition written as a plain string is named and judged from status",
            world(OLD, PULL, NEW).rolling(r -> r.put("partition", "2")),
            "phase",
            "Progressing",
            "message",
            "…rollingUpdate.partition \"2\" is a string but not a percentage…"),
        row(
            "a negative partition holds nothing",
            world(OLD, PULL, NEW).rolling(r -> r.put("partition", -1)),
            "phase",
            "Stalled",
            "standings",
            "waiting,stuck,updated"),
        row(
            "a partition above desired holds every old node",
            world(OLD, OLD, OLD).rolling(r -> r.put("partition", 7)),
            "phase",
            "Complete",
            "message",
            "…3 nodes held by partition 7"),
        row(
            "the new revision of a v1alpha1 object is its daemonSetHash",
            new AdvancedDaemonSetWorld(V1ALPHA1, NOW_INSTANT, OLD, NEW, NEW),
            "revision",
            "new2",
            "phase",
            "Progressing",
            "reason",
            "WaitingForBudget"));
  }

  /** A row: {@code proves}, the world, then field/expected pairs. */
  private static Arguments row(String proves, AdvancedDaemonSetWorld w, String... expected) {
    return Arguments.of(proves, w, java.util.Arrays.stream(expected).map(String::valueOf).toList());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("verdicts")
  void verdict(String proves, AdvancedDaemonSetWorld w, List<String> expected) throws IOException {
    JsonNode v = diagnose(w);
    for (int i = 0; i < expected.size(); i += 2) {
      String field = expected.get(i);
      String want = expected.get(i + 1);
      String got =
          switch (field) {
            case "standings" -> String.join(",", standings(v).values());
            case "revision" -> v.get("newRevision").get("hash").asText();
            case "stalledNodes", "nodes" -> v.get(field).toString();
            default -> v.get(field).isNull() ? "null" : v.get(field).asText();
          };
      var that = assertThat(got).as("%s of %s", field, v);
      boolean suffix = want.startsWith("…");
      boolean prefix = want.endsWith("…") && want.length() > 1;
      String core = want.substring(suffix ? 1 : 0, want.length() - (prefix ? 1 : 0));
      if (suffix && prefix) {
        that.contains(core);
      } else if (suffix) {
        that.endsWith(core);
      } else if (prefix) {
        that.startsWith(core);
      } else {
        that.isEqualTo(want);
      }
    }
  }

  @Test
  void surgeWithAnUnpullableImageStallsWhileTheOldPodStillRuns() throws IOException {
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
            V1ALPHA1,
            NOW_INSTANT,
            AdvancedDaemonSetWorld.Pod.OLD_READY,
            AdvancedDaemonSetWorld.Pod.OLD_READY,
            AdvancedDaemonSetWorld.Pod.NEW_IMAGE_PULL);
    w.rolling(
        r -> r.put("rollingUpdateType", "Surging").put("maxSurge", 1).put("maxUnavailable", 0));
    ObjectNode dump = (ObjectNode) w.dump();
    // the surge pod beside the old one on node-3
    ObjectNode old = ((ObjectNode) w.pod("node-3", AdvancedDaemonSetWorld.Pod.OLD_READY));
    ((ObjectNode) old.path("metadata")).put("name", "agent-node-3-old");
    ((ArrayNode) dump.get("items")).add(old);
    Path file = tmp.resolve("surge.json");
    JSON.writeValue(file.toFile(), dump);

    CliRun run = CliRun.diagnoseJson(file, NOW, "5m");
    JsonNode v = JSON.readTree(run.out()).get("daemonSets").get(0);

    assertThat(v.get("phase").asText()).as(run.toString()).isEqualTo("Stalled");
    assertThat(v.get("cause").asText()).isEqualTo("ImagePull");
    assertThat(v.get("maxSurge").asInt()).isEqualTo(1);
    assertThat(v.get("stalledNodes").toString()).isEqualTo("[\"node-3\"]");
  }

  @Test
  void anInPlaceUpdateIsTimedFromItsStartAndJudgedByTheReadinessGate() throws IOException {
    // node-3's pod was updated in place at 09:58 (InPlaceUpdateReady False since): Ready, but
    // not available; 2 minutes in, within stall-after.
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
                V1BETA1,
                NOW_INSTANT,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.NEW_IN_PLACE_PULLING)
            .rolling(r -> r.put("rollingUpdateType", "InPlaceIfPossible"));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Progressing");
    assertThat(standings(v)).containsEntry("node-3", "updating");
    JsonNode row = v.get("nodes").get(2);
    assertThat(row.get("since").asText()).isEqualTo("2026-12-02T09:58:00Z");
  }

  @Test
  void anotherKruiseVersionIsListedAsUnsupported() throws IOException {
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
            "apps.kruise.io/v1", NOW_INSTANT, AdvancedDaemonSetWorld.Pod.OLD_READY);
    Path dump = tmp.resolve("other.json");
    JSON.writeValue(dump.toFile(), w.dump());

    CliRun run = CliRun.diagnoseJson(dump, NOW, "5m");

    assertThat(run.out() + run.err()).contains("apps.kruise.io/v1");
    assertThat(JSON.readTree(run.out()).get("daemonSets")).isEmpty();
  }
}
