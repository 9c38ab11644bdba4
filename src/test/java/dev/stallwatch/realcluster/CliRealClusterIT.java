package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The CLI as a CI job runs it — {@code java -jar target/stallwatch.jar} with the cluster's
 * kubeconfig — against the real DaemonSet controller, scheduler and kwok kubelets. Every verdict is
 * checked against the cluster's own objects: which pod runs where, with which image, in which
 * state.
 */
@ExtendWith(RealClusterExtension.class)
class CliRealClusterIT {
  static final String DS = "node-agent";
  static final String V1 = "example.com/node-agent:v1";
  static final String V2 = "example.com/node-agent:v2";
  static final String UNPULLABLE = Scenario.UNPULLABLE + "node-agent:v2";

  /** wait's own deadline; the process gets a minute more, so wait always speaks first. */
  static final String WAIT_TIMEOUT = "3m";

  static final String STALL_AFTER = "10s";

  static final String REVISION_HASH = MetadataKeys.REVISION_HASH_LABEL;

  static RealCluster cluster;

  @BeforeAll
  static void start(RealCluster c) {
    cluster = c;
  }

  @Test
  void waitExitsZeroOnceAPullableNewTagRunsOnEveryNode() {
    Scenario s = Scenario.create(cluster, "cli-healthy", 3, 0);
    s.rollOut(DS, V1, b -> b);

    setImage(s, V2);
    RealCluster.Result wait = stallwatchWait(s);

    assertThat(wait.code()).as(wait.output()).isZero();
    assertThat(wait.output()).contains("rollout Complete: 3 nodes run revision 2");
    DaemonSet real = s.daemonSet(DS);
    assertThat(real.getStatus().getObservedGeneration())
        .isGreaterThanOrEqualTo(real.getMetadata().getGeneration());
    assertThat(real.getStatus().getUpdatedNumberScheduled()).isEqualTo(3);
    assertThat(real.getStatus().getNumberAvailable()).isEqualTo(3);
    assertThat(livePods(s))
        .hasSize(3)
        .allSatisfy(
            p -> {
              assertThat(image(p)).isEqualTo(V2);
              assertThat(ready(p)).as(p.getMetadata().getName() + " Ready").isTrue();
            });
    assertThat(livePods(s).stream().map(p -> p.getSpec().getNodeName()))
        .containsExactlyInAnyOrderElementsOf(s.nodes());
  }

  @Test
  void waitExitsOneNamingTheStuckNodeWhenTheNewImageCannotBePulled() {
    Scenario s = Scenario.create(cluster, "cli-stall", 3, 0);
    s.rollOut(DS, V1, b -> b);

    setImage(s, UNPULLABLE);
    RealCluster.Result wait = stallwatchWait(s);

    assertThat(wait.code()).as(wait.output()).isEqualTo(1);
    String stuck = unpullableNode(s);
    assertThat(wait.output())
        .contains("rollout Stalled")
        .containsPattern("(?m)^  node: +" + stuck + "$")
        .containsPattern("(?m)^  cause: +ImagePull$")
        .containsPattern("(?m)^  reason: +(ErrImagePull|ImagePullBackOff)$")
        .containsPattern("(?m)^  old: +1 \\(\\w+\\) " + V1 + "$")
        .containsPattern("(?m)^  new: +2 \\(\\w+\\) " + UNPULLABLE + "$")
        .contains("stallwatch undo ds/" + DS + " -n " + s.namespace());
    DaemonSet real = s.daemonSet(DS);
    assertThat(real.getStatus().getDesiredNumberScheduled()).isEqualTo(3);
    assertThat(real.getStatus().getUpdatedNumberScheduled()).isEqualTo(1);
    assertThat(real.getStatus().getNumberAvailable()).isEqualTo(2);
  }

