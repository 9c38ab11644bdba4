package dev.stallwatch.rollback;

/**
 * Which revision to restore: {@link #previous()}, a {@code .revision} number or a revision hash;
 * optionally only while the DaemonSet still runs the revision {@code expectedCurrentHash} (the
 * operator's guard against rolling back something that moved on meanwhile).
 */
public record RollbackTarget(Long revision, String hash, String expectedCurrentHash) {

  /** The revision before the current one, as {@code kubectl rollout undo}. */
  public static RollbackTarget previous() {
    return new RollbackTarget(null, null, null);
  }

  /** The revision with {@code .revision == number}. */
  public static RollbackTarget revision(long number) {
    if (number <= 0) {
      throw new IllegalArgumentException("revision numbers start at 1, got " + number);
    }
    return new RollbackTarget(number, null, null);
  }

  /** The revision {@code hash}, only while the current revision is {@code expectedCurrentHash}. */
  public static RollbackTarget hash(String hash, String expectedCurrentHash) {
    return new RollbackTarget(null, hash, expectedCurrentHash);
  }
}
