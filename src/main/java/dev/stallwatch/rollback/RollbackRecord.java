package dev.stallwatch.rollback;

import dev.stallwatch.rollout.MetadataKeys;
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

  /** The operator's auto-rollback, as recorded in {@value MetadataKeys#ROLLED_BACK_BY}. */
  public static final String BY_OPERATOR = "stallwatch operator";

  public RollbackRecord {
    from = from == null ? "" : from;
    to = to == null ? "" : to;
    by = by == null ? "" : by;
  }

  /** The annotations that carry this record. */
  public Map<String, String> annotations() {
    Map<String, String> out = new LinkedHashMap<>();
    out.put(MetadataKeys.ROLLED_BACK_FROM, from);
    out.put(MetadataKeys.ROLLED_BACK_TO, to);
    if (at != null) {
      out.put(MetadataKeys.ROLLED_BACK_AT, at.toString());
    }
    out.put(MetadataKeys.ROLLED_BACK_BY, by);
    return out;
  }

  /** The record on a DaemonSet, if it carries one (an unreadable time is left out). */
  public static Optional<RollbackRecord> fromAnnotations(Map<String, String> annotations) {
    if (annotations == null
        || annotations.getOrDefault(MetadataKeys.ROLLED_BACK_FROM, "").isBlank()
        || annotations.getOrDefault(MetadataKeys.ROLLED_BACK_TO, "").isBlank()) {
      return Optional.empty();
    }
    Instant at = null;
    try {
      String text = annotations.get(MetadataKeys.ROLLED_BACK_AT);
      at = text == null ? null : Instant.parse(text.trim());
    } catch (DateTimeParseException e) {
      // the time only informs messages; the hashes are what the policy decides on
    }
    return Optional.of(
        new RollbackRecord(
            annotations.get(MetadataKeys.ROLLED_BACK_FROM).trim(),
            annotations.get(MetadataKeys.ROLLED_BACK_TO).trim(),
            at,
            annotations.get(MetadataKeys.ROLLED_BACK_BY)));
  }
}
