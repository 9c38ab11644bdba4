package dev.stallwatch.operator.cache;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says how far the caches' first list has got, one line every {@link #EVERY} (not one per page),
 * until they have synced; then one line with the totals and how long it took. At 5,000 nodes × 10
 * DaemonSets the list takes tens of seconds, during which /readyz answers 503: the log says the
 * operator is working, and how much of the cluster it has read should it run out of memory.
 */
public final class ListProgress implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ListProgress.class);

  /** How often a line is written while listing. */
  static final Duration EVERY = Duration.ofSeconds(5);

  /** What the caches hold: pods, nodes and ControllerRevisions read so far. */
  public record Counts(int pods, int nodes, int revisions) {
    @Override
    public String toString() {
      return String.format(
          "%,d DaemonSet pods, %,d nodes, %,d ControllerRevisions", pods, nodes, revisions);
    }
  }

  private final String what;
  private final Supplier<Counts> counts;
  private final long started = System.nanoTime();
  private final ScheduledExecutorService timer;

  private ListProgress(String what, Supplier<Counts> counts, Duration every) {
    this.what = what;
    this.counts = counts;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "stallwatch-list-progress");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleAtFixedRate(
        () -> log.info("listing {}: {} read so far ({} s)", what, counts.get(), seconds()),
        every.toMillis(),
        every.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /** Starts reporting the list of {@code what} (e.g. "DaemonSets"), every {@link #EVERY}. */
  public static ListProgress start(String what, Supplier<Counts> counts) {
    return start(what, counts, EVERY);
  }

  public static ListProgress start(String what, Supplier<Counts> counts, Duration every) {
    return new ListProgress(what, counts, every);
  }

  private long seconds() {
    return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
  }

  /** The caches have synced: one line with what they hold and how long the list took. */
  public void synced() {
    timer.shutdownNow();
    log.info(
        "caches of {} synced in {} s: {}",
        what,
        String.format("%.1f", (System.nanoTime() - started) / 1e9),
        counts.get());
  }

  /** Stops reporting (the start failed, or {@link #synced()} said it all). */
  @Override
  public void close() {
    timer.shutdownNow();
  }
}
