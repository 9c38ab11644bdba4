package dev.stallwatch.sim;

import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Upstream {@code manage} / {@code podsShouldBeOnNode}: which nodes lack a daemon pod, which pods
 * must go (failed pods with back-off, surplus pods, pods on nodes that may no longer run one, pods
 * targeting nodes that no longer exist).
 */
final class DaemonPodManager {

  private final FailedPodBackoff backoff;

  DaemonPodManager(FailedPodBackoff backoff) {
    this.backoff = backoff;
  }

  SyncPlan plan(DaemonSetState state, String hash) {
    List<String> create = new ArrayList<>();
    List<String> delete = new ArrayList<>();
    for (Node node : state.nodes) {
      planNode(state, node, hash, create, delete);
    }
    // Unscheduled pods aimed at nodes that are gone.
    state.podsByNode.forEach(
        (nodeName, pods) -> {
          if (!state.nodesByName.containsKey(nodeName)) {
            for (Pod pod : pods) {
              if (isEmpty(pod.getSpec().getNodeName())
                  && pod.getMetadata().getDeletionTimestamp() == null) {
                delete.add(pod.getMetadata().getName());
              }
            }
          }
        });
    return SyncPlan.of(create, delete);
  }

  private void planNode(
      DaemonSetState state, Node node, String hash, List<String> create, List<String> delete) {
    String nodeName = node.getMetadata().getName();
    DaemonNodeFit.Fit fit = state.fit(node);
    List<Pod> pods = state.podsOn(nodeName);
    boolean exists = state.podsByNode.containsKey(nodeName);
    if (fit.shouldRun() && !exists) {
      create.add(nodeName);
      return;
    }
    if (fit.shouldContinueRunning()) {
      List<Pod> running = new ArrayList<>();
      for (Pod pod : pods) {
        if (pod.getMetadata().getDeletionTimestamp() != null) {
          continue;
        }
        String phase =
            pod.getStatus() == null ? "" : Objects.toString(pod.getStatus().getPhase(), "");
        if ("Failed".equals(phase)) {
          String key = state.namespace() + "/" + state.name() + "/" + nodeName;
          if (backoff.inBackoff(key, state.now)) {
            continue;
          }
          backoff.next(key, state.now);
          delete.add(pod.getMetadata().getName());
        } else if ("Succeeded".equals(phase)) {
          delete.add(pod.getMetadata().getName());
        } else {
          running.add(pod);
        }
      }
      planRunning(state, fit, nodeName, hash, running, create, delete);
      return;
    }
    if (exists) {
      for (Pod pod : pods) {
        if (pod.getMetadata().getDeletionTimestamp() == null) {
          delete.add(pod.getMetadata().getName());
        }
      }
    }
  }

  /** Surplus pods: without surge keep the oldest; with surge keep oldest old and oldest new. */
  private void planRunning(
      DaemonSetState state,
      DaemonNodeFit.Fit fit,
      String nodeName,
      String hash,
      List<Pod> running,
      List<String> create,
      List<String> delete) {
    running.sort(DaemonSetState.OLDEST_FIRST);
    if (!UpdateBudget.allowsSurge(state.ds)) {
      for (int i = 1; i < running.size(); i++) {
        delete.add(running.get(i).getMetadata().getName());
      }
      return;
    }
    if (running.size() <= 1) {
      if (running.isEmpty() && fit.shouldRun()) {
        create.add(nodeName);
      }
      return;
    }
    Pod oldestNew = null;
    Pod oldestOld = null;
    for (Pod pod : running) {
      boolean current = hash.equals(labels(pod).get(MetadataKeys.REVISION_HASH_LABEL));
      if (current && oldestNew == null) {
        oldestNew = pod;
      } else if (!current && oldestOld == null) {
        oldestOld = pod;
      } else {
        delete.add(pod.getMetadata().getName());
      }
    }
    if (oldestNew != null && oldestOld != null) {
      if (!state.isReady(oldestOld) || state.isAvailable(oldestNew)) {
        delete.add(oldestOld.getMetadata().getName());
      }
    }
  }

  private static java.util.Map<String, String> labels(Pod pod) {
    var l = pod.getMetadata().getLabels();
    return l == null ? java.util.Map.of() : l;
  }

  private static boolean isEmpty(String s) {
    return s == null || s.isEmpty();
  }
}
