package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * Upstream {@code updateDaemonSetStatus}: for every node that should run the pod, counts it as
 * scheduled when a daemon pod targets it and judges that node's oldest pod (ready, available,
 * updated); pods on nodes that should not run one are misscheduled. Writes through the status
 * subresource and only when something changed or observedGeneration lags.
 */
final class DaemonSetStatusWriter {

  private final KubernetesClient client;

  DaemonSetStatusWriter(KubernetesClient client) {
    this.client = client;
  }

  /** The status upstream would compute for {@code state} under revision {@code hash}. */
  static DaemonSetStatus compute(DaemonSetState state, String hash) {
    int desired = 0;
    int current = 0;
    int misscheduled = 0;
    int ready = 0;
    int updated = 0;
    int available = 0;
    for (Node node : state.nodes) {
      boolean shouldRun = state.fit(node).shouldRun();
      List<Pod> pods = state.podsOn(node.getMetadata().getName());
      if (!shouldRun) {
        if (!pods.isEmpty()) {
          misscheduled++;
        }
        continue;
      }
      desired++;
      if (pods.isEmpty()) {
        continue;
      }
      current++;
      Pod oldest = pods.get(0);
      if (state.isReady(oldest)) {
        ready++;
        if (state.isAvailable(oldest)) {
          available++;
        }
      }
      if (state.isUpdated(oldest, hash)) {
        updated++;
      }
    }
    DaemonSetStatus status = new DaemonSetStatus();
    status.setDesiredNumberScheduled(desired);
    status.setCurrentNumberScheduled(current);
    status.setNumberMisscheduled(misscheduled);
    status.setNumberReady(ready);
    status.setUpdatedNumberScheduled(updated);
    status.setNumberAvailable(available);
    status.setNumberUnavailable(desired - available);
    return status;
  }

  /** Computes and stores the status; true when a write happened. */
  boolean write(DaemonSetState state, String hash, boolean updateObservedGeneration) {
    DaemonSetStatus computed = compute(state, hash);
    DaemonSetStatus old =
        state.ds.getStatus() == null ? new DaemonSetStatus() : state.ds.getStatus();
    long generation =
        state.ds.getMetadata().getGeneration() == null ? 0 : state.ds.getMetadata().getGeneration();
    long observed = old.getObservedGeneration() == null ? 0 : old.getObservedGeneration();
    computed.setObservedGeneration(
        updateObservedGeneration ? Long.valueOf(generation) : old.getObservedGeneration());
    computed.setCollisionCount(old.getCollisionCount());
    computed.setConditions(old.getConditions());
    if (sameCounts(old, computed) && observed >= generation) {
      return false;
    }
    client
        .apps()
        .daemonSets()
        .inNamespace(state.namespace())
        .withName(state.name())
        .editStatus(
            d -> {
              computed.setCollisionCount(
                  d.getStatus() == null ? null : d.getStatus().getCollisionCount());
              d.setStatus(computed);
              return d;
            });
    return true;
  }

  private static boolean sameCounts(DaemonSetStatus a, DaemonSetStatus b) {
    return n(a.getDesiredNumberScheduled()) == n(b.getDesiredNumberScheduled())
        && n(a.getCurrentNumberScheduled()) == n(b.getCurrentNumberScheduled())
        && n(a.getNumberMisscheduled()) == n(b.getNumberMisscheduled())
        && n(a.getNumberReady()) == n(b.getNumberReady())
        && n(a.getUpdatedNumberScheduled()) == n(b.getUpdatedNumberScheduled())
        && n(a.getNumberAvailable()) == n(b.getNumberAvailable())
        && n(a.getNumberUnavailable()) == n(b.getNumberUnavailable());
  }

  private static int n(Integer i) {
    return i == null ? 0 : i;
  }
}
