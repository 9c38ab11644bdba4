package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.deploy.NativeHelm;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Each stall cause the real stack can produce, produced by it: the real scheduler's verdicts, the
 * real DaemonSet controller's DESIRED, kwok's kubelet states. Each test checks the RolloutStall
 * against what the cluster itself shows (which node, which pod).
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class CausesRealClusterIT {
  static final String DS = "agent";
  static final String V1 = "example.com/node-agent:v1";

  static RealCluster cluster;
  static OperatorProcess operator;

  @BeforeAll
  static void start(RealCluster c) {
    cluster = c;
    operator = OperatorProcess.asChartServiceAccount(c, "causes-operator");
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
  }

  @Test
  void moreGpusThanTheNodeHasIsInsufficientResources() {
    Scenario s = Scenario.create(cluster, "insufficient-gpu", 2, 4);
    s.rollOut(
        DS,
        V1,
        b ->
            b.editSpec()
                .editTemplate()
                .editSpec()
                .editFirstContainer()
                .withNewResources()
                .addToLimits("nvidia.com/gpu", new Quantity("1"))
                .endResources()
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec());

    edit(
        s,
        ds -> container(ds).getResources().setLimits(Map.of("nvidia.com/gpu", new Quantity("8"))));

    RolloutStall stall = s.awaitActiveStall();
    assertThat(stall.getStatus().cause()).isEqualTo("InsufficientResources");
    assertThat(stall.getStatus().node()).isEqualTo(pendingNewPodNode(s));
    assertThat(stall.getStatus().message()).contains("Insufficient nvidia.com/gpu");
    // the new template asks for more GPUs than the old one: rolling back helps
    assertThat(stall.getStatus().suspect()).isEqualTo("NewRevision");
  }

  @Test
  void aTolerationRemovedWhileTheNodeIsTaintedIsNodeExcluded() {
    Scenario s = Scenario.create(cluster, "excluded", 3, 0);
    Toleration dedicated = new Toleration("NoSchedule", "dedicated", "Equal", null, "gpu");
    s.rollOut(
        DS,
        V1,
        b ->
            b.editSpec()
                .editTemplate()
                .editSpec()
                .addToTolerations(dedicated)
                .endSpec()
                .endTemplate()
                .endSpec());
    String tainted = s.nodes().get(0);
    s.taint(tainted, "dedicated", "gpu", "NoSchedule");

    edit(
        s,
        ds -> {
          ds.getSpec().getTemplate().getSpec().setTolerations(List.of());
          container(ds).setImage(V1 + "-1");
        });

    RolloutStall stall = s.awaitActiveStall();
    assertThat(stall.getStatus().cause()).isEqualTo("NodeExcluded");
    assertThat(stall.getStatus().node()).isEqualTo(tainted);
    assertThat(stall.getStatus().suspect()).isEqualTo("NewRevision");
    await("the real controller shrinks DESIRED to 2")
        .atMost(Scenario.WAIT)
        .until(() -> s.daemonSet(DS).getStatus().getDesiredNumberScheduled() == 2);
  }

  @Test
  void anUnreachableNodeIsNodeUnavailable() {
    Scenario s = Scenario.create(cluster, "node-down", 3, 0);
    s.rollOut(DS, V1, b -> b);
    String down = s.nodes().get(1);
    // A dead kubelet: kwok stops renewing the node's Lease; after the grace period the node
    // lifecycle controller turns it Unknown, taints it unreachable and marks its pod not Ready.
    s.label(down, "stallwatch.dev/kwok-node-state", "Unreachable");
    await(down + " Unknown").atMost(Scenario.WAIT).until(() -> !s.nodeReady(down));

    edit(s, ds -> container(ds).setImage(V1 + "-1"));

    RolloutStall stall = s.awaitActiveStall();
    assertThat(stall.getStatus().cause()).isEqualTo("NodeUnavailable");
    assertThat(stall.getStatus().node()).isEqualTo(down);
    // the node was down before the rollout reached it: rolling back would not help
    assertThat(stall.getStatus().suspect()).isEqualTo("Node");
  }

  @Test
  void aNodeInMaintenanceHoldingTheRolloutIsTheNodesDoingAndSaysSo() {
    Scenario s = Scenario.create(cluster, "maintenance", 3, 0);
    s.rollOut(DS, V1, b -> b);
    String node = s.nodes().get(1);
    // Maintenance announced (a KEP-5683 node lifecycle condition, as a drain tool sets it), then
    // the node's kubelet dies. The real controller no longer counts an unreachable node as desired
    // (its NoSchedule taint is not tolerated), so a pod there stops mattering at once; what holds
    // the rollout is the old pod it deletes there, Terminating for good.
    await("MaintenanceInProgress on " + node)
        .atMost(Scenario.WAIT)
        .ignoreException(io.fabric8.kubernetes.client.KubernetesClientException.class)
        .until(
            () -> {
              var n = cluster.admin().nodes().withName(node).get();
              n.getStatus()
                  .getConditions()
                  .add(
                      new io.fabric8.kubernetes.api.model.NodeConditionBuilder()
                          .withType("MaintenanceInProgress")
                          .withStatus("True")
                          .withReason("Drain")
                          .withLastTransitionTime(java.time.Instant.now().toString())
                          .build());
              cluster.admin().nodes().resource(n).updateStatus();
              return true;
            });
    s.label(node, "stallwatch.dev/kwok-node-state", "Unreachable");
    await(node + " Unknown").atMost(Scenario.WAIT).until(() -> !s.nodeReady(node));

    edit(s, ds -> container(ds).setImage(V1 + "-2"));

    RolloutStall stall = s.awaitActiveStall();
    assertThat(stall.getStatus().cause()).isEqualTo("NodeUnavailable");
    assertThat(stall.getStatus().node()).isEqualTo(node);
    assertThat(s.conditionStatus(node, "MaintenanceInProgress"))
        .as("the signal, still on the node after the node controller's updates")
        .isEqualTo("True");
    assertThat(stall.getStatus().suspect()).isEqualTo("Node");
    assertThat(stall.getStatus().suspectReason())
        .startsWith("node " + node + " is in maintenance (MaintenanceInProgress) since before");
  }

  @Test
  void aCrashingNewImageIsCrashLoop() {
    Scenario s = Scenario.create(cluster, "crashloop", 3, 0);
    s.rollOut(DS, V1, b -> b);

    edit(s, ds -> container(ds).setImage("example.com/node-agent:v2-crashloop"));

    RolloutStall stall = s.awaitActiveStall();
    assertThat(stall.getStatus().cause()).isEqualTo("CrashLoop");
    assertThat(stall.getStatus().reason()).isEqualTo("CrashLoopBackOff");
    assertThat(stall.getStatus().suspect()).isEqualTo("NewRevision");
    assertThat(stall.getStatus().node()).isEqualTo(notReadyNewPodNode(s, "v2-crashloop"));
  }

  @Test
  void aNewImageThatNeverTurnsReadyIsNotReady() {
    Scenario s = Scenario.create(cluster, "never-ready", 3, 0);
    s.rollOut(DS, V1, b -> b);

    edit(s, ds -> container(ds).setImage("example.com/node-agent:v2-neverready"));

    RolloutStall stall = s.awaitActiveStall();
    assertThat(stall.getStatus().cause()).isEqualTo("NotReady");
    assertThat(stall.getStatus().node()).isEqualTo(notReadyNewPodNode(s, "v2-neverready"));
  }

  @Test
  void aHostPortTakenOnOneNodeIsUnschedulable() {
    Scenario s = Scenario.create(cluster, "host-port", 3, 0);
    s.rollOut(DS, V1, b -> b);
    String busy = s.nodes().get(2);
    cluster
        .admin()
        .pods()
        .inNamespace(s.namespace())
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("port-holder")
                .endMetadata()
                .withNewSpec()
                .withNodeName(busy)
                .addNewContainer()
                .withName("holder")
                .withImage("example.com/exporter:v1")
                .withPorts(
                    new ContainerPortBuilder().withContainerPort(9100).withHostPort(9100).build())
                .endContainer()
                .endSpec()
                .build())
        .create();

    edit(
        s,
        ds -> {
          var c = container(ds);
          c.setImage(V1 + "-1");
          c.setPorts(
              List.of(
                  new ContainerPortBuilder().withContainerPort(9100).withHostPort(9100).build()));
        });

    RolloutStall stall = s.awaitActiveStall();
    assertThat(stall.getStatus().cause()).isEqualTo("Unschedulable");
    assertThat(stall.getStatus().node()).isEqualTo(busy);
    // the new template adds a host port the old one lacked
    assertThat(stall.getStatus().suspect()).isEqualTo("NewRevision");
  }

  /** The DaemonSet template's one container. */
  private static Container container(DaemonSet ds) {
    return ds.getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  private static void edit(Scenario s, Consumer<DaemonSet> change) {
    Conflicts.retry(
        () ->
            cluster
                .admin()
                .apps()
                .daemonSets()
                .inNamespace(s.namespace())
                .withName(DS)
                .edit(
                    ds -> {
                      change.accept(ds);
                      return ds;
                    }));
  }

  /** The node of the one new-revision pod the real scheduler could not place. */
  private static String pendingNewPodNode(Scenario s) {
    var pending =
        s.pods(DS).stream().filter(p -> "Pending".equals(p.getStatus().getPhase())).toList();
    assertThat(pending).as("pending pods of " + s.namespace()).hasSize(1);
    // An unscheduled DaemonSet pod names its node only in its node affinity.
    return pending
        .get(0)
        .getSpec()
        .getAffinity()
        .getNodeAffinity()
        .getRequiredDuringSchedulingIgnoredDuringExecution()
        .getNodeSelectorTerms()
        .get(0)
        .getMatchFields()
        .get(0)
        .getValues()
        .get(0);
  }

  /** The node of the one pod with {@code image} (the new revision, not Ready). */
  private static String notReadyNewPodNode(Scenario s, String imageMarker) {
    var pods =
        s.pods(DS).stream()
            .filter(p -> p.getSpec().getContainers().get(0).getImage().contains(imageMarker))
            .toList();
    assertThat(pods).as("new-revision pods of " + s.namespace()).hasSize(1);
    return pods.get(0).getSpec().getNodeName();
  }
}
