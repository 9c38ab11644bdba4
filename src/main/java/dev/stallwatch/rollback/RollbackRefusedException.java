package dev.stallwatch.rollback;

/**
 * A rollback that must not or cannot happen: the DaemonSet does not exist, has no revision to roll
 * back to, the named revision does not exist, or the DaemonSet moved on meanwhile.
 */
public final class RollbackRefusedException extends RuntimeException {
  public RollbackRefusedException(String message) {
    super(message);
  }
}
