package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Upstream {@code rollingUpdate}: without surge, delete just enough old pods to stay within
 * maxUnavailable (the manage pass then recreates them); with surge, create new pods beside old ones
 * up to maxSurge and delete an old pod once the new one beside it is available. Upstream iterates a
 * map, so which node it takes first is chance; here nodes are visited in a given order (by name
 * unless a scenario replays a real controller's picks), so a run is reproducible.
 */
final class RollingUpdatePlanner {

  private final Comparator<String> nodeOrder;

  RollingUpdatePlanner(Comparator<String> nodeOrder) {
    this.nodeOrder = nodeOrder;
  }

  /** The new and old pod of one node, or {@code ok == false} when there are several of a kind. */
  private record NodePods(Pod newPod, Pod oldPod, boolean ok) {}

  SyncPlan plan(DaemonSetState state, String hash) {
    Map<String, List<Pod>> byNode = new TreeMap<>(nodeOrder);
    byNode.putAll(state.podsByNode);
    int desired = 0;
    for (var node : state.nodes) {
      if (state.fit(node).shouldRun()) {
        desired++;
        byNode.putIfAbsent(node.getMetadata().getName(), List.of());
      }
    }
    UpdateBudget budget = UpdateBudget.of(state.ds, desired);
    int maxSurge = UpdateBudget.allowsSurge(state.ds) ? budget.maxSurge() : 0;
    if (maxSurge == 0) {
      return withoutSurge(state, hash, byNode, budget.maxUnavailable());
    }
    return withSurge(state, hash, byNode, maxSurge, desired);
  }

  private static NodePods split(DaemonSetState state, List<Pod> pods, String hash) {
    Pod newPod = null;
    Pod oldPod = null;
    for (Pod pod : pods) {
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      if (state.isUpdated(pod, hash)) {
        if (newPod != null) {
          return new NodePods(null, null, false);
        }
        newPod = pod;
      } else {
        if (oldPod != null) {
          return new NodePods(null, null, false);
        }
        oldPod = pod;
      }
    }
    return new NodePods(newPod, oldPod, true);
  }

  private SyncPlan withoutSurge(
      DaemonSetState state, String hash, Map<String, List<Pod>> byNode, int maxUnavailable) {
    int unavailable = 0;
    List<String> replacements = new ArrayList<>();
    List<String> candidates = new ArrayList<>();
    for (var e : byNode.entrySet()) {
      NodePods p = split(state, e.getValue(), hash);
      if (!p.ok() || (p.oldPod() == null) == (p.newPod() == null)) {
        // Several pods, none, or old beside new: the manage pass sorts it out; count as
        // unavailable.
        unavailable++;
      } else if (p.newPod() != null) {
        if (!state.isAvailable(p.newPod())) {
          unavailable++;
        }
      } else if (!state.isAvailable(p.oldPod())) {
        replacements.add(p.oldPod().getMetadata().getName());
        unavailable++;
      } else if (unavailable < maxUnavailable) {
        candidates.add(p.oldPod().getMetadata().getName());
      }
    }
    int remaining = Math.min(Math.max(maxUnavailable - unavailable, 0), candidates.size());
    List<String> delete = new ArrayList<>(replacements);
    delete.addAll(candidates.subList(0, remaining));
    return SyncPlan.of(List.of(), delete);
  }

  private SyncPlan withSurge(
      DaemonSetState state, String hash, Map<String, List<Pod>> byNode, int maxSurge, int desired) {
    List<String> delete = new ArrayList<>();
    List<String> shouldNotRun = new ArrayList<>();
    List<String> candidates = new ArrayList<>();
    List<String> allowed = new ArrayList<>();
    int surge = 0;
    int available = 0;
    for (var e : byNode.entrySet()) {
      String nodeName = e.getKey();
      NodePods p = split(state, e.getValue(), hash);
      if (!p.ok()) {
        surge++;
        continue;
      }
      Pod counted = p.oldPod() != null ? p.oldPod() : p.newPod();
      if (counted != null && state.isAvailable(counted)) {
        available++;
      }
      if (p.oldPod() == null) {
        continue;
      }
      if (p.newPod() == null) {
        boolean shouldRun = nodeShouldRun(state, nodeName);
        if (!state.isAvailable(p.oldPod())) {
          if (!shouldRun) {
            delete.add(p.oldPod().getMetadata().getName());
          } else {
            allowed.add(nodeName);
          }
        } else if (!shouldRun) {
          shouldNotRun.add(p.oldPod().getMetadata().getName());
        } else if (surge < maxSurge) {
          candidates.add(nodeName);
        }
      } else if (!state.isAvailable(p.newPod())) {
        surge++;
      } else {
        delete.add(p.oldPod().getMetadata().getName());
      }
    }
    // Keep full availability when the placement moves: drop pods on sunset nodes only once
    // enough pods elsewhere are available.
    int deletable = Math.min(available - desired, shouldNotRun.size());
    if (deletable > 0) {
      delete.addAll(shouldNotRun.subList(0, deletable));
    }
    int remaining = Math.min(Math.max(maxSurge - surge, 0), candidates.size());
    List<String> create = new ArrayList<>(allowed);
    create.addAll(candidates.subList(0, remaining));
    return SyncPlan.of(create, delete);
  }

  private static boolean nodeShouldRun(DaemonSetState state, String nodeName) {
    var node = state.nodesByName.get(nodeName);
    return node != null && state.fit(node).shouldRun();
  }
}
