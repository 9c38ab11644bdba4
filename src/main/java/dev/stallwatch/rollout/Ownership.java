package dev.stallwatch.rollout;

/**
 * Decides which pods and ControllerRevisions of a snapshot belong to the DaemonSet: those whose
 * controller owner reference names it (by uid when both sides carry one, else by kind and name) in
 * the same namespace. Everything else in the input is ignored.
 */
final class Ownership {
  private Ownership() {}

  static boolean ownsPod(DaemonSetView ds, PodView pod) {
    return sameNamespace(ds, pod.namespace()) && ownedBy(ds, pod.owner());
  }

  static boolean ownsRevision(DaemonSetView ds, RevisionView revision) {
    if (revision.owner() == null) {
      // An orphaned revision is still recognisable by upstream's naming: <daemonset>-<hash>.
      return revision.name().equals(ds.name() + "-" + revision.hash());
    }
    return ownedBy(ds, revision.owner());
  }

  private static boolean sameNamespace(DaemonSetView ds, String namespace) {
    return namespace.isEmpty() || ds.namespace().isEmpty() || namespace.equals(ds.namespace());
  }

  private static boolean ownedBy(DaemonSetView ds, OwnerRef owner) {
    if (owner == null || !"DaemonSet".equals(owner.kind())) {
      return false;
    }
    String dsUid = ds.ref().uid();
    if (dsUid != null && !dsUid.isEmpty() && owner.uid() != null && !owner.uid().isEmpty()) {
      return dsUid.equals(owner.uid());
    }
    return ds.name().equals(owner.name());
  }
}
