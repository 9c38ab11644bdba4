package dev.stallwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Helm reads only files inside the chart, so the chart carries copies of the CRD, the alert rules
 * and the dashboard; these tests keep every copy equal to its source ({@code
 * deploy/sync-chart-files.sh} refreshes them). What the chart renders from them is {@code
 * ChartFilesIT}'s (native Helm).
 */
class ChartFilesTest {

  /** The project directory (Maven's {@code basedir}). */
  static final Path PROJECT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();

  /** The Helm chart. */
  static final Path CHART = PROJECT.resolve("deploy/helm/stallwatch");

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

  /** The YAML files in {@code dir}, sorted; none when it does not exist. */
  static List<String> yamlFileNames(Path dir) throws IOException {
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
