package dev.stallwatch.realcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A memory cgroup of its own for a process, with a limit, as a container's: the JVM sizes its heap
 * from the limit ({@code -XX:MaxRAMPercentage}) and picks its collector by it as it does in the
 * chart's pod, and the kernel ends the process at the limit as the kubelet's OOM kill would. Made
 * under this process's own memory cgroup (v1 or v2); {@link #available()} says whether the machine
 * lets us (root, a writable hierarchy).
 */
public final class MemoryCgroup implements AutoCloseable {
  private final Path dir;
  private final boolean v2;

  private MemoryCgroup(Path dir, boolean v2) {
    this.dir = dir;
    this.v2 = v2;
  }

  /** Where this process's memory cgroup is, if it can hold a child of ours. */
  static Optional<Path> parent() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
        String[] f = line.split(":", 3);
        if (f.length == 3 && f[1].equals("memory")) {
          Path p = Path.of("/sys/fs/cgroup/memory" + f[2]);
          return Files.isWritable(p) ? Optional.of(p) : Optional.empty();
        }
        if (f.length == 3 && f[0].equals("0") && f[1].isEmpty()) {
          Path p = Path.of("/sys/fs/cgroup" + f[2]);
          if (Files.exists(p.resolve("memory.max"))
              || Files.exists(p.resolve("cgroup.controllers"))) {
            return Files.isWritable(p) ? Optional.of(p) : Optional.empty();
          }
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  /** A size as Kubernetes and the JVM write it (640Mi, 1Gi, 512m, 2g, or bytes), in bytes. */
  public static long bytes(String size) {
    String s = size.trim().toLowerCase(java.util.Locale.ROOT).replace("i", "");
    long unit =
        switch (s.charAt(s.length() - 1)) {
          case 'k' -> 1L << 10;
          case 'm' -> 1L << 20;
          case 'g' -> 1L << 30;
          default -> 1;
        };
    return Long.parseLong(unit == 1 ? s : s.substring(0, s.length() - 1)) * unit;
  }

  /** Whether a memory cgroup can be made here. */
  public static boolean available() {
    return parent().isPresent();
  }

  /** A new cgroup {@code name} limited to {@code limitBytes}. */
  public static MemoryCgroup create(String name, long limitBytes) {
    Path parent =
        parent().orElseThrow(() -> new IllegalStateException("no writable memory cgroup"));
    boolean v2 = !parent.toString().startsWith("/sys/fs/cgroup/memory");
    Path dir = parent.resolve(name);
    try {
      if (Files.isDirectory(dir)) {
        Files.delete(dir); // left by an earlier run; empty, or this fails
      }
      Files.createDirectory(dir);
      write(dir.resolve(v2 ? "memory.max" : "memory.limit_in_bytes"), String.valueOf(limitBytes));
      if (!v2) {
        // no swap: the limit is the limit
        Path swap = dir.resolve("memory.memsw.limit_in_bytes");
        if (Files.exists(swap)) {
          write(swap, String.valueOf(limitBytes));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot make the memory cgroup " + dir, e);
    }
    return new MemoryCgroup(dir, v2);
  }

  /** {@code command}, run inside this cgroup (a shell moves itself in, then becomes it). */
  public List<String> wrap(List<String> command) {
    List<String> wrapped = new ArrayList<>(List.of("sh", "-c", "echo $$ > \"$0\" && exec \"$@\""));
    wrapped.add(dir.resolve("cgroup.procs").toString());
    wrapped.addAll(command);
    return wrapped;
  }

  /** The most memory the cgroup's processes have used (page cache included), in bytes. */
  public long peakBytes() {
    return read(dir.resolve(v2 ? "memory.peak" : "memory.max_usage_in_bytes"));
  }

  /** Starts {@link #peakBytes()} over from the current use (v1; v2 cannot, and keeps its peak). */
  public void resetPeak() {
    if (!v2) {
      try {
        write(dir.resolve("memory.max_usage_in_bytes"), "0");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The limit, in bytes. */
  public long limitBytes() {
    return read(dir.resolve(v2 ? "memory.max" : "memory.limit_in_bytes"));
  }

  /** How often the limit was hit (v1's failcnt; v2's oom events). */
  public long limitHits() {
    if (v2) {
      try {
        for (String line : Files.readAllLines(dir.resolve("memory.events"))) {
          if (line.startsWith("max ")) {
            return Long.parseLong(line.substring(4).trim());
          }
        }
      } catch (IOException e) {
        return -1;
      }
      return 0;
    }
    return read(dir.resolve("memory.failcnt"));
  }

  private static long read(Path file) {
    try {
      return Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).trim());
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  private static void write(Path file, String value) throws IOException {
    Files.writeString(file, value, StandardCharsets.UTF_8);
  }

  /** Removes the cgroup; its processes must have ended. */
  @Override
  public void close() {
    try {
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      // a process still in it: the next create of the same name reports it
    }
  }
}