  @Test
  void statusShowsWhichNodeRunsWhichRevisionAsTheRealPodsDo() {
    Scenario s = stalledScenario("cli-status");
    String stuck = unpullableNode(s);

    // The node holds the rollout back from the new pod's creation; Stalled after --stall-after.
    RealCluster.Result status =
        await("status reports the rollout Stalled")
            .atMost(Scenario.WAIT)
            .pollInterval(Duration.ofSeconds(2))
            .until(
                () ->
                    stallwatch(
                        "status",
                        "ds/" + DS,
                        "-n",
                        s.namespace(),
                        "-o",
                        "json",
                        "--stall-after",
                        STALL_AFTER),
                r -> r.code() != 0);

    assertThat(status.code()).as(status.output()).isEqualTo(1);
    JsonNode rollout = json(status.output()).path("daemonSets").path(0);
    assertThat(rollout.path("phase").asText()).isEqualTo("Stalled");
    assertThat(rollout.path("cause").asText()).isEqualTo("ImagePull");
    assertThat(rollout.path("stalledNodes").toString()).isEqualTo("[\"" + stuck + "\"]");
    Map<String, String> shown = new TreeMap<>();
    rollout
        .path("nodes")
        .forEach(n -> shown.put(n.path("node").asText(), n.path("revision").asText()));
    Map<String, String> real = revisionsRun(s);
    assertThat(real)
        .as("what the real pods run")
        .containsEntry(stuck, "none")
        .containsValues("old")
        .doesNotContainValue("new");
    assertThat(shown).isEqualTo(real);
    assertThat(rollout.path("split").path("old").asInt()).isEqualTo(2);
    assertThat(rollout.path("split").path("none").asInt()).isEqualTo(1);
    DaemonSet ds = s.daemonSet(DS);
    JsonNode counts = rollout.path("counts");
    assertThat(counts.path("desired").asInt())
        .isEqualTo(ds.getStatus().getDesiredNumberScheduled());
    assertThat(counts.path("upToDate").asInt())
        .isEqualTo(ds.getStatus().getUpdatedNumberScheduled());
    assertThat(counts.path("available").asInt()).isEqualTo(ds.getStatus().getNumberAvailable());

    RealCluster.Result table =
        stallwatch("status", "ds/" + DS, "-n", s.namespace(), "--stall-after", STALL_AFTER);
    assertThat(table.code()).as(table.output()).isEqualTo(1);
    assertThat(table.output())
        .containsPattern("(?m)^\\s+" + stuck + "\\s+none\\s+" + UNPULLABLE.replace(".", "\\."));
  }

  @Test
  void undoRestoresThePreviousRevisionAndTheRealControllerRollsEveryNodeBackToIt() {
    Scenario s = stalledScenario("cli-undo");
    String stuck = unpullableNode(s);
    String v1Hash =
        livePods(s).stream()
            .filter(p -> V1.equals(image(p)))
            .map(p -> p.getMetadata().getLabels().get(REVISION_HASH))
            .findFirst()
            .orElseThrow();

    RealCluster.Result undo = stallwatch("undo", "ds/" + DS, "-n", s.namespace());

    assertThat(undo.code()).as(undo.output()).isZero();
    assertThat(undo.output()).contains("daemonset.apps/" + DS + " rolled back");
    DaemonSet restored = s.daemonSet(DS);
    assertThat(image(restored)).isEqualTo(V1);
    assertThat(restored.getMetadata().getAnnotations()).containsKey(MetadataKeys.ROLLED_BACK_TO);

    RealCluster.Result wait = stallwatchWait(s);
    assertThat(wait.code()).as(wait.output()).isZero();
    // The controller takes the restored template back under its old ControllerRevision, renumbered
    // 3 (as after kubectl rollout undo): every node runs revision 1's hash again.
    assertThat(wait.output()).contains("rollout Complete: 3 nodes run revision 3 (" + v1Hash + ")");
    assertThat(
            cluster
                .admin()
                .apps()
                .controllerRevisions()
                .inNamespace(s.namespace())
                .withLabel(REVISION_HASH, v1Hash)
                .list()
                .getItems())
        .singleElement()
        .satisfies(r -> assertThat(r.getRevision()).isEqualTo(3L));
    assertThat(livePods(s))
        .hasSize(3)
        .allSatisfy(
            p -> {
              assertThat(image(p)).isEqualTo(V1);
              assertThat(p.getMetadata().getLabels()).containsEntry(REVISION_HASH, v1Hash);
              assertThat(ready(p)).as(p.getMetadata().getName() + " Ready").isTrue();
            });
    assertThat(livePods(s).stream().map(p -> p.getSpec().getNodeName())).contains(stuck);
    DaemonSet real = s.daemonSet(DS);
    assertThat(real.getStatus().getUpdatedNumberScheduled()).isEqualTo(3);
    assertThat(real.getStatus().getNumberAvailable()).isEqualTo(3);
  }

