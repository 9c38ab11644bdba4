package dev.stallwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import dev.stallwatch.operator.OperatorSettings;
import dev.stallwatch.operator.StartupCheck;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

@NativeHelm
class HelmChartIT {

  private static final Path ALL_FEATURES =
      RenderedChart.CHART.resolve("ci/all-features-values.yaml");
  private static final Set<String> WRITE_VERBS =
      Set.of("create", "update", "patch", "delete", "deletecollection", "*");

  @Test
  void chartPassesStrictLint() {
    LintResult result = new Helm(RenderedChart.CHART).lint().strict().call();

    assertThat(result.isFailed()).as("helm lint --strict: %s", result.getMessages()).isFalse();
  }

  @Test
  void defaultsRenderOnlyTheOperatorItsRbacAndTheMetricsService() {
    RenderedChart chart = RenderedChart.renderDefaults();

    assertThat(chart.kinds())
        .containsExactly(
            "ClusterRole",
            "ClusterRole",
            "ClusterRoleBinding",
            "Deployment",
            "Service",
            "ServiceAccount");
    assertThat(chart.deployment().getSpec().getReplicas()).isEqualTo(1);
    assertThat(chart.deployment().getSpec().getStrategy().getType()).isEqualTo("Recreate");
  }

  @Test
  void allFeaturesRenderMonitoringObjectsPerNamespaceRolesAndTheLeaseRole() {
    RenderedChart chart = RenderedChart.render(t -> t.withValuesFile(ALL_FEATURES));

    assertThat(chart.kinds())
        .containsExactly(
            "ClusterRole",
            "ClusterRole",
            "ClusterRoleBinding",
            "ConfigMap",
            "Deployment",
            "PodDisruptionBudget",
            "PrometheusRule",
            "Role",
            "Role",
            "Role",
            "RoleBinding",
            "RoleBinding",
            "RoleBinding",
            "Service",
            "ServiceAccount",
            "ServiceMonitor");
    assertThat(chart.deployment().getSpec().getReplicas()).isEqualTo(2);
    assertThat(chart.deployment().getSpec().getStrategy().getType()).isEqualTo("RollingUpdate");
  }

