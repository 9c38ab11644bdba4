package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.deploy.NativeHelm;
import dev.stallwatch.kube.AdvancedDaemonSet;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * OpenKruise Advanced DaemonSets rolled by the real kruise-manager ({@link KruiseManager}, its
 * webhooks on loopback) on kwok nodes, judged by the operator (as the chart's ServiceAccount with
 * {@code advancedDaemonSets.enabled}) and by {@code diagnose} on {@code kubectl get -o json} of
 * what kruise left. Kruise lets the rollout update the highest-named nodes, so a partition of 2 on
 * nodes {@code <ns>-0} … {@code <ns>-4} holds {@code <ns>-0} and {@code <ns>-1}.
 */
@NativeHelm
class AdvancedDaemonSetRealClusterIT {
  static final String DS = "agent";
  static final String V1 = "example.com/node-agent:v1";
  private static final ObjectMapper JSON = new ObjectMapper();

  static RealCluster cluster;
  static KruiseManager kruise;
  static OperatorProcess operator;

  @BeforeAll
  static void start() {
    Path kruiseDir = KruiseManager.built();
    if (kruiseDir == null) {
      String why = "kruise-manager is not built: run src/test/realcluster/kruise-build.sh";
      if (Boolean.parseBoolean(System.getenv(RealCluster.REQUIRE))) {
        throw new IllegalStateException(why + "; " + RealCluster.REQUIRE + "=true");
      }
      Assumptions.abort(why);
    }
    cluster =
        RealClusterExtension.separate(
            "kruise",
            "kruise-manager's CRDs and admission webhooks, which every other class's requests"
                + " would pass through");
    kruise = KruiseManager.start(cluster, kruiseDir);
    operator =
        OperatorProcess.asChartServiceAccount(
            cluster,
            new ChartInstall(
                "stallwatch", "stallwatch-system", Map.of("advancedDaemonSets.enabled", "true")),
            "kruise-operator",
            "--advanced-daemonsets");
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (kruise != null) {
      kruise.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** An Advanced DaemonSet (v1beta1, Standard, maxUnavailable 1) of {@code image} on the nodes. */
  private static AdvancedDaemonSet advanced(
      Scenario s, String image, Consumer<Map<String, Object>> rollingUpdate) {
    DaemonSet template = s.newDaemonSet(DS, image).build();
    AdvancedDaemonSet ds = new AdvancedDaemonSet();
    ds.setMetadata(template.getMetadata());
    ds.setSpec(template.getSpec());
    Map<String, Object> rolling =
        ds.getSpec().getUpdateStrategy().getRollingUpdate().getAdditionalProperties();
    rolling.put("rollingUpdateType", "Standard");
    rollingUpdate.accept(rolling);
    return ds;
  }

  private static AdvancedDaemonSet read(Scenario s) {
    return cluster
        .admin()
        .resources(AdvancedDaemonSet.class)
        .inNamespace(s.namespace())
        .withName(DS)
        .get();
  }

  /** Changes the Advanced DaemonSet as a user would (kubectl edit: read, change, write). */
  private static void edit(Scenario s, Consumer<AdvancedDaemonSet> change) {
    Conflicts.retry(
        () -> {
          AdvancedDaemonSet ds = read(s);
          change.accept(ds);
          return cluster.admin().resources(AdvancedDaemonSet.class).resource(ds).update();
        });
  }

  private static void image(AdvancedDaemonSet ds, String image) {
    ds.getSpec().getTemplate().getSpec().getContainers().get(0).setImage(image);
  }

  private static Map<String, Object> rolling(AdvancedDaemonSet ds) {
    return ds.getSpec().getUpdateStrategy().getRollingUpdate().getAdditionalProperties();
  }

  /** Creates it and waits until kruise reports every node updated and available. */
  private static void rollOut(Scenario s, AdvancedDaemonSet ds) {
    cluster.admin().resources(AdvancedDaemonSet.class).resource(ds).create();
    await(DS + " rolled out by kruise in " + s.namespace())
        .atMost(Scenario.WAIT)
        .until(
            () -> {
              AdvancedDaemonSet d = read(s);
              var st = d.getStatus();
              return st != null
                  && st.getObservedGeneration() != null
                  && st.getObservedGeneration() >= d.getMetadata().getGeneration()
                  && st.getDesiredNumberScheduled() == s.nodes().size()
                  && st.getNumberAvailable() != null
                  && st.getNumberAvailable() == s.nodes().size()
                  && st.getUpdatedNumberScheduled() != null
                  && st.getUpdatedNumberScheduled() == s.nodes().size();
            });
  }

  /** Node → the image its pod of the DaemonSet runs (the newest pod per node). */
  private static Map<String, String> imagesByNode(Scenario s) {
    Map<String, String> out = new LinkedHashMap<>();
    s.pods(DS).stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> p.getSpec().getNodeName() != null)
        .sorted(java.util.Comparator.comparing((Pod p) -> p.getMetadata().getCreationTimestamp()))
        .forEach(
            p -> out.put(p.getSpec().getNodeName(), p.getSpec().getContainers().get(0).getImage()));
    return out;
  }

  /** {@code diagnose -o json} of what {@code kubectl get} shows of the scenario: its verdict. */
  private static JsonNode diagnose(Scenario s) {
    try {
      Path dump = cluster.dir().resolve(s.namespace() + "-dump.json");
      String listed =
          cluster
              .kubectl(
                  "get",
                  "daemonsets.apps.kruise.io,pods,nodes,controllerrevisions",
                  "-n",
                  s.namespace(),
                  "-o",
                  "json")
              .ok()
              .output();
      Files.writeString(dump, listed);
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-jar");
      command.add(OperatorProcess.JAR.toString());
      command.addAll(
          List.of("diagnose", "-f", dump.toString(), "-o", "json", "--stall-after", "10s"));
      RealCluster.Result r = RealCluster.Result.run(command, Map.of(), Duration.ofMinutes(2));
      String out = r.output();
      JsonNode root = JSON.readTree(out.substring(out.indexOf('{'), out.lastIndexOf('}') + 1));
      for (JsonNode v : root.get("daemonSets")) {
        if (v.get("namespace").asText().equals(s.namespace())) {
          return v;
        }
      }
      throw new AssertionError("no verdict on " + s.namespace() + ":\n" + out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Map<String, String> standings(JsonNode verdict) {
    Map<String, String> out = new LinkedHashMap<>();
    verdict.get("nodes").forEach(n -> out.put(n.get("node").asText(), n.get("standing").asText()));
    return out;
  }

  @Test
  void aPartitionedRolloutOfAnUnpullableImageStallsAmongTheNodesItMayUpdateOnly() {
    Scenario s = Scenario.create(cluster, "kr-partition-stall", 5, 0);
    rollOut(s, advanced(s, V1, r -> r.put("partition", 2)));
    List<String> nodes = s.nodes();

    edit(s, ds -> image(ds, Scenario.UNPULLABLE + "node-agent:v2"));

    RolloutStall stall = s.awaitActiveStall();
    assertThat(stall.getSpec().daemonSetAPIVersion()).isEqualTo(AdvancedDaemonSet.API_VERSION);
    // the partition lets kruise update the three highest-named nodes; which of them it starts
    // with is the order of a Go map, not a rule
    String stuck = stall.getStatus().node();
    assertThat(nodes.subList(2, 5)).contains(stuck);
    assertThat(stall.getStatus().cause()).isEqualTo("ImagePull");
    JsonNode verdict = diagnose(s);
    assertThat(verdict.get("phase").asText()).isEqualTo("Stalled");
    assertThat(standings(verdict))
        .containsEntry(nodes.get(0), "held")
        .containsEntry(nodes.get(1), "held")
        .containsEntry(stuck, "stuck");
    assertThat(imagesByNode(s)).containsEntry(nodes.get(0), V1).containsEntry(nodes.get(1), V1);
  }

  @Test
  void aPartitionedRolloutOfAHealthyImageIsCompleteWithItsHeldNodesCounted() {
    Scenario s = Scenario.create(cluster, "kr-partition-done", 5, 0);
    rollOut(s, advanced(s, V1, r -> r.put("partition", "40%")));

    edit(s, ds -> image(ds, V1 + "-1"));

    await("kruise updates the 3 nodes the partition lets it")
        .atMost(Scenario.WAIT)
        .until(() -> imagesByNode(s).values().stream().filter((V1 + "-1")::equals).count() == 3);
    JsonNode verdict =
        await("diagnose says Complete")
            .atMost(Scenario.WAIT)
            .until(() -> diagnose(s), v -> v.get("phase").asText().equals("Complete"));
    assertThat(verdict.get("message").asText()).endsWith("; 2 nodes held by partition 2");
    assertThat(standings(verdict))
        .containsEntry(s.nodes().get(0), "held")
        .containsEntry(s.nodes().get(1), "held");
    assertThat(s.stalls()).isEmpty();
  }

  @Test
  void aPausedRolloutIsPausedNeverAStallUntilItIsResumed() {
    Scenario s = Scenario.create(cluster, "kr-paused", 3, 0);
    rollOut(s, advanced(s, V1, r -> r.put("paused", true)));

    edit(s, ds -> image(ds, Scenario.UNPULLABLE + "node-agent:v2"));

    await("stallwatch_rollout_paused for " + s.namespace())
        .atMost(Scenario.WAIT)
        .until(
            () ->
                operator
                    .metrics()
                    .contains(
                        "stallwatch_rollout_paused{daemonset=\"agent\",namespace=\""
                            + s.namespace()
                            + "\"} 1"));
    assertThat(diagnose(s).get("phase").asText()).isEqualTo("Paused");
    assertThat(s.stalls()).isEmpty();

    edit(s, ds -> rolling(ds).put("paused", false));

    RolloutStall stall = s.awaitActiveStall();
    assertThat(stall.getStatus().cause()).isEqualTo("ImagePull");
  }

  @Test
  void aSurgeOfAnUnpullableImageStallsWhileTheOldPodsStillRun() {
    Scenario s = Scenario.create(cluster, "kr-surge", 3, 0);
    rollOut(
        s,
        advanced(
            s,
            V1,
            r -> {
              r.put("maxSurge", 1);
              r.put("maxUnavailable", 0);
            }));

    edit(s, ds -> image(ds, Scenario.UNPULLABLE + "node-agent:v2"));

    RolloutStall stall = s.awaitActiveStall();
    assertThat(stall.getStatus().cause()).isEqualTo("ImagePull");
    assertThat(
            s.pods(DS).stream()
                .filter(p -> V1.equals(p.getSpec().getContainers().get(0).getImage()))
                .map(p -> p.getSpec().getNodeName())
                .distinct()
                .count())
        .as("every node still runs its old pod")
        .isEqualTo(3);
  }

  @Test
  void aSelectorWaveOfACrashLoopingImageStallsOnItsNodesOnly() {
    Scenario s = Scenario.create(cluster, "kr-wave", 5, 0);
    rollOut(s, advanced(s, V1, r -> {}));
    List<String> nodes = s.nodes();
    List<String> wave = List.of(nodes.get(1), nodes.get(3));
    wave.forEach(n -> s.label(n, "wave", "one"));

    edit(
        s,
        ds -> {
          rolling(ds).put("selector", Map.of("matchLabels", Map.of("wave", "one")));
          image(ds, V1 + "-" + KwokCues.CRASH_LOOP);
        });

    RolloutStall stall = s.awaitActiveStall();
    assertThat(stall.getStatus().cause()).isEqualTo("CrashLoop");
    assertThat(wave).contains(stall.getStatus().node());
    JsonNode verdict = diagnose(s);
    assertThat(verdict.get("phase").asText()).isEqualTo("Stalled");
    Map<String, String> standings = standings(verdict);
    for (String n : nodes) {
      if (!wave.contains(n)) {
        assertThat(standings).as(n + " is outside the wave").containsEntry(n, "held");
      }
    }
    assertThat(imagesByNode(s))
        .containsEntry(nodes.get(0), V1)
        .containsEntry(nodes.get(2), V1)
        .containsEntry(nodes.get(4), V1);
  }

  /**
   * kwok cannot play an in-place update: kruise patches the pod's image and revision label and
   * waits for its kubelet to restart the container with the new image (a new imageID in the
   * container's status), which kwok never reports. So kruise's {@code InPlaceUpdateReady} stays
   * False and the node is stuck from the update's start — on a real kubelet it would pass.
   */
  @Test
  void anInPlaceUpdateIsJudgedByTheRevisionLabelAndTheReadinessGate() {
    Scenario s = Scenario.create(cluster, "kr-in-place", 3, 0);
    rollOut(s, advanced(s, V1, r -> r.put("rollingUpdateType", "InPlaceIfPossible")));
    Map<String, String> uids = new LinkedHashMap<>();
    Instant lastCreated = Instant.EPOCH;
    for (Pod p : s.pods(DS)) {
      uids.put(p.getSpec().getNodeName(), p.getMetadata().getUid());
      Instant created = Instant.parse(p.getMetadata().getCreationTimestamp());
      lastCreated = created.isAfter(lastCreated) ? created : lastCreated;
    }
    // Object timestamps have whole seconds: the update must start in a later second than the pods'
    // creation, or "stuck from the update's start" and "from the creation" cannot be told apart.
    // The API server runs on this machine, so its clock is this clock.
    Instant nextSecond = lastCreated.plusSeconds(1);
    await("the second after the pods' creation")
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> Instant.now().isAfter(nextSecond));

    edit(s, ds -> image(ds, V1 + "-1"));

    RolloutStall stall = s.awaitActiveStall();
    String node = stall.getStatus().node();
    Pod pod =
        s.pods(DS).stream()
            .filter(p -> node.equals(p.getSpec().getNodeName()))
            .findFirst()
            .orElseThrow();
    assertThat(pod.getMetadata().getUid()).as("updated in place").isEqualTo(uids.get(node));
    PodCondition gate =
        pod.getStatus().getConditions().stream()
            .filter(c -> "InPlaceUpdateReady".equals(c.getType()))
            .findFirst()
            .orElseThrow();
    assertThat(gate.getStatus()).isEqualTo("False");
    Instant since = stall.getStatus().nodes().get(0).sinceTime().orElseThrow();
    // The gate's transition has whole seconds; an operator that saw the pod still available
    // later in that second dates the hold from its own look, which is as late as it can know.
    assertThat(since)
        .as("stuck from the in-place update's start")
        .isAfterOrEqualTo(Instant.parse(gate.getLastTransitionTime()));
    assertThat(since)
        .as("not from the pod's creation")
        .isAfter(Instant.parse(pod.getMetadata().getCreationTimestamp()));
  }

  @Test
  void undoRestoresThePreviousRevisionAndKruiseRollsItBack() {
    Scenario s = Scenario.create(cluster, "kr-undo", 3, 0);
    rollOut(s, advanced(s, V1, r -> {}));
    edit(s, ds -> image(ds, Scenario.UNPULLABLE + "node-agent:v2"));
    RolloutStall stall = s.awaitActiveStall();

    RealCluster.Result undo =
        CliRealClusterIT.stallwatch(
            cluster,
            Duration.ofMinutes(2),
            "undo",
            "daemonset.apps.kruise.io/" + DS,
            "-n",
            s.namespace());

    assertThat(undo.code()).as(undo.output()).isZero();
    assertThat(image(read(s))).isEqualTo(V1);
    await("kruise rolls every node back to " + V1)
        .atMost(Scenario.WAIT)
        .until(
            () ->
                imagesByNode(s).size() == 3
                    && imagesByNode(s).values().stream().allMatch(V1::equals));
    List<RolloutStall> resolved = s.awaitResolved();
    assertThat(resolved)
        .anySatisfy(
            r -> {
              assertThat(r.getMetadata().getName()).isEqualTo(stall.getMetadata().getName());
              assertThat(r.getStatus().conditions().get(0).getReason()).isEqualTo("RolledBack");
              assertThat(r.getStatus().rollback()).isNotNull();
            });
  }

  private static String image(AdvancedDaemonSet ds) {
    return ds.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
  }
}
