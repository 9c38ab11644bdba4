package dev.stallwatch.cli;

import dev.stallwatch.demo.DemoCommand;
import dev.stallwatch.operator.OperatorCommand;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the one jar: every face of stallwatch is a subcommand. */
@Command(
    name = "stallwatch",
    mixinStandardHelpOptions = true,
    versionProvider = StallwatchCommand.Version.class,
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
      OperatorCommand.class,
      DemoCommand.class
    })
public final class StallwatchCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The configured command line, shared by {@link #main} and tests. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new StallwatchCommand());
    cli.setExitCodeExceptionMapper(ExitCodes::forException);
    cli.setExecutionExceptionHandler(ExitCodes::handleExecutionException);
    cli.setParameterExceptionHandler(ExitCodes::handleParameterException);
    cli.setExecutionStrategy(ExitCodes::execute);
    return cli;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getErr());
    throw new CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand");
  }

  /** Reads the version that Maven filtered into the jar. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties props = new Properties();
      try (InputStream in =
          StallwatchCommand.class.getResourceAsStream("/dev/stallwatch/version.properties")) {
        if (in != null) {
          props.load(in);
        }
      }
      return new String[] {
        "stallwatch " + props.getProperty("version", "unknown"),
        "Java " + System.getProperty("java.version")
      };
    }
  }
}