  @Test
  void defaultOperatorArgsFollowTheOperatorFlags() {
    Container operator = container(RenderedChart.renderDefaults());

    assertThat(operator.getArgs())
        .containsExactly(
            "operator",
            "--stall-after=5m",
            "--resolved-ttl=24h",
            "--metrics-port=8080",
            "--log-level=info",
            "--log-format=json");
    assertThat(operator.getImage()).isEqualTo("ghcr.io/stallwatch/stallwatch:" + projectVersion());
    assertThat(operator.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("POD_NAMESPACE");
              assertThat(e.getValueFrom().getFieldRef().getFieldPath())
                  .isEqualTo("metadata.namespace");
            });
  }

  @Test
  void nonDefaultValuesReachTheOperatorAndThePod() {
    RenderedChart chart = RenderedChart.render(t -> t.withValuesFile(ALL_FEATURES));
    Container operator = container(chart);
    PodSpec pod = chart.deployment().getSpec().getTemplate().getSpec();

    assertThat(operator.getArgs())
        .containsExactly(
            "operator",
            "--namespaces=gpu-operator,kube-system",
            "--stall-after=10m",
            "--resolved-ttl=72h",
            "--metrics-port=9090",
            "--log-level=debug",
            "--log-format=text",
            "--label-allowlist=team,app.kubernetes.io/part-of",
            "--leader-election",
            "--leader-election-namespace=stallwatch-system",
            "--auto-rollback",
            "--auto-rollback-after=20m",
            "--advanced-daemonsets",
            "--daemonset-conditions",
            "--some-future-flag=1");
    assertThat(operator.getImage())
        .isEqualTo(
            "registry.example.com/platform/stallwatch@sha256:"
                + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    assertThat(operator.getImagePullPolicy()).isEqualTo("Always");
    assertThat(operator.getEnv()).anyMatch(e -> e.getName().equals("JAVA_TOOL_OPTIONS"));
    assertThat(operator.getPorts().get(0).getContainerPort()).isEqualTo(9090);
    assertThat(pod.getImagePullSecrets()).extracting("name").containsExactly("regcred");
    assertThat(pod.getServiceAccountName()).isEqualTo("rollout-watcher");
    assertThat(pod.getPriorityClassName()).isEqualTo("system-cluster-critical");
    assertThat(pod.getNodeSelector()).containsEntry("kubernetes.io/os", "linux");
    assertThat(pod.getTolerations())
        .extracting("key")
        .containsExactly("node-role.kubernetes.io/control-plane");
    assertThat(pod.getAffinity().getNodeAffinity()).isNotNull();
    assertThat(chart.deployment().getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry("team", "platform");
    assertThat(chart.deployment().getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("example.com/scrape", "false");
  }

  @Test
  void aStandbyGetsADisruptionBudgetAndPrefersAnotherNode() {
    RenderedChart chart =
        RenderedChart.render(t -> t.set("replicas", 2).set("leaderElection.enabled", true));

    PodDisruptionBudget pdb = chart.one(PodDisruptionBudget.class);
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
    Map<String, String> podLabels =
        chart.deployment().getSpec().getTemplate().getMetadata().getLabels();
    assertThat(podLabels).containsAllEntriesOf(pdb.getSpec().getSelector().getMatchLabels());
    var affinity = chart.deployment().getSpec().getTemplate().getSpec().getAffinity();
    assertThat(affinity.getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getPodAffinityTerm().getTopologyKey())
                  .isEqualTo("kubernetes.io/hostname");
              assertThat(podLabels)
                  .containsAllEntriesOf(p.getPodAffinityTerm().getLabelSelector().getMatchLabels());
            });
    // Required, not preferred, would leave a one-node cluster without its standby.
    assertThat(affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())
        .isNullOrEmpty();
  }

  @Test
  void ownAffinityReplacesTheDefaultAndTheDisruptionBudgetCanBeTurnedOff() {
    // all-features: 2 replicas and a node affinity of its own.
    RenderedChart own =
        RenderedChart.render(
            t -> t.withValuesFile(ALL_FEATURES).set("podDisruptionBudget.enabled", false));
    assertThat(own.all(PodDisruptionBudget.class)).isEmpty();
    var affinity = own.deployment().getSpec().getTemplate().getSpec().getAffinity();
    assertThat(affinity.getPodAntiAffinity()).isNull();
    assertThat(affinity.getNodeAffinity()).isNotNull();

    RenderedChart single = RenderedChart.renderDefaults();
    assertThat(single.all(PodDisruptionBudget.class)).isEmpty();
    assertThat(single.deployment().getSpec().getTemplate().getSpec().getAffinity()).isNull();
  }

  @Test
  void moreThanOneReplicaWithoutLeaderElectionIsRefused() {
    assertThatThrownBy(() -> RenderedChart.render(t -> t.set("replicas", 3)))
        .hasMessageContaining("replicas is 3 but leaderElection.enabled is false");
  }

  @Test
  void valuesOutsideTheSchemaAreRefused() {
    assertThatThrownBy(() -> RenderedChart.render(t -> t.set("operator.logFormat", "xml")))
        .hasMessageContaining("logFormat");
    assertThatThrownBy(() -> RenderedChart.render(t -> t.set("operator.stallAfter", "five")))
        .hasMessageContaining("stallAfter");
    assertThatThrownBy(() -> RenderedChart.render(t -> t.set("replicaCount", 2)))
        .hasMessageContaining("replicaCount");
  }

  @Test
  void containerMeetsTheRestrictedPodSecurityStandard() {
    for (RenderedChart chart :
        List.of(
            RenderedChart.renderDefaults(),
            RenderedChart.render(t -> t.withValuesFile(ALL_FEATURES)))) {
      PodSpec pod = chart.deployment().getSpec().getTemplate().getSpec();
      Container operator = container(chart);

      assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
      assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(65532L);
      assertThat(pod.getSecurityContext().getSeccompProfile().getType())
          .isEqualTo("RuntimeDefault");
      assertThat(pod.getHostNetwork()).isNotEqualTo(Boolean.TRUE);
      assertThat(pod.getHostPID()).isNotEqualTo(Boolean.TRUE);
      assertThat(pod.getVolumes()).allSatisfy(v -> assertThat(v.getHostPath()).isNull());
      assertThat(operator.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
      assertThat(operator.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
      assertThat(operator.getSecurityContext().getPrivileged()).isNotEqualTo(Boolean.TRUE);
      assertThat(operator.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
      assertThat(operator.getSecurityContext().getCapabilities().getAdd()).isNullOrEmpty();
      assertThat(operator.getVolumeMounts()).extracting("mountPath").containsExactly("/tmp");
    }
  }

  @Test
  void probesUseTheOperatorsHealthEndpointsOnTheMetricsPort() {
    Container operator = container(RenderedChart.renderDefaults());

    assertThat(operator.getPorts())
        .extracting("name", "containerPort")
        .containsExactly(org.assertj.core.groups.Tuple.tuple("http-metrics", 8080));
    assertThat(operator.getStartupProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(operator.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(operator.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(
            List.of(
                operator.getStartupProbe(),
                operator.getLivenessProbe(),
                operator.getReadinessProbe()))
        .allSatisfy(
            p -> assertThat(p.getHttpGet().getPort().getStrVal()).isEqualTo("http-metrics"));
  }

  @Test
  void rbacGrantsNothingOnSecretsAndNoWritesOnWorkloadsByDefault() {
    List<RenderedChart.GrantedRule> rules = RenderedChart.renderDefaults().rules();

    assertThat(rules).noneMatch(r -> r.covers("", "secrets"));
    assertThat(rules)
        .allSatisfy(r -> assertThat(r.rule().getVerbs()).as(r.roleName()).doesNotContain("*"));
    for (String[] readOnly :
        new String[][] {
          {"apps", "daemonsets"}, {"apps", "controllerrevisions"}, {"", "pods"}, {"", "nodes"}
        }) {
      assertThat(verbsOn(rules, readOnly[0], readOnly[1]))
          .as(readOnly[1])
          .isNotEmpty()
          .doesNotContainAnyElementsOf(WRITE_VERBS);
    }
    assertThat(verbsOn(rules, "events.k8s.io", "events")).isEmpty();
  }

  @Test
  void theOperatorsRolesGrantExactlyTheVerbsItsStartUpCheckAsksFor() {
    for (boolean autoRollback : new boolean[] {false, true}) {
      for (boolean namespaced : new boolean[] {false, true}) {
        for (int mask = 0; mask < 4; mask++) {
          boolean advanced = (mask & 1) != 0;
          boolean conditions = (mask & 2) != 0;
          RenderedChart chart =
              RenderedChart.render(
                  t -> {
                    t.set("autoRollback.enabled", autoRollback);
                    t.set("advancedDaemonSets.enabled", advanced);
                    t.set("daemonSetConditions.enabled", conditions);
                    if (namespaced) {
                      t.set("operator.namespaces[0]", "gpu-operator");
                    }
                    return t;
                  });
          OperatorSettings settings =
              new OperatorSettings(
                      namespaced ? java.util.Set.of("gpu-operator") : java.util.Set.of(),
                      java.time.Duration.ofMinutes(5),
                      java.time.Duration.ofHours(24),
                      8080,
                      false,
                      null,
                      autoRollback,
                      OperatorSettings.DEFAULT_AUTO_ROLLBACK_AFTER)
                  .withAdvancedDaemonSets(advanced)
                  .withDaemonSetConditions(conditions);
          java.util.Set<String> asked = new java.util.TreeSet<>();
          for (StartupCheck.Need need : StartupCheck.needs(settings)) {
            asked.add(need.group() + "/" + need.resource() + " " + need.verb());
          }
          java.util.Set<String> granted = new java.util.TreeSet<>();
          for (RenderedChart.GrantedRule r : chart.rules()) {
            String role = r.role().getMetadata().getName();
            if (role.endsWith("-view") || role.endsWith("-leader-election")) {
              continue; // the view role for people, the Lease's Role
            }
            for (String group : r.rule().getApiGroups()) {
              for (String resource : r.rule().getResources()) {
                for (String verb : r.rule().getVerbs()) {
                  granted.add(group + "/" + resource + " " + verb);
                }
              }
            }
          }
          assertThat(granted)
              .as(
                  "autoRollback %s, namespaced %s, advanced %s, conditions %s",
                  autoRollback, namespaced, advanced, conditions)
              .isEqualTo(asked);
        }
      }
    }
  }

  @Test
  void advancedDaemonSetsAddReadOnThemAndPatchOnlyWithAutoRollback() {
    List<RenderedChart.GrantedRule> off = RenderedChart.render(t -> t).rules();
    List<RenderedChart.GrantedRule> read =
        RenderedChart.render(t -> t.set("advancedDaemonSets.enabled", true)).rules();
    List<RenderedChart.GrantedRule> patch =
        RenderedChart.render(
                t -> t.set("advancedDaemonSets.enabled", true).set("autoRollback.enabled", true))
            .rules();

    assertThat(verbsOn(off, "apps.kruise.io", "daemonsets")).isEmpty();
    assertThat(verbsOn(read, "apps.kruise.io", "daemonsets"))
        .containsExactlyInAnyOrder("list", "watch");
    assertThat(verbsOn(patch, "apps.kruise.io", "daemonsets"))
        .containsExactlyInAnyOrder("get", "list", "watch", "patch");
  }

  @Test
  void autoRollbackAddsOnlyGetAndPatchOnDaemonSets() {
    List<RenderedChart.GrantedRule> rules =
        RenderedChart.render(t -> t.set("autoRollback.enabled", true)).rules();

    assertThat(verbsOn(rules, "apps", "daemonsets"))
        .containsExactlyInAnyOrder("get", "list", "watch", "patch");
    assertThat(verbsOn(rules, "", "pods")).doesNotContainAnyElementsOf(WRITE_VERBS);
    assertThat(verbsOn(rules, "apps", "controllerrevisions"))
        .doesNotContainAnyElementsOf(WRITE_VERBS);
  }

  @Test
  void watchingChosenNamespacesGrantsNamespacedAccessOnlyThere() {
    RenderedChart chart = RenderedChart.render(t -> t.withValuesFile(ALL_FEATURES));
    ClusterRole operatorRole =
        chart.all(ClusterRole.class).stream()
            .filter(r -> r.getMetadata().getName().equals("sw-stallwatch"))
            .findFirst()
            .orElseThrow();

    assertThat(operatorRole.getRules()).hasSize(1);
    assertThat(operatorRole.getRules().get(0).getResources()).containsExactly("nodes");
    assertThat(chart.all(Role.class))
        .filteredOn(r -> r.getMetadata().getName().equals("sw-stallwatch"))
        .extracting(r -> r.getMetadata().getNamespace())
        .containsExactlyInAnyOrder("gpu-operator", "kube-system");
    assertThat(chart.all(RoleBinding.class))
        .filteredOn(b -> b.getMetadata().getName().equals("sw-stallwatch"))
        .allSatisfy(b -> assertThat(b.getSubjects().get(0).getName()).isEqualTo("rollout-watcher"));
  }

  @Test
  void leaderElectionRoleIsLimitedToTheStallwatchLease() {
    RenderedChart chart = RenderedChart.render(t -> t.withValuesFile(ALL_FEATURES));
    Role lease =
        chart.all(Role.class).stream()
            .filter(r -> r.getMetadata().getName().equals("sw-stallwatch-leader-election"))
            .findFirst()
            .orElseThrow();

    assertThat(lease.getMetadata().getNamespace()).isEqualTo("stallwatch-system");
    assertThat(lease.getRules())
        .allSatisfy(r -> assertThat(r.getResources()).containsExactly("leases"));
    assertThat(lease.getRules())
        .allSatisfy(
            r -> {
              if (r.getResourceNames() == null || r.getResourceNames().isEmpty()) {
                // create cannot be limited by name; nothing else may be unnamed
                assertThat(r.getVerbs()).containsExactly("create");
              } else {
                assertThat(r.getResourceNames()).containsExactly("stallwatch-leader");
              }
            });
    assertThat(RenderedChart.renderDefaults().all(Role.class)).isEmpty();
  }

  @Test
  void ordinaryUsersCanReadRolloutStallsThroughAggregation() {
    ClusterRole view =
        RenderedChart.renderDefaults().all(ClusterRole.class).stream()
            .filter(r -> r.getMetadata().getName().equals("sw-stallwatch-view"))
            .findFirst()
            .orElseThrow();

    assertThat(view.getMetadata().getLabels())
        .containsEntry("rbac.authorization.k8s.io/aggregate-to-view", "true")
        .containsEntry("rbac.authorization.k8s.io/aggregate-to-edit", "true")
        .containsEntry("rbac.authorization.k8s.io/aggregate-to-admin", "true");
    assertThat(view.getRules()).hasSize(1);
    assertThat(view.getRules().get(0).getResources()).contains("rolloutstalls");
    assertThat(view.getRules().get(0).getVerbs()).containsExactlyInAnyOrder("get", "list", "watch");
  }

  @Test
  void rbacCreateFalseRendersNoRbac() {
    RenderedChart chart =
        RenderedChart.render(t -> t.set("rbac.create", false).set("leaderElection.enabled", true));

    assertThat(chart.kinds())
        .doesNotContain("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding");
  }

  @Test
  void serviceMonitorIsGatedAndKeepsTheDaemonSetsNamespaceLabel() {
    assertThat(RenderedChart.renderDefaults().all("ServiceMonitor")).isEmpty();

    HasMetadata monitor =
        RenderedChart.render(
                t ->
                    t.set("metrics.serviceMonitor.enabled", true)
                        .set("metrics.serviceMonitor.additionalLabels.release", "prom"))
            .one("ServiceMonitor");
    Map<String, Object> endpoint = firstEndpoint(monitor);

    assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "prom");
    assertThat(endpoint)
        .containsEntry("port", "http-metrics")
        .containsEntry("path", "/metrics")
        .containsEntry("honorLabels", true);
  }

  @Test
  void prometheusRuleAndDashboardAreGatedAndCarryTheirLabels() {
    RenderedChart defaults = RenderedChart.renderDefaults();
    assertThat(defaults.all("PrometheusRule")).isEmpty();
    assertThat(defaults.kinds()).doesNotContain("ConfigMap");

    RenderedChart enabled =
        RenderedChart.render(
            t ->
                t.set("prometheusRule.enabled", true)
                    .set("prometheusRule.additionalLabels.release", "prom")
                    .set("dashboards.enabled", true));
    var dashboard = enabled.one(io.fabric8.kubernetes.api.model.ConfigMap.class);

    assertThat(enabled.one("PrometheusRule").getMetadata().getLabels())
        .containsEntry("release", "prom");
    assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
    assertThat(dashboard.getMetadata().getNamespace()).isEqualTo(RenderedChart.NAMESPACE);
    assertThat(dashboard.getData()).containsOnlyKeys("stallwatch-dashboard.json");
  }

  @Test
  void chartAppVersionIsTheProjectVersion() throws IOException {
    String chartYaml = Files.readString(RenderedChart.CHART.resolve("Chart.yaml"));

    assertThat(chartYaml).contains("appVersion: \"" + projectVersion() + "\"");
  }

  private static Container container(RenderedChart chart) {
    List<Container> containers =
        chart.deployment().getSpec().getTemplate().getSpec().getContainers();
    assertThat(containers).hasSize(1);
    return containers.get(0);
  }

  private static List<String> verbsOn(
      List<RenderedChart.GrantedRule> rules, String apiGroup, String resource) {
    return rules.stream()
        .filter(r -> r.covers(apiGroup, resource))
        .flatMap(r -> r.rule().getVerbs().stream())
        .distinct()
        .toList();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> firstEndpoint(HasMetadata monitor) {
    var spec =
        (Map<String, Object>)
            ((io.fabric8.kubernetes.api.model.GenericKubernetesResource) monitor)
                .getAdditionalProperties()
                .get("spec");
    return ((List<Map<String, Object>>) spec.get("endpoints")).get(0);
  }

  static String projectVersion() {
    Properties props = new Properties();
    try (InputStream in =
        HelmChartIT.class.getResourceAsStream("/dev/stallwatch/version.properties")) {
      props.load(in);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return props.getProperty("version");
  }
}
