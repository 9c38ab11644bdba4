package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceMonitorScrapeTest {
  static final Map<String, Object> SERVICE =
      Map.of(
          "metadata",
          Map.of(
              "name", "sw-metrics",
              "namespace", "mon",
              "labels", Map.of("app.kubernetes.io/name", "stallwatch")),
          "spec",
          Map.of(
              "ports",
              List.of(Map.of("name", "http-metrics", "port", 8080, "targetPort", "http"))));
  static final Map<String, Object> DEPLOYMENT =
      Map.of(
          "spec",
          Map.of(
              "template",
              Map.of(
                  "spec",
                  Map.of(
                      "containers",
                      List.of(
                          Map.of(
                              "name",
                              "operator",
                              "ports",
                              List.of(Map.of("name", "http", "containerPort", 9090))))))));

  static Map<String, Object> monitor(Map<String, Object> endpoint) {
    return Map.of(
        "metadata", Map.of("name", "sw", "namespace", "mon"),
        "spec", Map.of("jobLabel", "app.kubernetes.io/name", "endpoints", List.of(endpoint)));
  }

  @Test
  void theEndpointBecomesAScrapeJobWithTheLabelsPrometheusOperatorAdds() {
    var job =
        ServiceMonitorScrape.job(
            monitor(
                Map.of(
                    "port", "http-metrics",
                    "path", "/metrics",
                    "honorLabels", true,
                    "interval", "1s",
                    "metricRelabelings",
                        List.of(
                            Map.of(
                                "sourceLabels", List.of("__name__"),
                                "regex", "operator_sdk_.*",
                                "action", "Drop")))),
            SERVICE,
            List.of(new ServiceMonitorScrape.Target("127.0.0.1:1234", "sw-a")));

    assertThat(job)
        .containsEntry("job_name", "serviceMonitor/mon/sw/0")
        .containsEntry("metrics_path", "/metrics")
        .containsEntry("honor_labels", true)
        .containsEntry("scrape_interval", "1s")
        .containsEntry(
            "static_configs",
            List.of(
                Map.of(
                    "targets",
                    List.of("127.0.0.1:1234"),
                    "labels",
                    Map.of(
                        "job", "stallwatch",
                        "namespace", "mon",
                        "service", "sw-metrics",
                        "pod", "sw-a",
                        "endpoint", "http-metrics"))))
        .containsEntry(
            "metric_relabel_configs",
            List.of(
                Map.of(
                    "source_labels", List.of("__name__"),
                    "regex", "operator_sdk_.*",
                    "action", "drop")))
        .doesNotContainKey("relabel_configs");
  }

  @Test
  void theNamedPortIsFollowedThroughTheServiceToTheContainer() {
    assertThat(
            ServiceMonitorScrape.containerPort(
                monitor(Map.of("port", "http-metrics")), SERVICE, DEPLOYMENT))
        .isEqualTo(9090);
    assertThatThrownBy(
            () ->
                ServiceMonitorScrape.containerPort(
                    monitor(Map.of("port", "metrics")), SERVICE, DEPLOYMENT))
        .hasMessageContaining("no port named metrics");
  }

  @Test
  void anUnknownRelabelFieldIsAnError() {
    assertThatThrownBy(() -> ServiceMonitorScrape.relabel(List.of(Map.of("sourcelabels", "x"))))
        .hasMessageContaining("sourcelabels");
  }
}
