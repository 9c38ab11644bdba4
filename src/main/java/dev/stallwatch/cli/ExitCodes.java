package dev.stallwatch.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * The exit codes every subcommand shares, so scripts and CI can rely on them.
 *
 * <p>0: nothing stalled / success. 1: at least one rollout stalled. 2: usage or input error (or,
 * for {@code wait}, a timeout). 3: the cluster could not be reached or refused access (and, for
 * {@code wait}, usage errors too: its {@code exitCodeOnInvalidInput}, which the handlers honour).
 * {@link #TABLE} says it per command; each command's help prints its rows ({@link #configure}).
 */
public final class ExitCodes {
  public static final int OK = 0;
  public static final int STALLED = 1;
  public static final int USAGE = 2;
  public static final int ACCESS = 3;

  /**
   * {@code wait}: {@code --timeout} passed before the rollout was Complete or Stalled — distinct
   * from Stalled, so CI can tell "slow" from "stuck".
   */
  public static final int TIMEOUT = 2;

  /** Stopped by an interrupt (Ctrl-C, SIGINT): 128 + 2, as a shell reports it. */
  public static final int INTERRUPTED = 130;

  /** One exit code of a command and when it is given ({@code \n}: the help wraps there). */
  public record Code(int code, String when) {}

  /**
   * Every command's exit codes: the one table its help footer, its tests and docs/reference/cli.md
   * follow.
   */
  public static final Map<String, List<Code>> TABLE =
      Map.of(
          "diagnose",
          List.of(
              new Code(OK, "no DaemonSet rollout is Stalled"),
              new Code(STALLED, "at least one rollout is Stalled"),
              new Code(
                  USAGE,
                  "usage or input error: a file or object could not be read (the rest is still\n"
                      + "reported), or no DaemonSet in the input matches -n / DAEMONSET; also any\n"
                      + "internal error, out of memory included (with a hint) - never 1")),
          "status",
          List.of(
              new Code(OK, "no DaemonSet rollout is Stalled"),
              new Code(STALLED, "at least one rollout is Stalled"),
              new Code(USAGE, "usage error, or the named DaemonSet does not exist"),
              new Code(ACCESS, "the cluster cannot be reached or refuses access")),
          "wait",
          List.of(
              new Code(OK, "the rollout is Complete"),
              new Code(
                  STALLED,
                  "the rollout is Stalled (node, cause, revisions and the undo command are printed)"),
              new Code(TIMEOUT, "--timeout passed first (where the rollout stood is printed)"),
              new Code(
                  ACCESS,
                  "usage error, DaemonSet not found, or the cluster cannot be reached or refuses"
                      + " access")),
          "undo",
          List.of(
              new Code(
                  OK,
                  "rolled back (or, with --dry-run, would roll back; or already at that revision)"),
              new Code(USAGE, "usage error, DaemonSet not found, or nothing to roll back to"),
              new Code(ACCESS, "the cluster cannot be reached or refuses access")));

  /** The help footer of {@code command}: its rows of {@link #TABLE}. */
  public static String[] footer(String command) {
    List<String> lines = new java.util.ArrayList<>(List.of("", "Exit codes:"));
    for (Code c : TABLE.getOrDefault(command, List.of())) {
      lines.add("  " + c.code() + "  " + c.when().replace("\n", "\n     "));
    }
    return String.join("\n", lines).split("\n");
  }

  private ExitCodes() {}

  /** Installs these exit codes and error handlers on a root command line; returns it. */
  public static CommandLine configure(CommandLine cli) {
    cli.getSubcommands()
        .forEach(
            (name, sub) -> {
              if (TABLE.containsKey(name)) {
                sub.getCommandSpec().usageMessage().footer(footer(name));
              }
            });
    cli.setExitCodeExceptionMapper(ExitCodes::forException);
    cli.setExecutionExceptionHandler(ExitCodes::handleExecutionException);
    cli.setParameterExceptionHandler(ExitCodes::handleParameterException);
    cli.setExecutionStrategy(ExitCodes::execute);
    return cli;
  }

  /**
   * Runs the parsed command as picocli's {@code RunLast} does, and turns a JVM error — out of
   * memory on a big dump, a stack overflow on absurdly nested input — into one line with a hint and
   * the command's error code (2 for {@code diagnose}), never the JVM's 1 ("stalled").
   */
  static int execute(ParseResult parsed) {
    try {
      return new CommandLine.RunLast().execute(parsed);
    } catch (Error e) {
      List<CommandLine> commands = parsed.asCommandLineList();
      CommandLine last = commands.get(commands.size() - 1);
      PrintWriter err = last.getErr();
      err.println("error: " + describe(e, Runtime.getRuntime().maxMemory()));
      err.flush();
      return last.getCommandSpec().exitCodeOnInvalidInput();
    }
  }

  /** One line for a JVM error, with what to do about it. */
  static String describe(Error e, long maxHeapBytes) {
    if (e instanceof OutOfMemoryError) {
      return "out of memory (Java heap limit "
          + maxHeapBytes / (1024 * 1024)
          + " MiB"
          + (e.getMessage() == null ? "" : ", " + e.getMessage())
          + "); run with a larger heap, e.g. java -Xmx2g -jar stallwatch.jar …"
          + " (kubectl plugin: STALLWATCH_JAVA_OPTS=-Xmx2g)";
    }
    if (e instanceof StackOverflowError) {
      return "stack overflow: the input nests too deeply to read; run with a larger stack,"
          + " e.g. java -Xss8m -jar stallwatch.jar … (kubectl plugin: STALLWATCH_JAVA_OPTS=-Xss8m)";
    }
    return "unexpected "
        + e.getClass().getSimpleName()
        + (e.getMessage() == null ? "" : ": " + e.getMessage())
        + " (stallwatch could not finish: a bug or a broken installation; please report it)";
  }

  static int forException(Throwable t) {
    return t instanceof AccessException ? ACCESS : USAGE;
  }

  /** One clear line on stderr for problems the user can fix; never a stack trace. */
  static int handleExecutionException(Exception ex, CommandLine cli, ParseResult parsed) {
    PrintWriter err = cli.getErr();
    if (ex instanceof InterruptedException) {
      // Being stopped is not a failure to explain (the demo, the operator on Ctrl-C).
      Thread.currentThread().interrupt();
      err.println("stopped: interrupted");
      err.flush();
      return INTERRUPTED;
    }
    if (ex instanceof UserException || ex instanceof AccessException) {
      err.println("error: " + ex.getMessage());
    } else {
      // An unexpected failure is still reported in one line; --debug-style traces belong in logs.
      err.println(
          "error: unexpected "
              + ex.getClass().getSimpleName()
              + ": "
              + ex.getMessage()
              + rootCause(ex));
    }
    err.flush();
    // A command may declare another code for bad input (wait uses 3, keeping 2 for its timeout).
    return ex instanceof AccessException ? ACCESS : cli.getCommandSpec().exitCodeOnInvalidInput();
  }

  // Wrappers such as JOSDK's "Error starting operator" hide what went wrong: name the root cause.
  private static String rootCause(Throwable ex) {
    Throwable root = ex;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root == ex || (root.getMessage() != null && root.getMessage().equals(ex.getMessage()))) {
      return "";
    }
    // A root without a message (a JDK ClosedChannelException, an NPE) is still named.
    return " (caused by "
        + root.getClass().getSimpleName()
        + (root.getMessage() == null ? "" : ": " + root.getMessage())
        + ")";
  }

  static int handleParameterException(CommandLine.ParameterException ex, String[] args) {
    CommandLine cli = ex.getCommandLine();
    PrintWriter err = cli.getErr();
    err.println("error: " + ex.getMessage());
    if (!CommandLine.UnmatchedArgumentException.printSuggestions(ex, err)) {
      err.println("Try '" + cli.getCommandSpec().qualifiedName() + " --help' for usage.");
    }
    err.flush();
    return cli.getCommandSpec().exitCodeOnInvalidInput();
  }

  /** A problem with what the user gave us (a flag, a file, an object in it). */
  public static class UserException extends RuntimeException {
    public UserException(String message) {
      super(message);
    }

    public UserException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The cluster could not be reached, or refused us. */
  public static class AccessException extends RuntimeException {
    public AccessException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
