package dev.stallwatch.operator.decision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class RoutingLabelsTest {
  private final RoutingLabels routing =
      new RoutingLabels(List.of("team", "app.kubernetes.io/part-of", "cost-center"));

  @Test
  void metricLabelsAreSanitisedAndPrefixedAsKubeStateMetricsDoes() {
    assertThat(RoutingLabels.metricLabel("team")).isEqualTo("label_team");
    assertThat(RoutingLabels.metricLabel("app.kubernetes.io/part-of"))
        .isEqualTo("label_app_kubernetes_io_part_of");
    assertThat(RoutingLabels.metricLabel("Cost.Center")).isEqualTo("label_Cost_Center");
  }

  @Test
  void everyAllowlistedKeyIsAMetricLabelAndAMissingOneIsEmpty() {
    assertThat(routing.metricLabels(Map.of("team", "gpu-platform", "tier", "node")))
        .containsExactly(
            Map.entry("label_team", "gpu-platform"),
            Map.entry("label_app_kubernetes_io_part_of", ""),
            Map.entry("label_cost_center", ""));
    assertThat(routing.metricLabels(null)).hasSize(3).allSatisfy((k, v) -> assertThat(v).isEmpty());
    assertThat(RoutingLabels.NONE.metricLabels(Map.of("team", "x"))).isEmpty();
  }

  @Test
  void theRolloutStallGetsTheAllowlistedLabelsTheDaemonSetCarries() {
    assertThat(routing.copied(Map.of("team", "gpu-platform", "tier", "node")))
        .isEqualTo(Map.of("team", "gpu-platform"));
    assertThat(routing.copied(null)).isEmpty();
  }

  @Test
  void keysThatAreNoLabelKeysOrCollideAreRefusedByName() {
    assertThatThrownBy(() -> new RoutingLabels(List.of("team", "cost center", "-x", "a/")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'cost center' is not a label key")
        .hasMessageContaining("'-x' is not a label key")
        .hasMessageContaining("'a/' is not a label key");
    assertThatThrownBy(() -> new RoutingLabels(List.of("cost.center", "cost-center")))
        .hasMessageContaining("'cost.center' and 'cost-center' would both be label_cost_center");
    assertThat(new RoutingLabels(List.of("example.com/owner", "a_b.c-d")).keys())
        .containsExactly("example.com/owner", "a_b.c-d");
  }
}
