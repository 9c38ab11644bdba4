package dev.stallwatch.operator;

import dev.stallwatch.cli.DurationParser;
import dev.stallwatch.operator.cache.RolloutEventSources;
import dev.stallwatch.realcluster.MemoryCgroup;
import dev.stallwatch.realcluster.OperatorProcess;
import dev.stallwatch.testing.EmbeddedFleet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What an operator process holds halfway through its first list of a fleet: serves {@link
 * EmbeddedFleet} (pages answered slowly, so that the middle of the list lasts), starts the given
 * jar's operator, and once half the pod pages have been served writes its threads with their locks
 * ({@code jcmd Thread.print -l}) and a class histogram of its live objects ({@code jcmd
 * GC.class_histogram}) to the output folder; then waits for the sync (or the process's end) and
 * writes a second histogram, the threads, the process's figures (and with {@code
 * -XX:NativeMemoryTracking} its native memory; with {@code --heap-dump FILE} a heap dump). {@code
 * --memory-limit 640m} runs it in a memory cgroup of that limit ({@link MemoryCgroup}) with no
 * -Xmx: the JVM then sizes itself as in the chart's pod. How docs/benchmarks.md's "initial list"
 * evidence was taken:
 *
 * <pre>
 * java -cp target/test-classes:target/classes:$(cat target/bench.classpath) \
 *   dev.stallwatch.operator.FleetListEvidence --jar target/stallwatch.jar --heap 512m \
 *   --nodes 2000 --daemonsets 10 --page-delay 100ms --out target/evidence
 * </pre>
 */
public final class FleetListEvidence {
  private FleetListEvidence() {}

  public static void main(String[] args) throws Exception {
    Path jar = Path.of("target/stallwatch.jar");
    String heap = "512m";
    int nodes = 2000;
    int daemonSets = 10;
    Duration delay = Duration.ofMillis(100);
    Path out = Path.of("target/evidence");
    List<String> namespaces = List.of("fleet");
    List<String> jvm = new ArrayList<>();
    Path heapDump = null;
    long memoryLimit = 0;
    long page = RolloutEventSources.LIST_PAGE;
    for (int i = 0; i < args.length; i += 2) {
      String v = args[i + 1];
      switch (args[i]) {
        case "--jar" -> jar = Path.of(v);
        case "--heap" -> heap = v;
        case "--nodes" -> nodes = Integer.parseInt(v);
        case "--daemonsets" -> daemonSets = Integer.parseInt(v);
        case "--page-delay" -> delay = DurationParser.parse(v);
        case "--namespaces" -> namespaces = List.of(v.split(","));
        case "--out" -> out = Path.of(v);
        case "--jvm" -> jvm.add(v);
        case "--page" -> page = Long.parseLong(v); // an older operator asked 500 a page
        case "--heap-dump" -> heapDump = Path.of(v).toAbsolutePath();
        case "--memory-limit" -> memoryLimit = MemoryCgroup.bytes(v);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Files.createDirectories(out);
    try (EmbeddedFleet fleet = new EmbeddedFleet(nodes, daemonSets, namespaces, page, delay)) {
      List<String> flags = new ArrayList<>(List.of("--stall-after=5m"));
      if (namespaces.size() > 1) {
        flags.add("--namespaces=" + String.join(",", namespaces));
      }
      MemoryCgroup cgroup =
          memoryLimit > 0 ? MemoryCgroup.create("stallwatch-evidence", memoryLimit) : null;
      try (OperatorProcess operator =
          OperatorProcess.start(
              jar,
              fleet.kubeconfig(out.resolve("kubeconfig")),
              out.resolve("operator.log"),
              "stallwatch-evidence",
              memoryLimit > 0
                  ? jvm
                  : Stream.concat(Stream.of("-Xmx" + heap), jvm.stream()).toList(),
              cgroup,
              flags.toArray(String[]::new))) {
        long t0 = System.nanoTime();
        while (fleet.podPagesServed() < fleet.podPages() / 2 && operator.alive()) {
          TimeUnit.MILLISECONDS.sleep(100);
        }
        System.out.printf(
            "%d of %d pod pages served after %.1f s%n",
            fleet.podPagesServed(), fleet.podPages(), (System.nanoTime() - t0) / 1e9);
        jcmd(operator.pid(), out.resolve("threads-mid-list.txt"), "Thread.print", "-l");
        jcmd(operator.pid(), out.resolve("histogram-mid-list.txt"), "GC.class_histogram");
        while (!operator.ready() && operator.alive()) {
          TimeUnit.MILLISECONDS.sleep(200);
        }
        System.out.printf(
            "%s after %.1f s%n",
            operator.alive() ? "synced" : "exited", (System.nanoTime() - t0) / 1e9);
        if (operator.alive()) {
          jcmd(operator.pid(), out.resolve("histogram-synced.txt"), "GC.class_histogram");
          jcmd(operator.pid(), out.resolve("threads-synced.txt"), "Thread.print");
          if (jvm.stream().anyMatch(f -> f.startsWith("-XX:NativeMemoryTracking"))) {
            jcmd(
                operator.pid(),
                out.resolve("native-memory-synced.txt"),
                "VM.native_memory",
                "summary");
          }
          Files.writeString(
              out.resolve("process-synced.txt"),
              String.format(
                      "sync %.1f s%%ncpu %.1f s%%nrss %.1f MiB%%npeak rss %.1f MiB%%nthreads %d%%n",
                      (System.nanoTime() - t0) / 1e9,
                      dev.stallwatch.realcluster.ProcessStats.cpuSeconds(operator.pid()),
                      dev.stallwatch.realcluster.ProcessStats.rssBytes(operator.pid()) / 1048576.0,
                      dev.stallwatch.realcluster.ProcessStats.peakRssBytes(operator.pid())
                          / 1048576.0,
                      dev.stallwatch.realcluster.ProcessStats.threads(operator.pid()))
                  + (cgroup == null
                      ? ""
                      : String.format(
                          "cgroup peak %.1f MiB%%nlimit hits %d%%n",
                          cgroup.peakBytes() / 1048576.0, cgroup.limitHits())));
          if (heapDump != null) {
            jcmd(operator.pid(), out.resolve("heap-dump.txt"), "GC.heap_dump", heapDump.toString());
          }
        }
      } finally {
        if (cgroup != null) {
          cgroup.close();
        }
      }
    }
    System.exit(0);
  }

  private static void jcmd(long pid, Path file, String... command)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    cmd.add(String.valueOf(pid));
    cmd.addAll(List.of(command));
    new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(file.toFile())
        .start()
        .waitFor();
    System.out.println("wrote " + file);
  }
}