  /** Three nodes on V1, then an update to an unpullable tag: one node empty, two on V1. */
  private static Scenario stalledScenario(String name) {
    Scenario s = Scenario.create(cluster, name, 3, 0);
    s.rollOut(DS, V1, b -> b);
    setImage(s, UNPULLABLE);
    await("the new pod of " + name + " cannot pull its image")
        .atMost(Scenario.WAIT)
        .until(
            () ->
                livePods(s).stream()
                    .anyMatch(p -> UNPULLABLE.equals(image(p)) && waitingToPull(p)));
    return s;
  }

  private static void setImage(Scenario s, String image) {
    cluster.kubectl("set", "image", "-n", s.namespace(), "daemonset/" + DS, DS + "=" + image).ok();
  }

  /** The node of the one new pod, as the real controller placed it; asserts it cannot pull. */
  private static String unpullableNode(Scenario s) {
    List<Pod> pods = livePods(s).stream().filter(p -> UNPULLABLE.equals(image(p))).toList();
    assertThat(pods).as("pods with the unpullable image").hasSize(1);
    assertThat(waitingToPull(pods.get(0))).as(pods.get(0).getStatus().toString()).isTrue();
    return pods.get(0).getSpec().getNodeName();
  }

  /**
   * Per node, the revision it effectively runs by the real pods: {@code new} with a Ready pod of
   * the new image, {@code old} with a running pod of the old image, else {@code none}.
   */
  private static Map<String, String> revisionsRun(Scenario s) {
    String newImage = image(s.daemonSet(DS));
    Map<String, String> run = new TreeMap<>();
    for (String node : s.nodes()) {
      List<Pod> here =
          livePods(s).stream().filter(p -> node.equals(p.getSpec().getNodeName())).toList();
      String revision = "none";
      if (here.stream().anyMatch(p -> newImage.equals(image(p)) && ready(p))) {
        revision = "new";
      } else if (here.stream()
          .anyMatch(
              p -> !newImage.equals(image(p)) && "Running".equals(p.getStatus().getPhase()))) {
        revision = "old";
      }
      run.put(node, revision);
    }
    return run;
  }

  private static List<Pod> livePods(Scenario s) {
    return s.pods(DS).stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
  }

  private static String image(Pod p) {
    return p.getSpec().getContainers().get(0).getImage();
  }

  private static String image(DaemonSet ds) {
    return ds.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
  }

  private static boolean ready(Pod p) {
    return p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static boolean waitingToPull(Pod p) {
    List<ContainerStatus> statuses = p.getStatus().getContainerStatuses();
    return statuses != null
        && statuses.stream()
            .anyMatch(
                c ->
                    c.getState() != null
                        && c.getState().getWaiting() != null
                        && List.of("ErrImagePull", "ImagePullBackOff")
                            .contains(c.getState().getWaiting().getReason()));
  }

  private static RealCluster.Result stallwatchWait(Scenario s) {
    return stallwatch(
        "wait",
        "ds/" + DS,
        "-n",
        s.namespace(),
        "--timeout",
        WAIT_TIMEOUT,
        "--stall-after",
        STALL_AFTER);
  }

  /** {@code java -jar target/stallwatch.jar ARGS --kubeconfig <admin>}: exit code and output. */
  private static RealCluster.Result stallwatch(String... args) {
    return stallwatch(cluster, Duration.ofMinutes(4), args);
  }

  /** The CLI as a CI job runs it against {@code on}, given {@code timeout} to exit. */
  static RealCluster.Result stallwatch(RealCluster on, Duration timeout, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-jar");
    command.add(OperatorProcess.JAR.toString());
    command.addAll(List.of(args));
    command.add("--kubeconfig=" + on.kubeconfig());
    return RealCluster.Result.run(command, Map.of(), timeout);
  }

  /** The JSON document of {@code status -o json} (stderr is merged in: skip anything around it). */
  private static JsonNode json(String output) {
    int start = output.indexOf("{\n");
    int end = output.lastIndexOf("}");
    if (start < 0 || end < start) {
      throw new AssertionError("status -o json printed no JSON:\n" + output);
    }
    try {
      return new ObjectMapper().readTree(output.substring(start, end + 1));
    } catch (IOException e) {
      throw new UncheckedIOException("status -o json printed no JSON:\n" + output, e);
    }
  }
}
