package dev.stallwatch.sim;

/** How many pods one controller sync created and deleted (upstream tests count these). */
public record SyncResult(int creates, int deletes) {
  static final SyncResult NONE = new SyncResult(0, 0);

  SyncResult plus(SyncResult o) {
    return new SyncResult(creates + o.creates, deletes + o.deletes);
  }
}
