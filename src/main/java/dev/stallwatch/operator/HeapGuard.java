package dev.stallwatch.operator;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryNotificationInfo;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says in one line, before the heap runs out, that it will and what to do: when a full collection
 * leaves the old generation more than {@value #NEARLY_FULL_PERCENT} % full, the operator holds
 * nearly all it can (a cluster bigger than its heap). The line names the heap's size, what the
 * caches hold, and the sizing guide, and goes to the log and to the container's termination message
 * ({@value #TERMINATION_LOG}), so that {@code kubectl describe pod} shows why the pod restarts: the
 * JVM then ends at its first {@link OutOfMemoryError} ({@code -XX:+ExitOnOutOfMemoryError}, set by
 * the image), without a stack trace mid-list.
 *
 * <p>With the serial collector a heap that is nearly full may never run out: each full collection
 * frees just enough for the next allocations, and the JVM spends all its time collecting (the
 * parallel collector's overhead limit does not exist here). After {@value #FULL_IN_A_ROW} full
 * collections in a row that leave the old generation nearly full, the guard says so in one more
 * line and ends the JVM with the exit code of {@code -XX:+ExitOnOutOfMemoryError} (3), as that
 * error would.
 */
final class HeapGuard {
  private static final Logger log = LoggerFactory.getLogger(HeapGuard.class);

  /** How full the old generation may be after a full collection before the line is written. */
  static final int NEARLY_FULL_PERCENT = 90;

  /** Where Kubernetes reads a container's termination message (its default path). */
  static final String TERMINATION_LOG = "/dev/termination-log";

  /** Full collections in a row that may leave the old generation nearly full before the end. */
  static final int FULL_IN_A_ROW = 5;

  /** The exit code of {@code -XX:+ExitOnOutOfMemoryError}. */
  static final int EXIT_CODE = 3;

  /** Where the sizing guide is. */
  static final String SIZING = "docs/benchmarks.md#sizing-what-to-give-the-operator";

  private static final AtomicBoolean installed = new AtomicBoolean();
  private static volatile Supplier<String> holding = () -> "nothing cached yet";

  private HeapGuard() {}

  /** What the operator's caches hold, for the line (the operator started last in this JVM). */
  static void holding(Supplier<String> what) {
    holding = what;
  }

  /** What the operator's caches hold now. */
  static String holding() {
    return holding.get();
  }

  /** Watches the old generation's use after each collection of it, for the life of the JVM. */
  static void install() {
    if (!installed.compareAndSet(false, true)) {
      return;
    }
    AtomicBoolean told = new AtomicBoolean();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP
          && pool.isCollectionUsageThresholdSupported()
          && pool.getUsage().getMax() > 0
          && isOldGeneration(pool.getName())) {
        pool.setCollectionUsageThreshold(pool.getUsage().getMax() * NEARLY_FULL_PERCENT / 100);
      }
    }
    NotificationListener listener =
        (notification, handback) -> {
          if (MemoryNotificationInfo.MEMORY_COLLECTION_THRESHOLD_EXCEEDED.equals(
                  notification.getType())
              && told.compareAndSet(false, true)) {
            say(line(Runtime.getRuntime().maxMemory(), usedHeap(), holding()));
          }
        };
    ((NotificationEmitter) ManagementFactory.getMemoryMXBean())
        .addNotificationListener(listener, null, null);
    Streak streak = new Streak();
    NotificationListener afterCollection =
        (notification, handback) -> {
          if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
              notification.getType())) {
            return;
          }
          var info =
              GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
          if (!info.getGcAction().contains("major")) {
            return;
          }
          info.getGcInfo()
              .getMemoryUsageAfterGc()
              .forEach(
                  (pool, usage) -> {
                    if (isOldGeneration(pool)
                        && streak.afterFullCollection(usage.getUsed(), usage.getMax())) {
                      say(ending(Runtime.getRuntime().maxMemory(), FULL_IN_A_ROW));
                      System.err.flush();
                      Runtime.getRuntime().halt(EXIT_CODE);
                    }
                  });
        };
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (collector instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(afterCollection, null, null);
      }
    }
  }

  /**
   * Counts the full collections in a row that left the old generation at least {@value
   * #NEARLY_FULL_PERCENT} % full; one that leaves it emptier starts the count again.
   */
  static final class Streak {
    private int inARow;

    /** After a full collection that left {@code used} of {@code max} bytes: whether to end now. */
    synchronized boolean afterFullCollection(long used, long max) {
      if (max > 0 && used * 100 >= max * NEARLY_FULL_PERCENT) {
        inARow++;
      } else {
        inARow = 0;
      }
      return inARow >= FULL_IN_A_ROW;
    }
  }

  /** The line before the end: the heap stayed full, the JVM ends. */
  static String ending(long maxHeap, int collections) {
    return String.format(
        "the heap of %d MiB stayed full across %d full collections in a row: the operator ends"
            + " now (exit %d) rather than spend its time collecting; see %s",
        maxHeap / (1024 * 1024), collections, EXIT_CODE, SIZING);
  }

  /** One line to the log and to the container's termination message. */
  private static void say(String line) {
    log.error(line);
    terminationMessage(Path.of(TERMINATION_LOG), line);
  }

  /** The old generation of the serial, parallel and G1 collectors. */
  static boolean isOldGeneration(String pool) {
    return pool.contains("Old Gen") || pool.contains("Tenured");
  }

  private static long usedHeap() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** The line: the heap's size, what is held, what to do. */
  static String line(long maxHeap, long used, String holding) {
    return String.format(
        "the heap is nearly full: %d of %d MiB in use after a full collection, holding %s; the"
            + " operator stops when it runs out. Give it more memory (the image's JVM takes half the"
            + " container's memory limit for its heap; chart value resources.limits.memory): see %s",
        used / (1024 * 1024), maxHeap / (1024 * 1024), holding, SIZING);
  }

  /** One line that says why the JVM ran out of memory, for an error caught at start-up. */
  static String outOfMemory(long maxHeap, String holding) {
    return String.format(
        "out of memory with a heap of %d MiB, holding %s; give the operator more memory (the"
            + " image's JVM takes half the container's memory limit for its heap; chart value"
            + " resources.limits.memory): see %s",
        maxHeap / (1024 * 1024), holding, SIZING);
  }

  /** Whether {@code e} is, or was caused by, running out of memory. */
  static boolean causedByOutOfMemory(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof OutOfMemoryError) {
        return true;
      }
    }
    return false;
  }

  /** Writes {@code line} as the container's termination message, where there is one. */
  static void terminationMessage(Path file, String line) {
    if (!Files.isWritable(file)) {
      return; // not in a container (or a read-only one): the log has it
    }
    try {
      Files.writeString(
          file,
          line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING);
    } catch (IOException e) {
      log.debug("cannot write {}: {}", file, e.getMessage());
    }
  }
}
