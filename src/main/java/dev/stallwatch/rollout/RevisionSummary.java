package dev.stallwatch.rollout;

import java.util.List;

/**
 * A revision as reported: its hash, its {@code .revision} number (null when only known from pod
 * labels) and the images of its template (or of its pods when the template is unknown).
 */
public record RevisionSummary(String hash, Long revision, List<String> images) {
  public RevisionSummary {
    hash = hash == null ? "" : hash;
    images = images == null ? List.of() : List.copyOf(images);
  }
}
