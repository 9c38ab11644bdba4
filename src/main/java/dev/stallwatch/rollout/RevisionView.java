package dev.stallwatch.rollout;

import java.time.Instant;

/**
 * A ControllerRevision of the DaemonSet.
 *
 * @param hash the revision's {@code controller-revision-hash} label (or the suffix of its name)
 * @param template the pod template the revision stores, or null when it could not be read
 */
public record RevisionView(
    String name,
    String hash,
    long revision,
    Instant created,
    OwnerRef owner,
    PodTemplateView template) {
  public RevisionView {
    name = name == null ? "" : name;
    hash = hash == null ? "" : hash;
  }

  /**
   * Upstream's {@code Match}: this revision stores {@code template} (their canonical forms are
   * equal). False when either is unknown.
   */
  public boolean stores(PodTemplateView template) {
    return template != null
        && template.canonical() != null
        && this.template != null
        && template.canonical().equals(this.template.canonical());
  }
}
