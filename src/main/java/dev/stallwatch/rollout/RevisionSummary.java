package dev.stallwatch.rollout;

import java.util.List;

/**
 * A revision as reported: its hash, its {@code .revision} number and the images of its template (or
 * of its pods when the template is unknown).
 *
 * @param hash the {@code controller-revision-hash}; from the pods' label when no ControllerRevision
 *     is in the input, empty when neither tells it
 * @param revision the ControllerRevision's {@code .revision}; null when no ControllerRevision of
 *     the DaemonSet is in the input
 * @param templateGeneration the {@code pod-template-generation} that tells the revision's pods
 *     apart when no ControllerRevision is in the input; else null
 */
public record RevisionSummary(
    String hash, Long revision, List<String> images, Long templateGeneration) {
  public RevisionSummary {
    hash = hash == null ? "" : hash;
    images = images == null ? List.of() : List.copyOf(images);
  }

  /** A revision a ControllerRevision records. */
  public RevisionSummary(String hash, Long revision, List<String> images) {
    this(hash, revision, images, null);
  }

  /**
   * How messages name the revision: {@code 2 (8lg8wjms8f)} from a ControllerRevision; without one,
   * what the pods tell — {@code 8lg8wjms8f (template generation 2; its ControllerRevision is not in
   * the input)} — never a bare question mark.
   */
  public String describe() {
    if (revision != null) {
      return revision + (hash.isEmpty() ? "" : " (" + hash + ")");
    }
    String generation =
        templateGeneration == null ? "" : "template generation " + templateGeneration;
    String note = "its ControllerRevision is not in the input";
    if (hash.isEmpty()) {
      return generation.isEmpty()
          ? "unknown (" + note + ")"
          : "of " + generation + " (" + note + ")";
    }
    return hash + " (" + (generation.isEmpty() ? "" : generation + "; ") + note + ")";
  }
}
