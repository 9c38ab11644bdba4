package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.testcluster.TestApiServer;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategyBuilder;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Kubelet admission, scheduling, node loss and strategies, end to end on the mock API server. */
class ControlPlaneBehaviourIT {

  final TestApiServer api = new TestApiServer();
  final SimClock clock = SimClock.virtual(Instant.now().truncatedTo(ChronoUnit.SECONDS));

  @AfterEach
  void close() {
    api.close();
  }

  SimulatedCluster install(Scenario s) {
    return SimulatedCluster.install(api.client(), s, clock);
  }

  List<Pod> pods(String ns) {
    return api.client().pods().inNamespace(ns).list().getItems();
  }

  DaemonSet ds(String ns, String name) {
    return api.client().apps().daemonSets().inNamespace(ns).withName(name).get();
  }

  @Test
  void aKubeletThatLacksCpuRejectsThePodAndTheControllerRecreatesItWithBackoff() {
    Scenario s =
        Scenario.builder(
                "outofcpu", "node-1's kubelet counts 7950m cpu in use that the scheduler does not")
            .node(ScenarioObjects.node("node-1", 0))
            .daemonSet(ScenarioObjects.daemonSet("ops", "agent", "agent:1").build())
            .kubelet(k -> k.hiddenUsage("node-1", "cpu", "7950m"))
            .build();
    SimulatedCluster c = install(s);
    c.tick();
    Pod rejected = pods("ops").get(0);
    assertThat(rejected.getStatus().getPhase()).isEqualTo("Failed");
    assertThat(rejected.getStatus().getReason()).isEqualTo("OutOfcpu");
    assertThat(rejected.getStatus().getMessage())
        .isEqualTo(
            "Pod was rejected: Node didn't have enough resource: cpu, requested: 100, used: 7950,"
                + " capacity: 8000");
    String first = rejected.getMetadata().getName();
    c.runFor(Duration.ofSeconds(10), Duration.ofSeconds(1));
    assertThat(pods("ops")).hasSize(1);
    assertThat(pods("ops").get(0).getMetadata().getName()).isNotEqualTo(first);
    assertThat(pods("ops").get(0).getStatus().getReason()).isEqualTo("OutOfcpu");
    assertThat(ds("ops", "agent").getStatus().getNumberAvailable()).isZero();
  }

  @Test
  void aPodThatDoesNotFitIsUnschedulableWithTheSchedulersMessage() {
    SimulatedCluster c = install(Scenarios.named("insufficient-gpu"));
    c.runFor(Scenarios.CHANGE_AT.plusSeconds(30), Duration.ofSeconds(15));
    Pod pending =
        pods(Scenarios.NAMESPACE).stream()
            .filter(p -> p.getSpec().getNodeName() == null)
            .findFirst()
            .orElseThrow();
    var scheduled = PodConditions.condition(pending.getStatus(), "PodScheduled");
    assertThat(scheduled.getStatus()).isEqualTo("False");
    assertThat(scheduled.getReason()).isEqualTo("Unschedulable");
    // Verbatim what kube-scheduler v1.36.3 wrote in SimulatorVsRealClusterIT (there: 0/5 nodes).
    assertThat(scheduled.getMessage())
        .isEqualTo(
            "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't satisfy"
                + " plugin(s) [NodeAffinity]. no new claims to deallocate, preemption: 0/3 nodes"
                + " are available: 1 No preemption victims found for incoming pod, 2 Preemption is"
                + " not helpful for scheduling.");
  }

  @Test
  void aHostPortHeldOnTheNodeKeepsThePodUnscheduledUntilItIsFreed() {
    SimulatedCluster c = install(Scenarios.named("host-port-conflict"));
    c.runFor(Scenarios.CHANGE_AT.plusSeconds(30), Duration.ofSeconds(15));
    Pod pending =
        pods(Scenarios.NAMESPACE).stream()
            .filter(p -> p.getSpec().getNodeName() == null)
            .findFirst()
            .orElseThrow();
    var scheduled = PodConditions.condition(pending.getStatus(), "PodScheduled");
    assertThat(scheduled.getStatus()).isEqualTo("False");
    assertThat(scheduled.getReason()).isEqualTo("Unschedulable");
    assertThat(scheduled.getMessage())
        .startsWith(
            "0/3 nodes are available: 1 node(s) didn't have free ports for the requested pod"
                + " ports, 2 node(s) didn't satisfy plugin(s) [NodeAffinity].");
    api.client().pods().inNamespace("monitoring").withName("dcgm-exporter-debug").delete();
    c.runFor(Duration.ofMinutes(2), Duration.ofSeconds(15));
    assertThat(
            ds(Scenarios.NAMESPACE, Scenarios.DAEMON_SET).getStatus().getUpdatedNumberScheduled())
        .isEqualTo(3);
  }

