package dev.stallwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the chart renders from its copies of the CRD, the alert rules and the dashboard (native
 * Helm); that the copies equal their sources is {@link ChartFilesTest}'s.
 */
class ChartFilesIT {

  private static final Path PROJECT = ChartFilesTest.PROJECT;
  private static final Path CHART = ChartFilesTest.CHART;

  @NativeHelm
  @Test
  void operatorRbacCoversEveryResourceOfTheChartCrds() throws IOException {
    List<RenderedChart.GrantedRule> rules = RenderedChart.renderDefaults().rules();

    for (String name : ChartFilesTest.yamlFileNames(CHART.resolve("crds"))) {
      var crd =
          RenderedChart.parse(Files.readString(CHART.resolve("crds").resolve(name)))
              .one(io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition.class);
      String group = crd.getSpec().getGroup();
      String plural = crd.getSpec().getNames().getPlural();

      assertThat(rules)
          .as("a rule on %s.%s", plural, group)
          .anyMatch(r -> r.covers(group, plural) && r.rule().getVerbs().contains("create"));
      assertThat(rules)
          .as("a rule on %s/status", plural)
          .anyMatch(
              r -> r.covers(group, plural + "/status") && r.rule().getVerbs().contains("update"));
      assertThat(rules)
          .as("the aggregated view role reads %s", plural)
          .anyMatch(r -> r.roleName().endsWith("-view") && r.covers(group, plural));
    }
  }

  @NativeHelm
  @Test
  void renderedPrometheusRuleHoldsThePlainRuleGroups() throws IOException {
    GenericKubernetesResource rule =
        RenderedChart.render(t -> t.set("prometheusRule.enabled", true)).one("PrometheusRule");

    assertThat(spec(rule).get("groups")).isEqualTo(plainRules().get("groups"));
  }

  @NativeHelm
  @Test
  @SuppressWarnings("unchecked")
  void additionalRuleLabelsReachEveryAlert() {
    GenericKubernetesResource rule =
        RenderedChart.render(
                t ->
                    t.set("prometheusRule.enabled", true)
                        .set("prometheusRule.additionalRuleLabels.team", "platform")
                        .set("prometheusRule.additionalRuleLabels.severity", "critical"))
            .one("PrometheusRule");
    var groups = (List<Map<String, Object>>) spec(rule).get("groups");
    var rules = groups.stream().flatMap(g -> ((List<Map<String, Object>>) g.get("rules")).stream());

    assertThat(rules.toList())
        .isNotEmpty()
        .allSatisfy(
            r ->
                assertThat((Map<String, Object>) r.get("labels"))
                    .containsEntry("team", "platform")
                    .containsEntry("severity", "critical"));
  }

  @NativeHelm
  @Test
  @SuppressWarnings("unchecked")
  void customRulesSetForAndSeverityOfTheNamedAlertOnly() throws IOException {
    GenericKubernetesResource rule =
        RenderedChart.render(
                t ->
                    t.set("prometheusRule.enabled", true)
                        .set("prometheusRule.additionalRuleLabels.severity", "info")
                        .set("prometheusRule.customRules.StallwatchOperatorDown.for", "10m")
                        .set(
                            "prometheusRule.customRules.StallwatchOperatorDown.severity",
                            "critical")
                        .set("prometheusRule.customRules.DaemonSetRolloutStalled.for", "0s"))
            .one("PrometheusRule");
    Map<String, Map<String, Object>> byAlert = new java.util.LinkedHashMap<>();
    for (var g : (List<Map<String, Object>>) spec(rule).get("groups")) {
      for (var r : (List<Map<String, Object>>) g.get("rules")) {
        byAlert.put((String) r.get("alert"), r);
      }
    }
    Map<String, Map<String, Object>> plain = new java.util.LinkedHashMap<>();
    for (var g : (List<Map<String, Object>>) plainRules().get("groups")) {
      for (var r : (List<Map<String, Object>>) g.get("rules")) {
        plain.put((String) r.get("alert"), r);
      }
    }

    assertThat(byAlert.keySet()).isEqualTo(plain.keySet());
    assertThat(byAlert.get("StallwatchOperatorDown"))
        .containsEntry("for", "10m")
        .extracting(r -> r.get("labels"))
        .isEqualTo(Map.of("severity", "critical"));
    assertThat(byAlert.get("DaemonSetRolloutStalled"))
        .containsEntry("for", "0s")
        .extracting(r -> r.get("labels"))
        .as("additionalRuleLabels' severity where customRules names none")
        .isEqualTo(Map.of("severity", "info"));
    assertThat(byAlert.get("StallwatchReconcileErrors"))
        .containsEntry("for", plain.get("StallwatchReconcileErrors").get("for"))
        .containsEntry("expr", plain.get("StallwatchReconcileErrors").get("expr"));
  }

  @NativeHelm
  @Test
  void customRulesForAnAlertTheChartDoesNotShipIsRefused() {
    assertThatThrownBy(
            () ->
                RenderedChart.render(
                    t ->
                        t.set("prometheusRule.enabled", true)
                            .set("prometheusRule.customRules.KubeDaemonSetRolloutStuck.for", "5m")))
        .hasMessageContaining("invalid propertyName 'KubeDaemonSetRolloutStuck'")
        .hasMessageContaining("'StallwatchOperatorDown'");
    assertThatThrownBy(
            () ->
                RenderedChart.render(
                    t ->
                        t.set("prometheusRule.enabled", true)
                            .set("prometheusRule.customRules.StallwatchOperatorDown.for", "soon")))
        .hasMessageContaining("for");
  }

  @NativeHelm
  @Test
  void renderedDashboardConfigMapHoldsTheDashboardJson() throws IOException {
    var configMap =
        RenderedChart.render(t -> t.set("dashboards.enabled", true))
            .one(io.fabric8.kubernetes.api.model.ConfigMap.class);

    assertThat(configMap.getData().get("stallwatch-dashboard.json"))
        .isEqualTo(
            Files.readString(PROJECT.resolve("deploy/grafana/stallwatch-dashboard.json")).strip());
  }

  static Map<String, Object> plainRules() throws IOException {
    @SuppressWarnings("unchecked")
    Map<String, Object> rules =
        new ObjectMapper(new YAMLFactory())
            .readValue(
                PROJECT.resolve("deploy/prometheus/stallwatch-alerts.yml").toFile(), Map.class);
    return rules;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> spec(GenericKubernetesResource resource) {
    return (Map<String, Object>) resource.getAdditionalProperties().get("spec");
  }
}
