package dev.stallwatch.realcluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A server binary the tests start as a child process: output appended to a log, no stdin, stopped
 * by {@link #close()} (SIGTERM, SIGKILL after 10 s) and, should the test JVM end first, by a
 * shutdown hook.
 */
final class ChildProcess implements AutoCloseable {
  private final Process process;
  private final Path log;
  private final Thread hook;

  private ChildProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
    this.hook =
        new Thread(
            () -> {
              process.descendants().forEach(ProcessHandle::destroyForcibly);
              process.destroyForcibly();
            });
    Runtime.getRuntime().addShutdownHook(hook);
  }

  static ChildProcess start(List<String> command, Path log) {
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    try {
      return new ChildProcess(pb.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException("starting " + String.join(" ", command), e);
    }
  }

  /** The first executable of {@code names} on the PATH. */
  static Optional<Path> onPath(String... names) {
    for (String name : names) {
      for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
        Path candidate = Path.of(dir, name);
        if (!dir.isEmpty() && Files.isExecutable(candidate)) {
          return Optional.of(candidate);
        }
      }
    }
    return Optional.empty();
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** The log so far, for assertion messages. */
  String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** The processes it started (a wrapper's payload), for a look at their /proc entries. */
  Stream<ProcessHandle> descendants() {
    return process.descendants();
  }

  /**
   * SIGTERM to the whole tree, children first (a wrapper such as bwrap forwards no signal); SIGKILL
   * to whatever still runs 10 s later.
   */
  @Override
  public void close() {
    List<ProcessHandle> tree = process.descendants().toList();
    tree.forEach(ProcessHandle::destroy);
    process.destroy();
    for (ProcessHandle p : Stream.concat(Stream.of(process.toHandle()), tree.stream()).toList()) {
      try {
        p.onExit().get(10, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
        p.destroyForcibly();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
  }
}