  @Test
  void aPodWhoseConfigMapIsMissingWaitsInContainerCreatingUntilItIsCreated() {
    SimulatedCluster c = install(Scenarios.named("container-creating-forever"));
    c.runFor(Scenarios.CHANGE_AT.plusMinutes(5), Duration.ofSeconds(15));
    Pod creating =
        pods(Scenarios.NAMESPACE).stream()
            .filter(p -> p.getSpec().getVolumes() != null && !p.getSpec().getVolumes().isEmpty())
            .findFirst()
            .orElseThrow();
    assertThat(creating.getSpec().getNodeName()).isEqualTo("gpu-node-1");
    assertThat(creating.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(creating.getStatus().getStartTime()).isNotNull();
    assertThat(PodConditions.condition(creating.getStatus(), "PodScheduled").getStatus())
        .isEqualTo("True");
    var waiting = creating.getStatus().getContainerStatuses().get(0).getState().getWaiting();
    assertThat(waiting.getReason()).isEqualTo("ContainerCreating");
    assertThat(ds(Scenarios.NAMESPACE, Scenarios.DAEMON_SET).getStatus().getNumberReady())
        .isEqualTo(2);

    Instant created = clock.instant();
    api.client()
        .configMaps()
        .inNamespace(Scenarios.NAMESPACE)
        .resource(
            new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                .withNewMetadata()
                .withName(Scenarios.MISSING_CONFIG_MAP)
                .endMetadata()
                .addToData("config.toml", "")
                .build())
        .create();
    c.runFor(Duration.ofSeconds(15), Duration.ofSeconds(15));
    Pod started =
        api.client()
            .pods()
            .inNamespace(Scenarios.NAMESPACE)
            .withName(creating.getMetadata().getName())
            .get();
    // the containers start from the mount, not from admission: pulled 2 s after it
    assertThat(
            Instant.parse(
                started
                    .getStatus()
                    .getContainerStatuses()
                    .get(0)
                    .getState()
                    .getRunning()
                    .getStartedAt()))
        .isAfter(created);
    c.runFor(Duration.ofMinutes(2), Duration.ofSeconds(15));
    assertThat(
            ds(Scenarios.NAMESPACE, Scenarios.DAEMON_SET).getStatus().getUpdatedNumberScheduled())
        .isEqualTo(3);
  }

  @Test
  void aPodOnAnUnreachableNodeStaysTerminatingAndHoldsTheUnavailableBudget() {
    SimulatedCluster c = install(Scenarios.named("node-unreachable"));
    c.runFor(Duration.ofMinutes(6), Duration.ofSeconds(15));
    var node3 = api.client().nodes().withName("gpu-node-3").get();
    assertThat(node3.getSpec().getTaints())
        .extracting(t -> t.getKey() + ":" + t.getEffect())
        .containsExactlyInAnyOrder(
            "node.kubernetes.io/unreachable:NoSchedule",
            "node.kubernetes.io/unreachable:NoExecute");
    Pod stuck =
        pods(Scenarios.NAMESPACE).stream()
            .filter(p -> "gpu-node-3".equals(p.getSpec().getNodeName()))
            .findFirst()
            .orElseThrow();
    assertThat(stuck.getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(stuck.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(30L);
    var status = ds(Scenarios.NAMESPACE, Scenarios.DAEMON_SET).getStatus();
    assertThat(status.getDesiredNumberScheduled()).isEqualTo(2);
    // the terminating pod counts as unavailable: with maxUnavailable 1 no other node moves
    assertThat(status.getUpdatedNumberScheduled()).isZero();
    assertThat(status.getNumberAvailable()).isEqualTo(2);
    assertThat(status.getNumberMisscheduled()).isEqualTo(1);
  }

  @Test
  void onDeleteReplacesAPodOnlyWhenSomeoneDeletesIt() {
    DaemonSet ds = ScenarioObjects.daemonSet("ops", "agent", "agent:1").build();
    ds.getSpec()
        .setUpdateStrategy(new DaemonSetUpdateStrategyBuilder().withType("OnDelete").build());
    SimulatedCluster c =
        install(
            Scenario.builder("on-delete", "OnDelete")
                .node(ScenarioObjects.node("node-1", 0))
                .node(ScenarioObjects.node("node-2", 0))
                .daemonSet(ds)
                .build());
    c.runFor(Duration.ofSeconds(20), Duration.ofSeconds(5));
    c.setImage("ops", "agent", "agent", "agent:2");
    c.runFor(Duration.ofMinutes(2), Duration.ofSeconds(10));
    assertThat(pods("ops"))
        .extracting(p -> p.getSpec().getContainers().get(0).getImage())
        .containsOnly("agent:1");
    Pod one = pods("ops").get(0);
    api.client().resource(one).delete();
    c.runFor(Duration.ofSeconds(30), Duration.ofSeconds(10));
    assertThat(pods("ops"))
        .extracting(p -> p.getSpec().getContainers().get(0).getImage())
        .containsExactlyInAnyOrder("agent:1", "agent:2");
    assertThat(ds("ops", "agent").getStatus().getUpdatedNumberScheduled()).isEqualTo(1);
  }

  @Test
  void aPercentMaxUnavailableIsRoundedUp() {
    DaemonSet ds = ScenarioObjects.daemonSet("ops", "agent", "agent:1").build();
    ds.getSpec().getUpdateStrategy().getRollingUpdate().setMaxUnavailable(new IntOrString("30%"));
    Scenario.Builder b = Scenario.builder("percent", "30% of 5 nodes is 2").daemonSet(ds);
    for (int i = 1; i <= 5; i++) {
      b.node(ScenarioObjects.node("node-" + i, 0));
    }
    SimulatedCluster c = install(b.build());
    c.runFor(Duration.ofSeconds(20), Duration.ofSeconds(5));
    c.setImage("ops", "agent", "agent", "agent:2");
    SyncResult first = c.tick();
    assertThat(first).isEqualTo(new SyncResult(0, 2));
  }
}
