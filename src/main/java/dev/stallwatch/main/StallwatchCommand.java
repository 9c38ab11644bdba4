package dev.stallwatch.main;

import dev.stallwatch.cli.ExitCodes;
import dev.stallwatch.demo.DemoCommand;
import picocli.CommandLine;

/**
 * Entry point of the CLI jar (target/stallwatch.jar): every face of stallwatch is a subcommand —
 * those of the operator image ({@link ImageCommand}) and {@code demo}.
 */
public final class StallwatchCommand {
  private StallwatchCommand() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The configured command line, shared by {@link #main} and tests. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new ImageCommand());
    cli.addSubcommand(new DemoCommand());
    return ExitCodes.configure(cli);
  }
}
