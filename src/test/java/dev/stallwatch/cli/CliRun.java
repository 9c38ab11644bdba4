package dev.stallwatch.cli;

import dev.stallwatch.main.StallwatchCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine;

/** One run of the stallwatch command line, in process: exit code, stdout, stderr, wall time. */
record CliRun(int exitCode, String out, String err, Duration took) {

  static CliRun of(String... args) {
    CommandLine cli = StallwatchCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    long start = System.nanoTime();
    int code = cli.execute(args);
    return new CliRun(
        code, out.toString(), err.toString(), Duration.ofNanos(System.nanoTime() - start));
  }

  /**
   * {@code diagnose -o json} of a dump at {@code now} with {@code stallAfter}, as fixtures hold.
   */
  static CliRun diagnoseJson(Path dump, String now, String stallAfter) {
    return of(
        "diagnose", "-f", dump.toString(), "--now", now, "--stall-after", stallAfter, "-o", "json");
  }

  @Override
  public String toString() {
    return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
  }
}
