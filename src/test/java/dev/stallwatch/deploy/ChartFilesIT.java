package dev.stallwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Helm reads only files inside the chart, so the chart carries copies of the CRD, the alert rules
 * and the dashboard; these tests keep every copy equal to its source ({@code
 * deploy/sync-chart-files.sh} refreshes them).
 */
class ChartFilesIT {

  private static final Path PROJECT = RenderedChart.PROJECT;
  private static final Path CHART = RenderedChart.CHART;
  private static final String FIX = " (run deploy/sync-chart-files.sh)";

  @Test
  void chartCrdsAreTheGeneratedCrdsByteForByte() throws IOException {
    List<String> sources = yamlFileNames(PROJECT.resolve("crd"));
    List<String> copies = yamlFileNames(CHART.resolve("crds"));

    assertThat(sources)
        .as("generated CRDs in crd/")
        .contains("rolloutstalls.stallwatch.dev-v1.yml");
    assertThat(copies).as("CRDs in the chart's crds/" + FIX).isEqualTo(sources);
    for (String name : sources) {
      assertThat(CHART.resolve("crds").resolve(name))
          .as("chart crds/%s%s", name, FIX)
          .hasSameBinaryContentAs(PROJECT.resolve("crd").resolve(name));
    }
  }

  @NativeHelm
  @Test
  void operatorRbacCoversEveryResourceOfTheChartCrds() throws IOException {
    List<RenderedChart.GrantedRule> rules = RenderedChart.renderDefaults().rules();

    for (String name : yamlFileNames(CHART.resolve("crds"))) {
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

  @Test
  void chartAlertRulesAreThePlainRulesFile() {
    assertThat(CHART.resolve("files/stallwatch-alerts.yml"))
        .as("chart files/stallwatch-alerts.yml" + FIX)
        .hasSameBinaryContentAs(PROJECT.resolve("deploy/prometheus/stallwatch-alerts.yml"));
  }

  @Test
  void chartDashboardIsTheGrafanaDashboard() {
    assertThat(CHART.resolve("dashboards/stallwatch-dashboard.json"))
        .as("chart dashboards/stallwatch-dashboard.json" + FIX)
        .hasSameBinaryContentAs(PROJECT.resolve("deploy/grafana/stallwatch-dashboard.json"));
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

  private static List<String> yamlFileNames(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yml") || n.endsWith(".yaml"))
          .sorted()
          .toList();
    }
  }
}
