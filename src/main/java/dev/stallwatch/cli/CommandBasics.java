package dev.stallwatch.cli;

import java.io.PrintWriter;
import java.time.Clock;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every subcommand shares, as a picocli mixin: its command line (output, error stream, usage
 * errors) and the clock it reads the time from — the system's, or one a test or an embedding
 * program sets with {@link #clock(Clock)}.
 */
@Command // a mixin: adds no option, only what its fields hold
public final class CommandBasics {
  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  private Clock clock = Clock.systemUTC();

  CommandLine commandLine() {
    return spec.commandLine();
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  Clock clock() {
    return clock;
  }

  /** Reads the time from {@code c} instead of the system clock. */
  public void clock(Clock c) {
    this.clock = c;
  }
}
