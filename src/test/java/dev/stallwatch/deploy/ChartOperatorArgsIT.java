package dev.stallwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.main.StallwatchCommand;
import dev.stallwatch.operator.OperatorCommand;
import dev.stallwatch.operator.OperatorSettings;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The chart's container args, parsed by the real {@code stallwatch operator} command line. */
@NativeHelm
class ChartOperatorArgsIT {

  @Test
  void defaultArgsGiveTheOperatorsDefaults() {
    OperatorSettings settings = operatorSettings(RenderedChart.renderDefaults());

    assertThat(settings.allNamespaces()).isTrue();
    assertThat(settings.stallAfter()).isEqualTo(Duration.ofMinutes(5));
    assertThat(settings.resolvedTtl()).isEqualTo(Duration.ofHours(24));
    assertThat(settings.metricsPort()).isEqualTo(8080);
    assertThat(settings.leaderElection()).isFalse();
    assertThat(settings.advancedDaemonSets()).isFalse();
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
                        .set("replicas", 2)
                        .set("operator.labelAllowlist[0]", "team")
                        .set("operator.labelAllowlist[1]", "example.com/owner")
                        .set("advancedDaemonSets.enabled", true)));

    assertThat(settings.namespaces()).containsExactlyInAnyOrder("gpu-operator", "kube-system");
    assertThat(settings.stallAfter()).isEqualTo(Duration.ofMinutes(90));
    assertThat(settings.resolvedTtl()).isEqualTo(Duration.ofDays(2));
    assertThat(settings.metricsPort()).isEqualTo(9090);
    assertThat(settings.leaderElection()).isTrue();
    assertThat(settings.leaderElectionNamespace()).isEqualTo(RenderedChart.NAMESPACE);
    assertThat(settings.routingLabels().keys()).containsExactly("team", "example.com/owner");
    assertThat(settings.advancedDaemonSets()).isTrue();
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

  @Test
  void leaseRoleGrantsWhatLeaderElectionDoesInTheLeaseNamespaceOnly() {
    for (String leaseNamespace : List.of("", "kube-system")) {
      RenderedChart chart =
          RenderedChart.render(
              t ->
                  t.set("leaderElection.enabled", true)
                      .set("replicas", 2)
                      .set("leaderElection.namespace", leaseNamespace));
      String expectedNamespace =
          leaseNamespace.isEmpty() ? RenderedChart.NAMESPACE : leaseNamespace;
      List<RenderedChart.GrantedRule> leaseRules =
          chart.rules().stream().filter(r -> r.covers("coordination.k8s.io", "leases")).toList();

      assertThat(leaseRules)
          .allSatisfy(
              r -> {
                assertThat(r.role().getKind()).isEqualTo("Role");
                assertThat(r.role().getMetadata().getNamespace()).isEqualTo(expectedNamespace);
              });
      // As JOSDK checks it before it starts (a SelfSubjectRulesReview): rules that name no
      // object or name the Lease.
      List<String> verbs =
          leaseRules.stream()
              .map(RenderedChart.GrantedRule::rule)
              .filter(
                  r ->
                      r.getResourceNames().isEmpty()
                          || r.getResourceNames().contains(OperatorSettings.LEASE_NAME))
              .flatMap(r -> r.getVerbs().stream())
              .toList();
      // JOSDK requires get, create, update; fabric8 renews with a JSON merge patch.
      assertThat(verbs).contains("get", "create", "update", "patch").doesNotContain("*");
      // create cannot be limited to a name (the object does not exist yet); the rest is.
      assertThat(leaseRules)
          .filteredOn(r -> r.rule().getResourceNames().isEmpty())
          .allSatisfy(r -> assertThat(r.rule().getVerbs()).containsExactly("create"));

      RoleBinding binding =
          chart.all(RoleBinding.class).stream()
              .filter(b -> b.getMetadata().getName().endsWith("-leader-election"))
              .findFirst()
              .orElseThrow();
      assertThat(binding.getMetadata().getNamespace()).isEqualTo(expectedNamespace);
      assertThat(binding.getRoleRef().getName())
          .isEqualTo(leaseRules.get(0).role().getMetadata().getName());
      assertThat(binding.getSubjects())
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.getKind()).isEqualTo("ServiceAccount");
                assertThat(s.getNamespace()).isEqualTo(RenderedChart.NAMESPACE);
                assertThat(s.getName())
                    .isEqualTo(
                        chart
                            .deployment()
                            .getSpec()
                            .getTemplate()
                            .getSpec()
                            .getServiceAccountName());
              });
      assertThat(operatorSettings(chart).leaderElectionNamespace()).isEqualTo(expectedNamespace);
    }
  }

  @Test
  void withoutLeaderElectionNothingGrantsLeases() {
    assertThat(RenderedChart.renderDefaults().rules())
        .noneMatch(r -> r.covers("coordination.k8s.io", "leases"));
  }

  @Test
  void thePodNameReachesTheOperatorAsItsLeaseIdentity() {
    List<EnvVar> env =
        RenderedChart.render(t -> t.set("leaderElection.enabled", true))
            .deployment()
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0)
            .getEnv();

    assertThat(env)
        .filteredOn(e -> e.getName().equals("POD_NAME"))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getValueFrom().getFieldRef().getFieldPath())
                    .isEqualTo("metadata.name"));
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
