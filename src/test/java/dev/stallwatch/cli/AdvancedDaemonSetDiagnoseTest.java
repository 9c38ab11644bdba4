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
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  @Test
  void aPartitionHoldsTheLowestNamedOldNodesAndTheRestCompletes() throws IOException {
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
                V1BETA1,
                NOW_INSTANT,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.NEW_READY,
                AdvancedDaemonSetWorld.Pod.NEW_READY,
                AdvancedDaemonSetWorld.Pod.NEW_READY)
            .rolling(r -> r.put("partition", 2));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Complete");
    assertThat(v.get("message").asText())
        .isEqualTo(
            "all 3 of 5 desired nodes the rollout may update run revision 2 (new2), available;"
                + " 2 nodes held by partition 2");
    assertThat(standings(v))
        .containsExactly(
            Map.entry("node-1", "held"),
            Map.entry("node-2", "held"),
            Map.entry("node-3", "updated"),
            Map.entry("node-4", "updated"),
            Map.entry("node-5", "updated"));
    assertThat(v.get("remaining").asInt()).isZero();
  }

  @Test
  void aStallHappensOnlyAmongTheNodesThePartitionLetsTheRolloutUpdate() throws IOException {
    // kruise went from node-5 down: node-5 took the unpullable image, node-1 and node-2 are held.
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
                V1BETA1,
                NOW_INSTANT,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.NEW_IMAGE_PULL)
            .rolling(r -> r.put("partition", 2));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Stalled");
    assertThat(v.get("cause").asText()).isEqualTo("ImagePull");
    assertThat(v.get("stalledNodes").toString()).isEqualTo("[\"node-5\"]");
    assertThat(standings(v))
        .containsExactly(
            Map.entry("node-1", "held"),
            Map.entry("node-2", "held"),
            Map.entry("node-3", "waiting"),
            Map.entry("node-4", "waiting"),
            Map.entry("node-5", "stuck"));
  }

  @Test
  void aPercentagePartitionIsScaledFromTheLastStatusAndRoundedDown() throws IOException {
    // 50% of 5 is 2.5: kruise holds 2.
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
                V1BETA1,
                NOW_INSTANT,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.NEW_READY,
                AdvancedDaemonSetWorld.Pod.NEW_READY,
                AdvancedDaemonSetWorld.Pod.NEW_READY)
            .rolling(r -> r.put("partition", "50%"));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Complete");
    assertThat(v.get("message").asText()).endsWith("; 2 nodes held by partition 2");
  }

  @Test
  void theUpdateSelectorHoldsEveryNodeItDoesNotMatch() throws IOException {
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
                V1BETA1,
                NOW_INSTANT,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.NEW_IMAGE_PULL,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.NEW_READY,
                AdvancedDaemonSetWorld.Pod.OLD_READY)
            .label("node-2", "wave", "one")
            .label("node-4", "wave", "one")
            .rolling(r -> r.putObject("selector").putObject("matchLabels").put("wave", "one"));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Stalled");
    assertThat(v.get("stalledNodes").toString()).isEqualTo("[\"node-2\"]");
    assertThat(standings(v))
        .containsExactly(
            Map.entry("node-1", "held"),
            Map.entry("node-2", "stuck"),
            Map.entry("node-3", "held"),
            Map.entry("node-4", "updated"),
            Map.entry("node-5", "held"));
  }

  @Test
  void aSelectorThatMatchesNoNodeHoldsThemAllAndSaysSo() throws IOException {
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
                V1BETA1,
                NOW_INSTANT,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.OLD_READY)
            .rolling(r -> r.putObject("selector").putObject("matchLabels").put("wave", "none"));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Complete");
    assertThat(v.get("message").asText())
        .contains("all 0 of 3 desired nodes the rollout may update")
        .endsWith("3 nodes held by update selector wave=none");
  }

  @Test
  void aPausedRolloutIsPausedNeverStalledThoughANodeIsStuck() throws IOException {
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
                V1BETA1,
                NOW_INSTANT,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.NEW_READY,
                AdvancedDaemonSetWorld.Pod.NEW_IMAGE_PULL)
            .rolling(r -> r.put("paused", true));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Paused");
    assertThat(v.get("reason").asText()).isEqualTo("Paused");
    assertThat(v.get("message").asText())
        .isEqualTo(
            "rollout paused (rollingUpdate.paused); 1 of 4 nodes updated to revision 2 (new2);"
                + " node node-4 would hold it back (ImagePull)");
    assertThat(v.get("cause").isNull()).isTrue();
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
  void anOldPodHeldInThePreDeleteHookIsStuckWithReasonPreDeleteHook() throws IOException {
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
                V1BETA1,
                NOW_INSTANT,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.NEW_READY,
                AdvancedDaemonSetWorld.Pod.OLD_PRE_DELETE)
            .spec(
                s ->
                    s.putObject("lifecycle")
                        .putObject("preDelete")
                        .putObject("labelsHandler")
                        .put("example.com/drain", "true"));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Stalled");
    assertThat(v.get("cause").asText()).isEqualTo("Unknown");
    assertThat(v.get("reason").asText()).isEqualTo("PreDeleteHook");
    assertThat(v.get("suspect").asText()).isEqualTo("Unknown");
    assertThat(v.get("stalledNodes").toString()).isEqualTo("[\"node-3\"]");
  }

  @Test
  void partitionedScalingHoldsTheEmptyNodesThePartitionKeepsEmpty() throws IOException {
    // desired 5, 1 new pod, partition 2: kruise creates 5 - 1 - 2 = 2 pods, on node-2 and node-3.
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
                V1BETA1,
                NOW_INSTANT,
                AdvancedDaemonSetWorld.Pod.NEW_READY,
                AdvancedDaemonSetWorld.Pod.NONE,
                AdvancedDaemonSetWorld.Pod.NONE,
                AdvancedDaemonSetWorld.Pod.NONE,
                AdvancedDaemonSetWorld.Pod.NONE)
            .rolling(r -> r.put("partition", 2))
            .spec(s -> s.putObject("scaleStrategy").put("partitionedScaling", true));

    JsonNode v = diagnose(w);

    assertThat(standings(v))
        .containsExactly(
            Map.entry("node-1", "updated"),
            Map.entry("node-2", "stuck"),
            Map.entry("node-3", "stuck"),
            Map.entry("node-4", "held"),
            Map.entry("node-5", "held"));
  }

  @Test
  void anUnknownRollingTypeIsJudgedFromStatusAndNamed() throws IOException {
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
                V1BETA1,
                NOW_INSTANT,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.NEW_IMAGE_PULL,
                AdvancedDaemonSetWorld.Pod.NEW_READY)
            .rolling(r -> r.put("rollingUpdateType", "Teleport"));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Progressing");
    assertThat(v.get("evidence").asText()).isEqualTo("StatusOnly");
    assertThat(v.get("message").asText()).contains("rollingUpdateType \"Teleport\"");
    assertThat(v.get("nodes")).isEmpty();
  }

  @Test
  void aPartitionWrittenAsAPlainStringIsNamedAndJudgedFromStatus() throws IOException {
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
                V1BETA1,
                NOW_INSTANT,
                AdvancedDaemonSetWorld.Pod.OLD_READY,
                AdvancedDaemonSetWorld.Pod.NEW_IMAGE_PULL,
                AdvancedDaemonSetWorld.Pod.NEW_READY)
            .rolling(r -> r.put("partition", "2"));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Progressing");
    assertThat(v.get("message").asText())
        .contains("rollingUpdate.partition \"2\" is a string but not a percentage");
  }

  @Test
  void aNegativePartitionHoldsNothingAndAPartitionAboveDesiredHoldsEveryOldNode()
      throws IOException {
    JsonNode negative =
        diagnose(
            new AdvancedDaemonSetWorld(
                    V1BETA1,
                    NOW_INSTANT,
                    AdvancedDaemonSetWorld.Pod.OLD_READY,
                    AdvancedDaemonSetWorld.Pod.NEW_IMAGE_PULL,
                    AdvancedDaemonSetWorld.Pod.NEW_READY)
                .rolling(r -> r.put("partition", -1)));
    assertThat(negative.get("phase").asText()).isEqualTo("Stalled");
    assertThat(standings(negative)).doesNotContainValue("held");

    JsonNode above =
        diagnose(
            new AdvancedDaemonSetWorld(
                    V1BETA1,
                    NOW_INSTANT,
                    AdvancedDaemonSetWorld.Pod.OLD_READY,
                    AdvancedDaemonSetWorld.Pod.OLD_READY,
                    AdvancedDaemonSetWorld.Pod.OLD_READY)
                .rolling(r -> r.put("partition", 7)));
    assertThat(above.get("phase").asText()).isEqualTo("Complete");
    assertThat(above.get("message").asText()).endsWith("3 nodes held by partition 7");
  }

  @Test
  void theNewRevisionOfAV1alpha1ObjectIsItsDaemonSetHash() throws IOException {
    AdvancedDaemonSetWorld w =
        new AdvancedDaemonSetWorld(
            V1ALPHA1,
            NOW_INSTANT,
            AdvancedDaemonSetWorld.Pod.OLD_READY,
            AdvancedDaemonSetWorld.Pod.NEW_READY,
            AdvancedDaemonSetWorld.Pod.NEW_READY);

    JsonNode v = diagnose(w);

    assertThat(v.get("newRevision").get("hash").asText()).isEqualTo("new2");
    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Progressing");
    assertThat(v.get("reason").asText()).isEqualTo("WaitingForBudget");
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
