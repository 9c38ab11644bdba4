package dev.stallwatch.realcluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a process costs, read from {@code /proc} (Linux) and, for a JVM, from {@code jcmd}: resident
 * memory, CPU seconds (user + system), and the heap in use right after a full GC.
 */
public final class ProcessStats {
  /** Clock ticks per second of /proc/PID/stat's utime and stime (USER_HZ, 100 on Linux). */
  private static final double TICKS = 100.0;

  private static final Pattern HEAP_USED =
      Pattern.compile("(?:heap|Heap)\\s+total\\s+\\d+K,\\s+used\\s+(\\d+)K");

  /** The serial collector's two generations (no heap total line). */
  private static final Pattern GENERATION_USED =
      Pattern.compile("generation\\s+total\\s+\\d+K,\\s+used\\s+(\\d+)K");

  private ProcessStats() {}

  /** Resident set size in bytes (VmRSS). */
  public static long rssBytes(long pid) {
    return statusBytes(pid, "VmRSS:");
  }

  /** The largest resident set size the process has had so far, in bytes (VmHWM). */
  public static long peakRssBytes(long pid) {
    return statusBytes(pid, "VmHWM:");
  }

  private static long statusBytes(long pid, String field) {
    for (String line : read(Path.of("/proc", String.valueOf(pid), "status")).split("\n")) {
      if (line.startsWith(field)) {
        return Long.parseLong(line.replaceAll("\\D+", "")) * 1024;
      }
    }
    throw new IllegalStateException("no " + field + " for process " + pid);
  }

  /** Starts the peak resident set size (VmHWM) over from the current one (Linux clear_refs 5). */
  public static void resetPeakRss(long pid) {
    try {
      Files.writeString(Path.of("/proc", String.valueOf(pid), "clear_refs"), "5");
    } catch (IOException e) {
      throw new IllegalStateException("cannot reset the peak RSS of process " + pid, e);
    }
  }

  /**
   * The largest heap in use before a collection and after one, in bytes, among the collections of a
   * JVM's GC log ({@code -Xlog:gc:file=…:time,uptime}) up to {@code untilUptimeSeconds} of its
   * life.
   */
  static long[] heapPeaks(Path gcLog, double untilUptimeSeconds) {
    Pattern line =
        Pattern.compile("\\[(\\d+\\.\\d+)s\\].*?GC\\(\\d+\\) Pause.*? (\\d+)M->(\\d+)M\\(\\d+M\\)");
    long before = 0;
    long after = 0;
    for (String l : read(gcLog).split("\n")) {
      var m = line.matcher(l);
      if (m.find() && Double.parseDouble(m.group(1)) <= untilUptimeSeconds) {
        before = Math.max(before, Long.parseLong(m.group(2)) << 20);
        after = Math.max(after, Long.parseLong(m.group(3)) << 20);
      }
    }
    return new long[] {before, after};
  }

  /** The process's threads (/proc/PID/status). */
  public static int threads(long pid) {
    for (String line : read(Path.of("/proc", String.valueOf(pid), "status")).split("\n")) {
      if (line.startsWith("Threads:")) {
        return Integer.parseInt(line.replaceAll("\\D+", ""));
      }
    }
    throw new IllegalStateException("no Threads for process " + pid);
  }

  /** The process's open file descriptors (/proc/PID/fd). */
  static int openFiles(long pid) {
    String[] fds = Path.of("/proc", String.valueOf(pid), "fd").toFile().list();
    if (fds == null) {
      throw new IllegalStateException("cannot list the file descriptors of process " + pid);
    }
    return fds.length;
  }

  /**
   * Per thread of the process: nanoseconds on a CPU and nanoseconds runnable but waiting for one,
   * from {@code /proc/PID/task/TID/schedstat}, by thread id. A thread that ended since is missing.
   */
  static java.util.Map<String, long[]> threadSchedstat(long pid) {
    return perThread(
        pid,
        "schedstat",
        text -> {
          String[] f = text.trim().split(" ");
          return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
        });
  }

  /** The process's threads' names as the kernel keeps them (15 characters), by thread id. */
  static java.util.Map<String, String> threadNames(long pid) {
    return perThread(pid, "comm", String::trim);
  }

  /** {@code /proc/PID/task/TID/FILE} of every thread, parsed, by thread id. */
  private static <T> java.util.Map<String, T> perThread(
      long pid, String file, java.util.function.Function<String, T> parse) {
    java.util.Map<String, T> out = new java.util.HashMap<>();
    String[] tids = Path.of("/proc", String.valueOf(pid), "task").toFile().list();
    for (String tid : tids == null ? new String[0] : tids) {
      try {
        out.put(tid, parse.apply(read(Path.of("/proc", String.valueOf(pid), "task", tid, file))));
      } catch (RuntimeException gone) {
        // the thread ended between the listing and the read
      }
    }
    return out;
  }

  /** CPU seconds used so far, user plus system. */
  public static double cpuSeconds(long pid) {
    String stat = read(Path.of("/proc", String.valueOf(pid), "stat"));
    // the command name (field 2) may hold spaces: count fields after its closing parenthesis
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS; // utime, stime: fields 14, 15
  }

  /**
   * Runs a full GC in the JVM {@code pid} ({@code jcmd GC.run}) and returns the heap used after.
   */
  public static long heapAfterFullGc(long pid) {
    jcmd(pid, "GC.run");
    String info = jcmd(pid, "GC.heap_info");
    var m = HEAP_USED.matcher(info);
    if (m.find()) {
      return Long.parseLong(m.group(1)) * 1024;
    }
    long used = 0;
    int generations = 0;
    var g = GENERATION_USED.matcher(info);
    while (g.find()) {
      used += Long.parseLong(g.group(1)) * 1024;
      generations++;
    }
    if (generations == 0) {
      throw new IllegalStateException("no heap figure in jcmd GC.heap_info:\n" + info);
    }
    return used;
  }

  /** Writes what the JVM's flight recording {@code name} holds so far to {@code file}. */
  static void jfrDump(long pid, String name, Path file) {
    jcmd(pid, "JFR.dump name=" + name + " filename=" + file.toAbsolutePath());
  }

  private static String jcmd(long pid, String command) {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    RealCluster.Result r =
        RealCluster.Result.run(
            List.of(jcmd, String.valueOf(pid), command), Map.of(), Duration.ofMinutes(2));
    if (r.code() != 0) {
      throw new IllegalStateException("jcmd " + pid + " " + command + ": " + r.output());
    }
    return r.output();
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + p + " (has the process ended?)", e);
    }
  }
}
