package dev.stallwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.cli.StallwatchCommand;
import dev.stallwatch.operator.OperatorCommand;
import dev.stallwatch.operator.OperatorSettings;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The chart's container args, parsed by the real {@code stallwatch operator} command line. */
class ChartOperatorArgsTest {

  @Test
  void defaultArgsGiveTheOperatorsDefaults() {
    OperatorSettings settings = operatorSettings(RenderedChart.renderDefaults());

    assertThat(settings.allNamespaces()).isTrue();
    assertThat(settings.stallAfter()).isEqualTo(Duration.ofMinutes(5));
    assertThat(settings.resolvedTtl()).isEqualTo(Duration.ofHours(24));
    assertThat(settings.metricsPort()).isEqualTo(8080);
    assertThat(settings.leaderElection()).isFalse();
  }

  @Test
  void chartValuesReachTheOperatorSettings() {
    OperatorSettings settings =
        operatorSettings(
            RenderedChart.render(
                t ->
                    t.set("operator.namespaces[0]", "gpu-operator")
                        .set("operator.namespaces[1]", "kube-system")
                        .set("operator.stallAfter", "1h30m")
                        .set("operator.resolvedTtl", "2d")
                        .set("metrics.port", 9090)
                        .set("leaderElection.enabled", true)
                        .set("replicas", 2)));

    assertThat(settings.namespaces()).containsExactlyInAnyOrder("gpu-operator", "kube-system");
    assertThat(settings.stallAfter()).isEqualTo(Duration.ofMinutes(90));
    assertThat(settings.resolvedTtl()).isEqualTo(Duration.ofDays(2));
    assertThat(settings.metricsPort()).isEqualTo(9090);
    assertThat(settings.leaderElection()).isTrue();
    assertThat(settings.leaderElectionNamespace()).isEqualTo(RenderedChart.NAMESPACE);
  }

  @Test
  void leaseRoleNamesTheLeaseTheOperatorHolds() {
    Role lease =
        RenderedChart.render(t -> t.set("leaderElection.enabled", true)).all(Role.class).stream()
            .filter(r -> r.getMetadata().getName().endsWith("-leader-election"))
            .findFirst()
            .orElseThrow();

    assertThat(lease.getRules())
        .anySatisfy(
            r -> assertThat(r.getResourceNames()).containsExactly(OperatorSettings.LEASE_NAME));
  }

  private static OperatorSettings operatorSettings(RenderedChart chart) {
    List<String> args =
        chart.deployment().getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
    CommandLine.ParseResult parsed =
        StallwatchCommand.commandLine().parseArgs(args.toArray(String[]::new));

    assertThat(parsed.subcommand()).as("subcommand of %s", args).isNotNull();
    Object command = parsed.subcommand().commandSpec().userObject();
    assertThat(command).isInstanceOf(OperatorCommand.class);
    return ((OperatorCommand) command).settings();
  }
}
