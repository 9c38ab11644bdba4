package dev.stallwatch.cli;

import dev.stallwatch.main.StallwatchCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import picocli.CommandLine;

/**
 * One run of {@code status}, {@code wait} or {@code undo} in process on a given clock (a test's
 * virtual one, also the embedded cluster's): {@code wait} sleeps by {@code sleeper}, which may move
 * the clock and the cluster on, so nothing waits for the wall clock.
 */
final class ClockedCli {
  private ClockedCli() {}

  static CliRun run(Clock clock, RolloutWait.Sleeper sleeper, String... args) {
    CommandLine cli = StallwatchCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    Object command = cli.getSubcommands().get(args[0]).getCommand();
    if (command instanceof StatusCommand status) {
      status.basics.clock(clock);
    } else if (command instanceof WaitCommand wait) {
      wait.basics.clock(clock);
      if (sleeper != null) {
        wait.sleeper = sleeper;
      }
    } else if (command instanceof UndoCommand undo) {
      undo.basics.clock(clock);
    }
    long start = System.nanoTime();
    int code = cli.execute(args);
    return new CliRun(
        code, out.toString(), err.toString(), Duration.ofNanos(System.nanoTime() - start));
  }

  static CliRun run(Clock clock, String... args) {
    return run(clock, null, args);
  }
}
