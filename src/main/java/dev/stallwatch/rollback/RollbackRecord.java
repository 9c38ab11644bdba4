package dev.stallwatch.rollback;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The mark a stallwatch rollback leaves on the DaemonSet (annotations written in the same update as
 * the template): which revision hash was rolled back, to which hash, when and by whom. It is how
 * the operator knows not to roll back a rollback, nor the same revision twice.
 *
 * @param from the hash of the revision that was rolled back
 * @param to the hash of the revision restored
 * @param by {@code stallwatch undo} or {@code stallwatch operator}
 */
public record RollbackRecord(String from, String to, Instant at, String by) {

  public static final String FROM_ANNOTATION = "stallwatch.dev/rolled-back-from";
  public static final String TO_ANNOTATION = "stallwatch.dev/rolled-back-to";
  public static final String AT_ANNOTATION = "stallwatch.dev/rolled-back-at";
  public static final String BY_ANNOTATION = "stallwatch.dev/rolled-back-by";

  public RollbackRecord {
    from = from == null ? "" : from;
    to = to == null ? "" : to;
    by = by == null ? "" : by;
  }

  /** The annotations that carry this record. */
  public Map<String, String> annotations() {
    Map<String, String> out = new LinkedHashMap<>();
    out.put(FROM_ANNOTATION, from);
    out.put(TO_ANNOTATION, to);
    if (at != null) {
      out.put(AT_ANNOTATION, at.toString());
    }
    out.put(BY_ANNOTATION, by);
    return out;
  }

  /** The record on a DaemonSet, if it carries one (an unreadable time is left out). */
  public static Optional<RollbackRecord> fromAnnotations(Map<String, String> annotations) {
    if (annotations == null
        || annotations.getOrDefault(FROM_ANNOTATION, "").isBlank()
        || annotations.getOrDefault(TO_ANNOTATION, "").isBlank()) {
      return Optional.empty();
    }
    Instant at = null;
    try {
      String text = annotations.get(AT_ANNOTATION);
      at = text == null ? null : Instant.parse(text.trim());
    } catch (DateTimeParseException e) {
      // the time only informs messages; the hashes are what the policy decides on
    }
    return Optional.of(
        new RollbackRecord(
            annotations.get(FROM_ANNOTATION).trim(),
            annotations.get(TO_ANNOTATION).trim(),
            at,
            annotations.get(BY_ANNOTATION)));
  }
}
