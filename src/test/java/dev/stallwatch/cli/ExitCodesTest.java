package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

class ExitCodesTest {

  @Command(name = "probe")
  static final class Probe implements Runnable {
    @Override
    public void run() {}
  }

  private final StringWriter err = new StringWriter();
  private final CommandLine cli = new CommandLine(new Probe()).setErr(new PrintWriter(err));

  @Test
  void anUnexpectedWrapperNamesWhatWentWrongUnderneathInOneLine() {
    Exception wrapped =
        new IllegalStateException(
            "Error starting operator",
            new RuntimeException(
                "wrapper",
                new SecurityException("cannot create leases in namespace stallwatch-system")));

    int code = ExitCodes.handleExecutionException(wrapped, cli, null);

    assertThat(code).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString())
        .isEqualTo(
            "error: unexpected IllegalStateException: Error starting operator (caused by"
                + " SecurityException: cannot create leases in namespace stallwatch-system)"
                + System.lineSeparator());
  }

  @Test
  void aRootCauseWithoutAMessageIsNamedByItsClass() {
    Exception wrapped =
        new IllegalStateException(
            "Error starting operator",
            new java.util.concurrent.ExecutionException(
                new java.nio.channels.ClosedChannelException()));

    ExitCodes.handleExecutionException(wrapped, cli, null);

    assertThat(err.toString())
        .isEqualTo(
            "error: unexpected IllegalStateException: Error starting operator (caused by"
                + " ClosedChannelException)"
                + System.lineSeparator());
  }

  @Test
  void anInterruptIsAStopNotAnUnexpectedError() {
    int code = ExitCodes.handleExecutionException(new InterruptedException(), cli, null);
    Thread.interrupted(); // the handler re-asserts the flag; clear it for the next test

    assertThat(code).isEqualTo(ExitCodes.INTERRUPTED);
    assertThat(err.toString()).isEqualTo("stopped: interrupted" + System.lineSeparator());
  }

  @Test
  void anUnexpectedErrorWithoutACauseIsOneLineAsItIs() {
    int code = ExitCodes.handleExecutionException(new IllegalStateException("boom"), cli, null);

    assertThat(code).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString())
        .isEqualTo("error: unexpected IllegalStateException: boom" + System.lineSeparator());
  }

  @Test
  void anAccessProblemIsExitCodeThreeWithItsOwnMessage() {
    int code =
        ExitCodes.handleExecutionException(
            new ExitCodes.AccessException("cannot reach the cluster", null), cli, null);

    assertThat(code).isEqualTo(ExitCodes.ACCESS);
    assertThat(err.toString())
        .isEqualTo("error: cannot reach the cluster" + System.lineSeparator());
  }

  @Command(name = "hungry", exitCodeOnInvalidInput = ExitCodes.USAGE)
  static final class Hungry implements Runnable {
    @Override
    public void run() {
      throw new OutOfMemoryError("Java heap space");
    }
  }

  @Test
  void outOfMemoryIsTheCommandsErrorCodeWithAHintNeverOne() {
    CommandLine hungry = new CommandLine(new Hungry()).setErr(new PrintWriter(err));
    hungry.setExecutionStrategy(ExitCodes::execute);

    int code = hungry.execute();

    assertThat(code).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString())
        .startsWith("error: out of memory (Java heap limit ")
        .contains("Java heap space")
        .contains("-Xmx2g")
        .contains("STALLWATCH_JAVA_OPTS");
  }

  @Test
  void aStackOverflowAndOtherJvmErrorsAreOneLineToo() {
    assertThat(ExitCodes.describe(new StackOverflowError(), 256L << 20))
        .startsWith("stack overflow: the input nests too deeply")
        .contains("-Xss8m");
    assertThat(ExitCodes.describe(new NoClassDefFoundError("x/Y"), 256L << 20))
        .isEqualTo(
            "unexpected NoClassDefFoundError: x/Y (stallwatch could not finish: a bug or a broken"
                + " installation; please report it)");
    assertThat(ExitCodes.describe(new OutOfMemoryError(), 256L << 20))
        .startsWith("out of memory (Java heap limit 256 MiB); run with a larger heap");
  }
}
