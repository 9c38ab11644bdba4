package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.stallwatch.cli.ExitCodes;
import dev.stallwatch.main.StallwatchCommand;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class OperatorCommandTest {
  private OperatorCommand parse(String... args) {
    OperatorCommand command = new OperatorCommand();
    new CommandLine(command).parseArgs(args);
    return command;
  }

  @Test
  void defaultsMatchTheDocumentedOnes() {
    OperatorSettings s = parse().settings();
    assertThat(s.allNamespaces()).isTrue();
    assertThat(s.stallAfter()).isEqualTo(Duration.ofMinutes(5));
    assertThat(s.resolvedTtl()).isEqualTo(Duration.ofHours(24));
    assertThat(s.metricsPort()).isEqualTo(8080);
    assertThat(s.leaderElection()).isFalse();
  }

  @Test
  void flagsOverrideTheDefaults() {
    OperatorSettings s =
        parse(
                "--namespaces",
                "gpu-operator, kube-system",
                "--stall-after",
                "90s",
                "--resolved-ttl",
                "1h",
                "--metrics-port",
                "9090",
                "--leader-election",
                "--leader-election-namespace",
                "stallwatch",
                "--label-allowlist",
                "team, app.kubernetes.io/part-of,team")
            .settings();
    assertThat(s.routingLabels().keys()).containsExactly("team", "app.kubernetes.io/part-of");
    assertThat(s.namespaces()).containsExactlyInAnyOrder("gpu-operator", "kube-system");
    assertThat(s.stallAfter()).isEqualTo(Duration.ofSeconds(90));
    assertThat(s.resolvedTtl()).isEqualTo(Duration.ofHours(1));
    assertThat(s.metricsPort()).isEqualTo(9090);
    assertThat(s.leaderElection()).isTrue();
    assertThat(s.leaderElectionNamespace()).isEqualTo("stallwatch");
  }

  @Test
  void badValuesAreOneClearUsageError() {
    assertThatThrownBy(() -> parse("--stall-after", "0s").settings())
        .isInstanceOf(ExitCodes.UserException.class)
        .hasMessageContaining("--stall-after must be a positive duration");
    assertThatThrownBy(() -> parse("--namespaces", "Bad_NS").settings())
        .hasMessageContaining("'Bad_NS' is not a valid namespace name");
    assertThatThrownBy(() -> parse("--metrics-port", "70000").settings())
        .hasMessageContaining("--metrics-port must be between 0 and 65535");
    assertThatThrownBy(
            () -> parse("--leader-election", "--leader-election-namespace", "").settings())
        .hasMessageContaining("--leader-election needs --leader-election-namespace");
    assertThatThrownBy(() -> parse("--label-allowlist", "team,cost center").settings())
        .isInstanceOf(ExitCodes.UserException.class)
        .hasMessageContaining("--label-allowlist: 'cost center' is not a label key");
  }

  @Test
  void anUnreadableDurationExitsWithUsageAndNamesTheFlag() {
    CommandLine cli = StallwatchCommand.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err));
    int code = cli.execute("operator", "--stall-after", "soon");
    assertThat(code).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("--stall-after").contains("\"soon\" is not a duration");
  }

  @Test
  void anUnknownLogFormatIsRejected() {
    CommandLine cli = StallwatchCommand.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err));
    assertThat(cli.execute("operator", "--log-format", "xml")).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("--log-format").contains("xml");
  }

  /**
   * Runs {@code stallwatch operator} in process against {@code config}, metrics on any port; fails
   * (instead of hanging) should the operator start and run.
   */
  static Run operator(Config config, String... args) {
    return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> runOperator(config, args));
  }

  private static Run runOperator(Config config, String... args) {
    CommandLine cli = StallwatchCommand.commandLine();
    ((OperatorCommand) cli.getSubcommands().get("operator").getCommand()).config = config;
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    List<String> all = new ArrayList<>(List.of("operator", "--metrics-port", "0"));
    all.addAll(List.of(args));
    long start = System.nanoTime();
    int code = cli.execute(all.toArray(String[]::new));
    return new Run(code, err.toString(), Duration.ofNanos(System.nanoTime() - start));
  }

  record Run(int exitCode, String err, Duration took) {}

  @Test
  void anUnreachableClusterIsOneLineAndExitThreeWithinSeconds() {
    Config dead = new ConfigBuilder().withMasterUrl("http://127.0.0.1:1").build();

    Run run = operator(dead);

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.ACCESS);
    assertThat(run.err())
        .isEqualTo("error: cannot reach the cluster at http://127.0.0.1:1/: ConnectException\n");
    // A hang guard, not a timing: the client's retries with backoff (10 × doubling from 100 ms)
    // would take well over a minute; 30 s leaves room for a loaded CI machine (5 s did not).
    assertThat(run.took()).isLessThan(Duration.ofSeconds(30));
  }
}
