package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stallwatch.cli.ExitCodes;
import dev.stallwatch.cli.StallwatchCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
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
                "stallwatch")
            .settings();
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
}
