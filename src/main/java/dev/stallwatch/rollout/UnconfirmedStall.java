package dev.stallwatch.rollout;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a stalled verdict rests only on news that may be old: every stalled node is held by pods
 * being deleted (no live pod of the new revision on it), and the caller did not see any of those
 * nodes holding back this revision at its last look — the deletion reaches it already past
 * stall-after. That is what a watch event held back by a hung connection looks like when it arrives
 * before the DaemonSet's own change: a settled pod of the revision the DaemonSet is leaving, its
 * deletion seen while the cached DaemonSet still names that revision the current one. Every cache
 * is consistent with the others ({@link SnapshotLag} sees nothing), so only a second look, a moment
 * later, tells the two apart: the DaemonSet's change arrives behind the pod's, or the pod is truly
 * stuck terminating. A caller that records verdicts confirms such a stall by looking again before
 * recording it; a stall its memory already knows, or evidenced by any live new-revision pod or an
 * excluded node, is recorded at once.
 *
 * <p>Pure: reads the snapshot, the verdict on it and the caller's memory from before it.
 */
public final class UnconfirmedStall {
  private UnconfirmedStall() {}

  /**
   * Why the stalled {@code verdict} should be looked at again before it is recorded, or empty when
   * it may be recorded now (also when it is not stalled).
   *
   * @param memory what the caller remembered before this verdict (not yet updated with it)
   */
  public static Optional<String> of(
      RolloutSnapshot snapshot, RolloutVerdict verdict, StallMemory memory) {
    if (!verdict.stalled() || verdict.newRevision() == null || verdict.stalledNodes().isEmpty()) {
      return Optional.empty();
    }
    DaemonSetView ds = snapshot.daemonSet();
    String hash = verdict.newRevision().hash();
    if (memory != null && hash.equals(memory.revisionHash())) {
      for (String node : verdict.stalledNodes()) {
        if (memory.heldSince().containsKey(node)) {
          return Optional.empty(); // seen holding before: the stall grew under the caller's eyes
        }
      }
    }
    Set<String> stalled = new HashSet<>(verdict.stalledNodes());
    for (NodeRow row : verdict.nodes()) {
      if (stalled.contains(row.node()) && row.standing() != NodeRow.Standing.STUCK) {
        return Optional.empty(); // excluded: not a deletion's evidence
      }
    }
    // One pass over the pods: which stalled nodes have a pod being deleted.
    Set<String> deleting = new HashSet<>();
    Long templateGeneration = ds.templateGeneration();
    for (PodView pod : snapshot.pods()) {
      if (!stalled.contains(pod.targetNode())
          || !Ownership.ownsPod(ds, pod)
          || (pod.terminating() && PodAvailability.isTerminal(pod))) {
        continue; // not the DaemonSet's, or done (the analyzer does not count it either)
      }
      if (pod.terminating()) {
        deleting.add(pod.targetNode());
      } else if (PodAvailability.isUpdated(pod, hash, templateGeneration)) {
        return Optional.empty(); // a live pod of the new revision: its own evidence
      }
    }
    if (!deleting.equals(stalled)) {
      return Optional.empty(); // an empty node: held since the rollout, not since a deletion
    }
    List<String> nodes = verdict.stalledNodes();
    String named =
        nodes.size() <= 3
            ? String.join(", ", nodes)
            : String.join(", ", nodes.subList(0, 3)) + " and " + (nodes.size() - 3) + " more";
    return Optional.of(
        "DaemonSet "
            + ds.name()
            + " looks stalled on revision "
            + hash
            + " only by pod deletions first seen past stall-after (node"
            + (nodes.size() == 1 ? " " : "s ")
            + named
            + ")");
  }
}
