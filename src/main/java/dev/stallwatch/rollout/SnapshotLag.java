package dev.stallwatch.rollout;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Whether a snapshot shows the DaemonSet older than its own revisions or pods: the sign of a cache
 * caught mid-relist (after a reconnect or restart, informers relist one by one). Such a snapshot
 * would judge the previous revision as if it were the new one; a caller that reads caches waits for
 * them to catch up instead of recording a verdict. Pure: only the snapshot is read.
 *
 * <p>Three signs, all impossible in a settled cluster because the DaemonSet controller keeps the
 * revision that matches the template the newest ({@code .revision} raised on a rollback) and never
 * deletes a ControllerRevision a live pod still carries:
 *
 * <ul>
 *   <li>the DaemonSet's template matches none of its ControllerRevisions (the controller records
 *       the revision of a changed template before it touches a pod: the moment after a change, or a
 *       revision cache behind the DaemonSet's);
 *   <li>the DaemonSet's template matches a ControllerRevision that is not its newest by {@code
 *       .revision}, while the controller has observed that template ({@code observedGeneration >=
 *       generation}): right after a rollback (undo, the auto-rollback, a re-applied manifest) the
 *       template matches an older revision until the controller renumbers it, and a verdict on the
 *       restored revision is the right one meanwhile;
 *   <li>a pod of the DaemonSet carries a {@code controller-revision-hash} that none of its
 *       ControllerRevisions has.
 * </ul>
 *
 * Without ControllerRevisions in the input there is nothing to compare: no lag is reported.
 */
public final class SnapshotLag {
  private SnapshotLag() {}

  /** What lags behind, in words, or empty when the snapshot is consistent. */
  public static Optional<String> of(RolloutSnapshot snapshot) {
    DaemonSetView ds = snapshot.daemonSet();
    var revisions =
        snapshot.revisions().stream().filter(r -> Ownership.ownsRevision(ds, r)).toList();
    if (revisions.isEmpty()) {
      return Optional.empty();
    }
    return of(snapshot, ds, revisions);
  }

  /**
   * As {@link #of}, for a snapshot read from caches that hold every ControllerRevision (the
   * operator's): there, a DaemonSet the controller has written a status for and no
   * ControllerRevision of it is a fourth sign — the revision cache has not caught up (the
   * controller records a revision for the template before it writes any status). Judged without
   * revisions, the rollout would be told from the pods' template generations alone.
   */
  public static Optional<String> ofCaches(RolloutSnapshot snapshot) {
    DaemonSetView ds = snapshot.daemonSet();
    var revisions =
        snapshot.revisions().stream().filter(r -> Ownership.ownsRevision(ds, r)).toList();
    if (revisions.isEmpty()) {
      boolean observed = ds.status() != null && ds.status().observedGeneration() != null;
      return observed
          ? Optional.of(
              "no ControllerRevision of DaemonSet "
                  + ds.name()
                  + " is cached, though the controller has written its status")
          : Optional.empty();
    }
    return of(snapshot, ds, revisions);
  }

  private static Optional<String> of(
      RolloutSnapshot snapshot, DaemonSetView ds, List<RevisionView> revisions) {
    Comparator<RevisionView> byRevision =
        Comparator.comparingLong(RevisionView::revision).thenComparing(RevisionView::name);
    RevisionView newest = revisions.stream().max(byRevision).orElseThrow();
    if (ds.template() != null && ds.template().canonical() != null) {
      Optional<RevisionView> matching =
          revisions.stream().filter(r -> r.stores(ds.template())).max(byRevision);
      boolean templatesReadable = revisions.stream().allMatch(r -> r.template() != null);
      if (matching.isEmpty() && templatesReadable) {
        return Optional.of(
            "the template of DaemonSet "
                + ds.name()
                + " matches none of its "
                + revisions.size()
                + " ControllerRevision(s): its new revision is not cached yet");
      }
      if (matching.isPresent()
          && matching.get().revision() < newest.revision()
          && !templateNotYetObserved(ds)) {
        return Optional.of(
            "the template of DaemonSet "
                + ds.name()
                + " is revision "
                + matching.get().revision()
                + " ("
                + matching.get().hash()
                + ") but ControllerRevision "
                + newest.name()
                + " is newer (revision "
                + newest.revision()
                + ")");
      }
    }
    Set<String> known = revisions.stream().map(RevisionView::hash).collect(Collectors.toSet());
    return snapshot.pods().stream()
        .filter(p -> Ownership.ownsPod(ds, p))
        .filter(p -> !p.labels().getOrDefault(MetadataKeys.REVISION_HASH_LABEL, "").isEmpty())
        .filter(p -> !known.contains(p.labels().get(MetadataKeys.REVISION_HASH_LABEL)))
        .min(Comparator.comparing(PodView::name))
        .map(
            p ->
                "pod "
                    + p.name()
                    + " of DaemonSet "
                    + ds.name()
                    + " carries revision "
                    + p.labels().get(MetadataKeys.REVISION_HASH_LABEL)
                    + ", which none of its "
                    + revisions.size()
                    + " ControllerRevision(s) has");
  }

  /** The DaemonSet's spec changed after the controller last wrote its status. */
  private static boolean templateNotYetObserved(DaemonSetView ds) {
    return ds.status() != null
        && ds.status().observedGeneration() != null
        && ds.generation() > ds.status().observedGeneration();
  }
}
