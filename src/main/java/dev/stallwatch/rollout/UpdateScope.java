package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Which nodes an OpenKruise Advanced DaemonSet keeps out of its rollout on purpose, as kruise's
 * DaemonSet controller picks them: the nodes beyond its partition or outside its update selector
 * (kruise's {@code filterDaemonPodsNodeToUpdate}), and the empty nodes partitioned scaling keeps
 * empty ({@code GetNodesNeedingPods}). Such a node stands {@link NodeRow.Standing#HELD}.
 *
 * <p>Kruise orders the nodes it may update as: nodes that already run a new pod (or more than one
 * pod), then nodes without a live pod or with one in its pre-delete hook, then nodes with an old
 * pod — those matching the update selector when one is set, else all — each group in descending
 * node-name order; the first {@code nodes − partition} of that order may be updated. So a partition
 * holds the old-pod nodes with the lowest names. The partition is scaled from {@code
 * .status.desiredNumberScheduled} as last written, a percentage rounded down.
 */
final class UpdateScope {
  /** Nothing held: an apps/v1 DaemonSet, OnDelete, or a rollout no partition or selector limits. */
  static final UpdateScope NONE = new UpdateScope(new boolean[0], 0, 0, "", 0);

  private final boolean[] held;
  private final int count;
  private final int unavailable;
  private final String by;
  private final int partition;

  private UpdateScope(boolean[] held, int count, int unavailable, String by, int partition) {
    this.held = held;
    this.count = count;
    this.unavailable = unavailable;
    this.by = by;
    this.partition = partition;
  }

  /** Whether the node at position {@code i} of the placement is held. */
  boolean held(int i) {
    return i < held.length && held[i];
  }

  /** How many nodes are held. */
  int count() {
    return count;
  }

  /** How many held nodes run an old pod that is not available (kruise does not count them). */
  int unavailable() {
    return unavailable;
  }

  /** What holds them, in words: "partition 2", "update selector app=x", or both. */
  String by() {
    return by;
  }

  /** The partition as kruise scales it (0 without one). */
  int partition() {
    return partition;
  }

  static UpdateScope of(DaemonSetView ds, Placement placed, RevisionSplit split, Instant now) {
    AdvancedStrategy adv = ds.advanced();
    if (adv == null || ds.strategy().onDelete() || !adv.notJudged().isEmpty()) {
      return NONE;
    }
    int statusDesired = ds.status() == null ? 0 : ds.status().desiredNumberScheduled();
    int partition = Math.max(0, adv.partitionCount(statusDesired));
    AdvancedStrategy.Selector selector = adv.selector();
    if (partition == 0 && selector == null) {
      return NONE;
    }
    int n = placed.size();
    boolean[] held = new boolean[n];
    List<Integer> updated = new ArrayList<>();
    List<Integer> updating = new ArrayList<>();
    List<Integer> candidates = new ArrayList<>();
    boolean[] candidate = new boolean[n];
    int considered = 0;
    int desired = 0;
    int newPods = 0;
    List<Integer> empty = new ArrayList<>();
    for (int i = n - 1; i >= 0; i--) {
      boolean shouldRun = placed.fit(i).shouldRun();
      int pods = placed.podCount(i);
      if (shouldRun) {
        desired++;
        if (pods == 0) {
          empty.add(i); // descending here; reversed below to kruise's ascending creation order
        }
      }
      if (!shouldRun && pods == 0) {
        continue;
      }
      considered++;
      PodView newPod = null;
      PodView oldPod = null;
      boolean ok = true;
      for (PodView p : placed.pods(i)) {
        if (p.terminating()) {
          continue;
        }
        if (split.isNew(p)) {
          ok &= newPod == null;
          newPod = p;
        } else {
          ok &= oldPod == null;
          oldPod = p;
        }
      }
      if (ok && newPod != null) {
        newPods++;
      }
      if (!ok || newPod != null) {
        updated.add(i);
      } else if (oldPod == null || preparingDelete(oldPod)) {
        updating.add(i);
      } else if (selector == null || selector.matches(placed.node(i).labels())) {
        candidates.add(i);
        candidate[i] = true;
      } else {
        held[i] = true; // outside the update selector: never updated
      }
    }
    int maxUpdate = considered - partition;
    List<Integer> order = new ArrayList<>(updated);
    order.addAll(updating);
    order.addAll(candidates);
    for (int k = Math.max(0, maxUpdate); k < order.size(); k++) {
      int i = order.get(k);
      if (candidate[i]) {
        held[i] = true;
      }
    }
    java.util.Collections.reverse(empty);
    if (adv.partitionedScaling() && partition != 0) {
      int p = Math.min(partition, desired);
      int maxCreate = Math.min(Math.max(desired - newPods - p, 0), empty.size());
      for (int k = maxCreate; k < empty.size(); k++) {
        held[empty.get(k)] = true;
      }
    }
    int count = 0;
    int unavailable = 0;
    for (int i = 0; i < n; i++) {
      if (held[i]) {
        count++;
        PodView first = placed.podCount(i) == 0 ? null : placed.firstPod(i);
        if (first != null && !PodAvailability.isAvailable(first, ds.minReadySeconds(), now)) {
          unavailable++;
        }
      }
    }
    if (count == 0) {
      return NONE;
    }
    String by =
        partition > 0 && selector != null
            ? "partition " + partition + " and update selector " + selector
            : partition > 0 ? "partition " + partition : "update selector " + selector;
    return new UpdateScope(held, count, unavailable, by, partition);
  }

  /** An old pod kruise's pre-delete hook holds: labelled {@code PreparingDelete}. */
  static boolean preparingDelete(PodView pod) {
    return AdvancedStrategy.PREPARING_DELETE.equals(
        pod.labels().get(AdvancedStrategy.LIFECYCLE_STATE_LABEL));
  }
}
