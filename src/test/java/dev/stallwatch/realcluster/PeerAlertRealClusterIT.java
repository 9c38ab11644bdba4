package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stallwatch.deploy.NativeHelm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The peer's alert measured, not computed (opt-in: {@code -Dstallwatch.peer.alert=true}, about 22
 * minutes; not in CI). One seed stall left standing, and in one Prometheus both stallwatch's
 * shipped rules (the chart's PrometheusRule, default values: stall-after 5m, {@code for: 2m}) over
 * the operator's series, and the kubernetes-mixin's {@code KubeDaemonSetRolloutStuck} as it ships
 * ({@code src/test/resources/peer/}) over kube-state-metrics' — both scraped every 30 s, rules
 * evaluated every 30 s, Alertmanager's default {@code group_wait} of 30 s: kube-prometheus'
 * defaults. Reported: when each alert turns pending, fires and is notified, counted from the moment
 * the broken image is set. Needs kube-state-metrics built ({@code ksm-build.sh}).
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class PeerAlertRealClusterIT {
  static final String DS = "nvidia-container-toolkit";
  static final String GOOD = "nvcr.io/nvidia/k8s/container-toolkit:v1.17.0";
  static final String BROKEN = Scenario.UNPULLABLE + "nvidia/k8s/container-toolkit:v1.17.1";
  static final Path MIXIN =
      RealCluster.PROJECT.resolve(
          "src/test/resources/peer/kubernetes-mixin-daemonset-rollout-stuck.yml");
  static final Duration INTERVAL = Duration.ofSeconds(30);
  static final List<String> ALERTS =
      List.of("DaemonSetRolloutStalled", "KubeDaemonSetRolloutStuck");

  /** The chart's defaults but for the monitoring objects; its own namespace. */
  static final ChartInstall RELEASE = new ChartInstall("peer", "peer", Map.of());

  static final ChartInstall MONITORED =
      new ChartInstall(
          RELEASE.release(),
          RELEASE.namespace(),
          Map.of("metrics.serviceMonitor.enabled", "true", "prometheusRule.enabled", "true"));

  static RealCluster cluster;
  static final List<AutoCloseable> started = new ArrayList<>();
  static MonitoringStack stack;

  @BeforeAll
  static void start(RealCluster c) throws IOException {
    Assumptions.assumeTrue(
        Boolean.getBoolean("stallwatch.peer.alert"),
        "about 22 minutes: -Dstallwatch.peer.alert=true");
    PromServer.Tools tools = PromServer.Tools.orSkip();
    Path ksm = KubeStateMetrics.built();
    Assumptions.assumeTrue(
        ksm != null, "kube-state-metrics not built: src/test/realcluster/ksm-build.sh");
    cluster = c;
    Path dir = MonitoringStack.emptied(cluster.dir().resolve("peer-alert"));
    RELEASE.install(cluster);
    Map<String, Map<String, Object>> rendered = RenderedObjects.byKind(MONITORED.render(cluster));

    List<String> args =
        RenderedObjects.strings(
            RenderedObjects.list(
                    RenderedObjects.path(rendered.get("Deployment"), "spec", "template", "spec"),
                    "containers")
                .get(0)
                .get("args"));
    assertThat(args).first().isEqualTo("operator");
    assertThat(args).contains("--stall-after=5m");
    OperatorProcess operator =
        OperatorProcess.start(
            RELEASE.serviceAccountKubeconfig(cluster, dir.resolve("operator.kubeconfig")),
            dir.resolve("operator.log"),
            "peer-operator",
            args.stream()
                .skip(1)
                .filter(a -> !a.startsWith("--metrics-port="))
                .toArray(String[]::new));
    started.add(operator);
    KubeStateMetrics kubeStateMetrics =
        KubeStateMetrics.start(ksm, cluster.kubeconfig(), dir.resolve("kube-state-metrics.log"));
    started.add(kubeStateMetrics);

    Map<String, Object> ksmJob = new LinkedHashMap<>();
    ksmJob.put("job_name", "kube-state-metrics");
    ksmJob.put("honor_labels", true);
    ksmJob.put("scrape_interval", INTERVAL.toSeconds() + "s");
    ksmJob.put("static_configs", List.of(Map.of("targets", List.of(kubeStateMetrics.address()))));
    Map<String, Object> stallwatchJob =
        ServiceMonitorScrape.job(
            rendered.get("ServiceMonitor"),
            rendered.get("Service"),
            List.of(
                new ServiceMonitorScrape.Target(
                    "127.0.0.1:" + operator.metricsPort(), "peer-operator")));
    assertThat(stallwatchJob).containsEntry("scrape_interval", INTERVAL.toSeconds() + "s");
    stack =
        MonitoringStack.start(
            tools,
            dir,
            INTERVAL,
            receiver ->
                """
                route:
                  receiver: default
                  group_by: [alertname, namespace, daemonset]
                  group_wait: 30s
                  group_interval: 5m
                  repeat_interval: 4h
                receivers:
                  - name: default
                    webhook_configs:
                      - url: %s
                """
                    .formatted(receiver.url("default")),
            List.of(
                MonitoringStack.ruleFile(
                    dir.resolve("stallwatch-rules.yml"),
                    RenderedObjects.spec(rendered.get("PrometheusRule")).get("groups")),
                MIXIN),
            List.of(stallwatchJob, ksmJob));
    started.add(stack);
    await("Prometheus scrapes the operator and kube-state-metrics")
        .atMost(Scenario.WAIT)
        .until(() -> stack.prometheus.query("up == 1").size() == 2);
  }

  @AfterAll
  static void stop() throws Exception {
    for (int i = started.size() - 1; i >= 0; i--) {
      started.get(i).close();
    }
  }

  /** When one alert was first seen pending and firing in Prometheus, and notified. */
  record Timeline(Instant pending, Instant firing, Instant notified) {}

  @Test
  void bothAlertsFireOnOneStandingStallAndTheirTimesAreReported() throws IOException {
    Scenario seed = Scenario.create(cluster, "peer-seed", 3, 4);
    seed.rollOut(DS, GOOD, b -> b);
    // Both alerts quiet on a complete rollout (kube-state-metrics has had its first scrapes).
    await("kube-state-metrics reports the complete rollout")
        .atMost(Scenario.WAIT)
        .until(
            () ->
                stack
                        .prometheus
                        .query(
                            "kube_daemonset_status_updated_number_scheduled{namespace=\"peer-seed\"} == 3")
                        .size()
                    == 1);
    Instant broken = Instant.now();
    cluster.kubectl("set", "image", "-n", "peer-seed", "daemonset/" + DS, DS + "=" + BROKEN).ok();

    Map<String, Instant> pending = new LinkedHashMap<>();
    Map<String, Instant> firing = new LinkedHashMap<>();
    Map<String, Instant> notified = new LinkedHashMap<>();
    await("both alerts notified")
        .atMost(Duration.ofMinutes(35))
        .pollInterval(Duration.ofSeconds(2))
        .until(
            () -> {
              Instant now = Instant.now();
              for (JsonNode alert :
                  stack.prometheus.get("/api/v1/alerts").path("data").path("alerts")) {
                String name = alert.path("labels").path("alertname").asText();
                if (!ALERTS.contains(name)
                    || !"peer-seed".equals(alert.path("labels").path("namespace").asText())) {
                  continue;
                }
                pending.putIfAbsent(name, Instant.parse(alert.path("activeAt").asText()));
                if ("firing".equals(alert.path("state").asText())) {
                  firing.putIfAbsent(name, now);
                }
              }
              for (var n : stack.receiver.notified()) {
                if (ALERTS.contains(n.alertname()) && n.firing()) {
                  notified.putIfAbsent(n.alertname(), n.received());
                }
              }
              return notified.keySet().containsAll(ALERTS);
            });

    StringBuilder report = new StringBuilder("{\n  \"brokenAt\": \"" + broken + "\"");
    for (String alert : ALERTS) {
      Timeline t = new Timeline(pending.get(alert), firing.get(alert), notified.get(alert));
      System.out.printf(
          "peer alert: %s pending after %.0f s, firing after %.0f s, notified after %.0f s%n",
          alert,
          seconds(broken, t.pending()),
          seconds(broken, t.firing()),
          seconds(broken, t.notified()));
      report.append(
          ",\n  \"%s\": {\"pendingAfterSeconds\": %.1f, \"firingAfterSeconds\": %.1f, \"notifiedAfterSeconds\": %.1f}"
              .formatted(
                  alert,
                  seconds(broken, t.pending()),
                  seconds(broken, t.firing()),
                  seconds(broken, t.notified())));
    }
    report.append("\n}\n");
    Files.writeString(cluster.dir().resolve("peer-alert").resolve("peer-alert.json"), report);
    assertThat(notified.get("DaemonSetRolloutStalled"))
        .as("stallwatch pages before the peer")
        .isBefore(notified.get("KubeDaemonSetRolloutStuck"));
  }

  static double seconds(Instant from, Instant to) {
    return to == null ? Double.NaN : Duration.between(from, to).toMillis() / 1000.0;
  }
}
