package dev.stallwatch.realcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The tools {@code .ci/run} builds from Go modules in the background while the Java tier runs: for
 * each build script it queues, the folder {@code STALLWATCH_TOOL_BUILDS} holds {@code
 * SCRIPT.queued}, then {@code SCRIPT.log} and, when the script has ended, {@code SCRIPT.done} or
 * {@code SCRIPT.failed}. A real-tier test calls {@link #await(String)} before it looks for what a
 * script builds; without the variable, or for a script not queued, it returns at once (a laptop
 * builds its tools by hand).
 */
final class ToolBuilds {
  static final String ENV = "STALLWATCH_TOOL_BUILDS";

  /**
   * Longer than the whole queue takes cold on 2 cores beside the tests (32.8 min until the last
   * script, helm-build.sh, ended), so a test waiting for any script gives up only on a hung build.
   */
  static final Duration LIMIT = Duration.ofMinutes(45);

  private ToolBuilds() {}

  /** Waits until {@code script} (e.g. {@code build.sh}) has built what it builds, if queued. */
  static void await(String script) {
    String dir = System.getenv(ENV);
    if (dir != null && !dir.isBlank()) {
      await(script, Path.of(dir), LIMIT);
    }
  }

  static void await(String script, Path dir, Duration limit) {
    if (!Files.exists(dir.resolve(script + ".queued"))) {
      return;
    }
    Path done = dir.resolve(script + ".done");
    Path failed = dir.resolve(script + ".failed");
    Path log = dir.resolve(script + ".log");
    if (!Files.exists(done) && !Files.exists(failed)) {
      System.err.println(
          "realcluster: waiting for " + script + ", building in the background (log: " + log + ")");
      long start = System.nanoTime();
      try {
        Awaitility.await(script + " built in the background")
            .atMost(limit)
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(Math.min(1000, limit.toMillis() / 4)))
            .until(() -> Files.exists(done) || Files.exists(failed));
      } catch (ConditionTimeoutException e) {
        throw new IllegalStateException(
            script
                + " still building after "
                + limit
                + "; the end of its log "
                + log
                + ":\n"
                + tail(log),
            e);
      }
      System.err.printf(
          "realcluster: %s ready after %d s of waiting%n",
          script, Duration.ofNanos(System.nanoTime() - start).toSeconds());
    }
    if (Files.exists(failed)) {
      throw new IllegalStateException(
          script + " failed in the background; the end of its log " + log + ":\n" + tail(log));
    }
  }

  private static String tail(Path log) {
    if (!Files.exists(log)) {
      return "(no log)";
    }
    try {
      List<String> lines =
          new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList();
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
