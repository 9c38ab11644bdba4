package dev.stallwatch.main;

import dev.stallwatch.cli.DiagnoseCommand;
import dev.stallwatch.cli.ExitCodes;
import dev.stallwatch.cli.StatusCommand;
import dev.stallwatch.cli.UndoCommand;
import dev.stallwatch.cli.VersionProvider;
import dev.stallwatch.cli.WaitCommand;
import dev.stallwatch.operator.OperatorCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of the operator image (target/stallwatch-operator.jar, profile {@code image}): the
 * operator and the commands that read a cluster, without the demo — the image carries neither the
 * simulator nor the embedded API server. {@link StallwatchCommand} adds the demo for the CLI jar.
 */
@Command(
    name = "stallwatch",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Finds the node a DaemonSet rollout stopped on, says why, "
          + "and shows which nodes run which spec."
    },
    subcommands = {
      CommandLine.HelpCommand.class,
      DiagnoseCommand.class,
      StatusCommand.class,
      WaitCommand.class,
      UndoCommand.class,
      OperatorCommand.class
    })
public final class ImageCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The configured command line of the image. */
  public static CommandLine commandLine() {
    return ExitCodes.configure(new CommandLine(new ImageCommand()));
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
    throw new CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand");
  }
}
