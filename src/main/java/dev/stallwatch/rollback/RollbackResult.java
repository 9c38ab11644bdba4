package dev.stallwatch.rollback;

import java.util.List;

/**
 * What a rollback did (or, in a dry run, would do).
 *
 * @param daemonSet {@code namespace/name}
 * @param from the revision the DaemonSet ran before; null when no revision matched its template
 * @param to the revision restored
 * @param fromImages the container images before
 * @param toImages the container images after
 */
public record RollbackResult(
    String daemonSet,
    Outcome outcome,
    RevisionSummaryLine from,
    RevisionSummaryLine to,
    List<String> fromImages,
    List<String> toImages) {

  public RollbackResult {
    fromImages = List.copyOf(fromImages);
    toImages = List.copyOf(toImages);
  }

  /** What happened. */
  public enum Outcome {
    /** The template was replaced. */
    ROLLED_BACK,
    /** Dry run: nothing was written. */
    WOULD_ROLL_BACK,
    /** The DaemonSet already runs the target's template; nothing to do (as kubectl skips). */
    ALREADY_MATCHES
  }

  /** A revision named in messages: number and hash. */
  public record RevisionSummaryLine(long number, String hash) {
    @Override
    public String toString() {
      return "revision " + number + " (" + hash + ")";
    }
  }
}
