package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SchedulerMessageTest {

  @Test
  void reasonsAreCountedOverNodesSortedAndFollowedByThePostFilterReasons() {
    Map<String, List<String>> failures = new TreeMap<>();
    failures.put("gpu-node-1", List.of("Insufficient nvidia.com/gpu"));
    failures.put("gpu-node-2", List.of(Scheduler.PREFILTERED_OUT));
    failures.put("gpu-node-3", List.of(Scheduler.PREFILTERED_OUT));
    // Verbatim kube-scheduler v1.36.3 (SimulatorVsRealClusterIT), but for the number of nodes.
    assertThat(Scheduler.message(3, failures))
        .isEqualTo(
            "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't satisfy"
                + " plugin(s) [NodeAffinity]. no new claims to deallocate, preemption: 0/3 nodes"
                + " are available: 1 No preemption victims found for incoming pod, 2 Preemption is"
                + " not helpful for scheduling.");
  }

  @Test
  void aHostPortConflictIsANodeWherePreemptionIsTriedAndFindsNoVictim() {
    Map<String, List<String>> failures = new TreeMap<>();
    failures.put("gpu-node-1", List.of(Scheduler.PORTS_IN_USE));
    failures.put("gpu-node-2", List.of(Scheduler.PREFILTERED_OUT));
    failures.put("gpu-node-3", List.of(Scheduler.PREFILTERED_OUT));
    assertThat(Scheduler.message(3, failures))
        .isEqualTo(
            "0/3 nodes are available: 1 node(s) didn't have free ports for the requested pod"
                + " ports, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. no new claims to"
                + " deallocate, preemption: 0/3 nodes are available: 1 No preemption victims"
                + " found for incoming pod, 2 Preemption is not helpful for scheduling.");
  }

  @Test
  void aDaemonPodIsRestrictedToTheNodeItsAffinityNamesOtherPodsAreNot() {
    Pod daemon =
        new PodBuilder()
            .withNewSpec()
            .withNewAffinity()
            .withNewNodeAffinity()
            .withNewRequiredDuringSchedulingIgnoredDuringExecution()
            .addNewNodeSelectorTerm()
            .addToMatchFields(
                new NodeSelectorRequirement("metadata.name", "In", List.of("gpu-node-2")))
            .endNodeSelectorTerm()
            .endRequiredDuringSchedulingIgnoredDuringExecution()
            .endNodeAffinity()
            .endAffinity()
            .endSpec()
            .build();
    assertThat(Scheduler.namedByAffinity(daemon)).containsExactly("gpu-node-2");

    Pod byLabel =
        new PodBuilder()
            .withNewSpec()
            .withNewAffinity()
            .withNewNodeAffinity()
            .withNewRequiredDuringSchedulingIgnoredDuringExecution()
            .addNewNodeSelectorTerm()
            .addToMatchFields(
                new NodeSelectorRequirement("metadata.name", "In", List.of("gpu-node-2")))
            .endNodeSelectorTerm()
            .addNewNodeSelectorTerm()
            .addToMatchExpressions(new NodeSelectorRequirement("zone", "In", List.of("a")))
            .endNodeSelectorTerm()
            .endRequiredDuringSchedulingIgnoredDuringExecution()
            .endNodeAffinity()
            .endAffinity()
            .endSpec()
            .build();
    assertThat(Scheduler.namedByAffinity(byLabel)).as("terms are ORed").isNull();
    assertThat(Scheduler.namedByAffinity(new PodBuilder().withNewSpec().endSpec().build()))
        .isNull();
  }

  @Test
  void aNodeShortOfTwoResourcesCountsForBoth() {
    Map<String, List<String>> failures =
        Map.of("n", List.of("Insufficient cpu", "Insufficient memory"));
    assertThat(Scheduler.message(1, failures))
        .startsWith("0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.");
  }
}
