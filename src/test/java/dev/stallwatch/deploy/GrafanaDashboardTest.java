package dev.stallwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class GrafanaDashboardTest {

  private static final Pattern METRIC = Pattern.compile("\\bstallwatch_[a-z_]+");

  @Test
  void dashboardShowsStalledRolloutsNodeSplitAndStallDurations() throws IOException {
    JsonNode dashboard = dashboard();
    List<String> exprs = exprs(dashboard);

    assertThat(dashboard.path("uid").asText()).isEqualTo("stallwatch-rollouts");
    assertThat(exprs).isNotEmpty();
    assertThat(exprs).anyMatch(e -> e.contains("stallwatch_rollout_stalled{"));
    assertThat(exprs)
        .anyMatch(e -> e.contains("stallwatch_daemonset_nodes") && e.contains("revision"));
    assertThat(exprs)
        .anyMatch(
            e ->
                e.contains("time() - ")
                    && e.contains("stallwatch_rollout_stall_started_timestamp"));
  }

  @Test
  void everyQueryUsesOnlyTheOperatorsMetricNames() throws IOException {
    Set<String> used = new TreeSet<>();
    for (String expr : exprs(dashboard())) {
      Matcher matcher = METRIC.matcher(expr);
      assertThat(matcher.find()).as("query uses a stallwatch metric: %s", expr).isTrue();
      do {
        used.add(matcher.group());
      } while (matcher.find());
    }

    assertThat(
            java.util.Arrays.stream(dev.stallwatch.operator.effects.Series.values())
                .map(dev.stallwatch.operator.effects.Series::prometheusName))
        .containsAll(used);
  }

  @Test
  void everyPanelQueriesTheChosenDataSource() throws IOException {
    JsonNode dashboard = dashboard();

    assertThat(dashboard.path("templating").path("list").get(0).path("type").asText())
        .isEqualTo("datasource");
    for (JsonNode panel : dashboard.path("panels")) {
      assertThat(panel.path("datasource").path("uid").asText())
          .as("panel %s", panel.path("title").asText())
          .isEqualTo("${datasource}");
    }
  }

  private static JsonNode dashboard() throws IOException {
    return new ObjectMapper()
        .readTree(
            Path.of(System.getProperty("basedir", "."), "deploy/grafana/stallwatch-dashboard.json")
                .toFile());
  }

  private static List<String> exprs(JsonNode dashboard) {
    List<String> exprs = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        exprs.add(target.path("expr").asText());
      }
    }
    return exprs;
  }
}
