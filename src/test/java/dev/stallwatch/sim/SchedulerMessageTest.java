package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SchedulerMessageTest {

  @Test
  void reasonsAreCountedOverNodesSortedAndFollowedByThePreemptionNote() {
    Map<String, List<String>> failures = new TreeMap<>();
    failures.put("gpu-node-1", List.of("Insufficient nvidia.com/gpu"));
    failures.put("gpu-node-2", List.of(Scheduler.AFFINITY_MISMATCH));
    failures.put("gpu-node-3", List.of(Scheduler.AFFINITY_MISMATCH));
    assertThat(Scheduler.message(3, failures))
        .isEqualTo(
            "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't match Pod's"
                + " node affinity/selector. preemption: 0/3 nodes are available: 1 No preemption"
                + " victims found for incoming pod, 2 Preemption is not helpful for scheduling.");
  }

  @Test
  void aHostPortConflictIsANodeWherePreemptionIsTriedAndFindsNoVictim() {
    Map<String, List<String>> failures = new TreeMap<>();
    failures.put("gpu-node-1", List.of(Scheduler.PORTS_IN_USE));
    failures.put("gpu-node-2", List.of(Scheduler.AFFINITY_MISMATCH));
    failures.put("gpu-node-3", List.of(Scheduler.AFFINITY_MISMATCH));
    assertThat(Scheduler.message(3, failures))
        .isEqualTo(
            "0/3 nodes are available: 1 node(s) didn't have free ports for the requested pod"
                + " ports, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3"
                + " nodes are available: 1 No preemption victims found for incoming pod, 2"
                + " Preemption is not helpful for scheduling.");
  }

  @Test
  void aNodeShortOfTwoResourcesCountsForBoth() {
    Map<String, List<String>> failures =
        Map.of("n", List.of("Insufficient cpu", "Insufficient memory"));
    assertThat(Scheduler.message(1, failures))
        .startsWith("0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.");
  }
}
