package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
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
  private static final String ROLLOUT = "2026-12-02T09:50:00Z";

  @TempDir Path tmp;

  /** One pod's state in the world. */
  enum Pod {
    OLD_READY,
    NEW_READY,
    NEW_IMAGE_PULL,
    NONE,
    OLD_PRE_DELETE,
    NEW_IN_PLACE_PULLING
  }

  /** The world: an Advanced DaemonSet, its two revisions, five nodes and their pods. */
  static final class World {
    final ObjectNode ds;
    final Map<String, Pod> pods = new LinkedHashMap<>();
    final Map<String, Map<String, String>> nodeLabels = new LinkedHashMap<>();
    String apiVersion;

    World(String apiVersion, Pod... states) {
      this.apiVersion = apiVersion;
      for (int i = 0; i < states.length; i++) {
        pods.put("node-" + (i + 1), states[i]);
        nodeLabels.put("node-" + (i + 1), new LinkedHashMap<>());
      }
      ds = JSON.createObjectNode();
      ds.put("apiVersion", apiVersion);
      ds.put("kind", "DaemonSet");
      ObjectNode meta = ds.putObject("metadata");
      meta.put("name", "agent");
      meta.put("namespace", "kruise");
      meta.put("uid", "uid-agent");
      meta.put("generation", 2);
      meta.put("creationTimestamp", "2026-12-01T08:00:00Z");
      ObjectNode spec = ds.putObject("spec");
      spec.putObject("selector").putObject("matchLabels").put("app", "agent");
      ObjectNode template = spec.putObject("template");
      template.putObject("metadata").putObject("labels").put("app", "agent");
      container(template.putObject("spec"), "registry.example/agent:2.0");
      ObjectNode strategy = spec.putObject("updateStrategy");
      strategy.put("type", "RollingUpdate");
      ObjectNode rolling = strategy.putObject("rollingUpdate");
      rolling.put("rollingUpdateType", "Standard");
      rolling.put("maxUnavailable", 1);
      rolling.put("maxSurge", 0);
      ObjectNode status = ds.putObject("status");
      status.put("observedGeneration", 2);
      int n = states.length;
      int withPod = (int) pods.values().stream().filter(p -> p != Pod.NONE).count();
      int updated = (int) pods.values().stream().filter(p -> p.name().startsWith("NEW")).count();
      int ready = (int) pods.values().stream().filter(p -> p.name().endsWith("READY")).count();
      status.put("desiredNumberScheduled", n);
      status.put("currentNumberScheduled", withPod);
      status.put("updatedNumberScheduled", updated);
      status.put("numberReady", ready);
      status.put("numberAvailable", ready);
      status.put("numberUnavailable", n - ready);
      status.put("numberMisscheduled", 0);
      status.put(apiVersion.endsWith("v1alpha1") ? "daemonSetHash" : "updateRevision", "new2");
    }

    World rolling(Consumer<ObjectNode> change) {
      change.accept((ObjectNode) ds.path("spec").path("updateStrategy").path("rollingUpdate"));
      return this;
    }

    World spec(Consumer<ObjectNode> change) {
      change.accept((ObjectNode) ds.path("spec"));
      return this;
    }

    World label(String node, String key, String value) {
      nodeLabels.get(node).put(key, value);
      return this;
    }

    JsonNode dump() {
      ObjectNode list = JSON.createObjectNode();
      list.put("apiVersion", "v1");
      list.put("kind", "List");
      ArrayNode items = list.putArray("items");
      items.add(ds);
      items.add(revision("old1", 1, "registry.example/agent:1.0", "2026-12-01T08:00:00Z"));
      items.add(revision("new2", 2, "registry.example/agent:2.0", ROLLOUT));
      nodeLabels.forEach((name, labels) -> items.add(node(name, labels)));
      pods.forEach(
          (node, state) -> {
            if (state != Pod.NONE) {
              items.add(pod(node, state));
            }
          });
      return list;
    }

    private ObjectNode revision(String hash, int number, String image, String created) {
      ObjectNode r = JSON.createObjectNode();
      r.put("apiVersion", "apps/v1");
      r.put("kind", "ControllerRevision");
      ObjectNode meta = r.putObject("metadata");
      meta.put("name", "agent-" + hash);
      meta.put("namespace", "kruise");
      meta.put("creationTimestamp", created);
      meta.putObject("labels").put("controller-revision-hash", hash);
      owner(meta);
      r.put("revision", number);
      ObjectNode template = r.putObject("data").putObject("spec").putObject("template");
      template.putObject("metadata").putObject("labels").put("app", "agent");
      container(template.putObject("spec"), image);
      template.put("$patch", "replace");
      return r;
    }

    private void owner(ObjectNode meta) {
      ObjectNode o = meta.putArray("ownerReferences").addObject();
      o.put("apiVersion", apiVersion);
      o.put("kind", "DaemonSet");
      o.put("name", "agent");
      o.put("uid", "uid-agent");
      o.put("controller", true);
    }

    private static ObjectNode node(String name, Map<String, String> labels) {
      ObjectNode n = JSON.createObjectNode();
      n.put("apiVersion", "v1");
      n.put("kind", "Node");
      ObjectNode meta = n.putObject("metadata");
      meta.put("name", name);
      ObjectNode l = meta.putObject("labels");
      l.put("kubernetes.io/hostname", name);
      labels.forEach(l::put);
      ObjectNode ready = n.putObject("status").putArray("conditions").addObject();
      ready.put("type", "Ready");
      ready.put("status", "True");
      ready.put("lastTransitionTime", "2026-12-01T07:00:00Z");
      return n;
    }

    private ObjectNode pod(String node, Pod state) {
      boolean isNew = state.name().startsWith("NEW");
      ObjectNode p = JSON.createObjectNode();
      p.put("apiVersion", "v1");
      p.put("kind", "Pod");
      ObjectNode meta = p.putObject("metadata");
      meta.put("name", "agent-" + node);
      meta.put("namespace", "kruise");
      meta.put("uid", "uid-" + node);
      boolean createdNew = isNew && state != Pod.NEW_IN_PLACE_PULLING;
      meta.put("creationTimestamp", createdNew ? "2026-12-02T09:51:00Z" : "2026-12-01T08:01:00Z");
      ObjectNode labels = meta.putObject("labels");
      labels.put("app", "agent");
      labels.put("controller-revision-hash", isNew ? "new2" : "old1");
      if (state == Pod.OLD_PRE_DELETE) {
        labels.put("lifecycle.apps.kruise.io/state", "PreparingDelete");
      }
      owner(meta);
      ObjectNode spec = p.putObject("spec");
      spec.put("nodeName", node);
      container(spec, isNew ? "registry.example/agent:2.0" : "registry.example/agent:1.0");
      ObjectNode status = p.putObject("status");
      status.put("phase", state == Pod.NEW_IMAGE_PULL ? "Pending" : "Running");
      ArrayNode conditions = status.putArray("conditions");
      boolean ready =
          state.name().endsWith("READY")
              || state == Pod.OLD_PRE_DELETE
              || state == Pod.NEW_IN_PLACE_PULLING;
      ObjectNode c = conditions.addObject();
      c.put("type", "Ready");
      c.put("status", ready ? "True" : "False");
      c.put("lastTransitionTime", createdNew ? "2026-12-02T09:51:10Z" : "2026-12-01T08:01:10Z");
      if (state == Pod.NEW_IN_PLACE_PULLING) {
        ObjectNode gate = conditions.addObject();
        gate.put("type", "InPlaceUpdateReady");
        gate.put("status", "False");
        gate.put("lastTransitionTime", "2026-12-02T09:58:00Z");
      }
      ObjectNode cs = status.putArray("containerStatuses").addObject();
      cs.put("name", "agent");
      cs.put("image", isNew ? "registry.example/agent:2.0" : "registry.example/agent:1.0");
      cs.put("ready", ready);
      cs.put("restartCount", 0);
      if (state == Pod.NEW_IMAGE_PULL) {
        ObjectNode waiting = cs.putObject("state").putObject("waiting");
        waiting.put("reason", "ImagePullBackOff");
        waiting.put("message", "Back-off pulling image \"registry.example/agent:2.0\"");
      } else {
        cs.putObject("state").putObject("running").put("startedAt", "2026-12-01T08:01:05Z");
      }
      return p;
    }

    private static void container(ObjectNode podSpec, String image) {
      ObjectNode c = podSpec.putArray("containers").addObject();
      c.put("name", "agent");
      c.put("image", image);
    }
  }

  private JsonNode diagnose(World w) throws IOException {
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
    World w =
        new World(
                V1BETA1, Pod.OLD_READY, Pod.OLD_READY, Pod.NEW_READY, Pod.NEW_READY, Pod.NEW_READY)
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
    World w =
        new World(
                V1BETA1,
                Pod.OLD_READY,
                Pod.OLD_READY,
                Pod.OLD_READY,
                Pod.OLD_READY,
                Pod.NEW_IMAGE_PULL)
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
    World w =
        new World(
                V1BETA1, Pod.OLD_READY, Pod.OLD_READY, Pod.NEW_READY, Pod.NEW_READY, Pod.NEW_READY)
            .rolling(r -> r.put("partition", "50%"));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Complete");
    assertThat(v.get("message").asText()).endsWith("; 2 nodes held by partition 2");
  }

  @Test
  void theUpdateSelectorHoldsEveryNodeItDoesNotMatch() throws IOException {
    World w =
        new World(
                V1BETA1,
                Pod.OLD_READY,
                Pod.NEW_IMAGE_PULL,
                Pod.OLD_READY,
                Pod.NEW_READY,
                Pod.OLD_READY)
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
    World w =
        new World(V1BETA1, Pod.OLD_READY, Pod.OLD_READY, Pod.OLD_READY)
            .rolling(r -> r.putObject("selector").putObject("matchLabels").put("wave", "none"));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Complete");
    assertThat(v.get("message").asText())
        .contains("all 0 of 3 desired nodes the rollout may update")
        .endsWith("3 nodes held by update selector wave=none");
  }

  @Test
  void aPausedRolloutIsPausedNeverStalledThoughANodeIsStuck() throws IOException {
    World w =
        new World(V1BETA1, Pod.OLD_READY, Pod.OLD_READY, Pod.NEW_READY, Pod.NEW_IMAGE_PULL)
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
    World w = new World(V1ALPHA1, Pod.OLD_READY, Pod.OLD_READY, Pod.NEW_IMAGE_PULL);
    w.rolling(
        r -> r.put("rollingUpdateType", "Surging").put("maxSurge", 1).put("maxUnavailable", 0));
    ObjectNode dump = (ObjectNode) w.dump();
    // the surge pod beside the old one on node-3
    ObjectNode old = ((ObjectNode) w.pod("node-3", Pod.OLD_READY));
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
    World w =
        new World(V1BETA1, Pod.OLD_READY, Pod.OLD_READY, Pod.NEW_IN_PLACE_PULLING)
            .rolling(r -> r.put("rollingUpdateType", "InPlaceIfPossible"));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Progressing");
    assertThat(standings(v)).containsEntry("node-3", "updating");
    JsonNode row = v.get("nodes").get(2);
    assertThat(row.get("since").asText()).isEqualTo("2026-12-02T09:58:00Z");
  }

  @Test
  void anOldPodHeldInThePreDeleteHookIsStuckWithReasonPreDeleteHook() throws IOException {
    World w =
        new World(V1BETA1, Pod.OLD_READY, Pod.NEW_READY, Pod.OLD_PRE_DELETE)
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
    World w =
        new World(V1BETA1, Pod.NEW_READY, Pod.NONE, Pod.NONE, Pod.NONE, Pod.NONE)
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
    World w =
        new World(V1BETA1, Pod.OLD_READY, Pod.NEW_IMAGE_PULL, Pod.NEW_READY)
            .rolling(r -> r.put("rollingUpdateType", "Teleport"));

    JsonNode v = diagnose(w);

    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Progressing");
    assertThat(v.get("evidence").asText()).isEqualTo("StatusOnly");
    assertThat(v.get("message").asText()).contains("rollingUpdateType \"Teleport\"");
    assertThat(v.get("nodes")).isEmpty();
  }

  @Test
  void aPartitionWrittenAsAPlainStringIsNamedAndJudgedFromStatus() throws IOException {
    World w =
        new World(V1BETA1, Pod.OLD_READY, Pod.NEW_IMAGE_PULL, Pod.NEW_READY)
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
            new World(V1BETA1, Pod.OLD_READY, Pod.NEW_IMAGE_PULL, Pod.NEW_READY)
                .rolling(r -> r.put("partition", -1)));
    assertThat(negative.get("phase").asText()).isEqualTo("Stalled");
    assertThat(standings(negative)).doesNotContainValue("held");

    JsonNode above =
        diagnose(
            new World(V1BETA1, Pod.OLD_READY, Pod.OLD_READY, Pod.OLD_READY)
                .rolling(r -> r.put("partition", 7)));
    assertThat(above.get("phase").asText()).isEqualTo("Complete");
    assertThat(above.get("message").asText()).endsWith("3 nodes held by partition 7");
  }

  @Test
  void theNewRevisionOfAV1alpha1ObjectIsItsDaemonSetHash() throws IOException {
    World w = new World(V1ALPHA1, Pod.OLD_READY, Pod.NEW_READY, Pod.NEW_READY);

    JsonNode v = diagnose(w);

    assertThat(v.get("newRevision").get("hash").asText()).isEqualTo("new2");
    assertThat(v.get("phase").asText()).as("%s", v).isEqualTo("Progressing");
    assertThat(v.get("reason").asText()).isEqualTo("WaitingForBudget");
  }

  @Test
  void anotherKruiseVersionIsListedAsUnsupported() throws IOException {
    World w = new World("apps.kruise.io/v1", Pod.OLD_READY);
    Path dump = tmp.resolve("other.json");
    JSON.writeValue(dump.toFile(), w.dump());

    CliRun run = CliRun.diagnoseJson(dump, NOW, "5m");

    assertThat(run.out() + run.err()).contains("apps.kruise.io/v1");
    assertThat(JSON.readTree(run.out()).get("daemonSets")).isEmpty();
  }
}
