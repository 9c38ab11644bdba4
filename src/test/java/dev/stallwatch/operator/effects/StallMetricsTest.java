package dev.stallwatch.operator.effects;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.operator.decision.ActiveStall;
import dev.stallwatch.operator.decision.Effect;
import dev.stallwatch.operator.decision.RoutingLabels;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.RevisionNodes;
import dev.stallwatch.rollout.Suspect;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Instant;
import org.junit.jupiter.api.Test;

public class StallMetricsTest {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final StallMetrics metrics = new StallMetrics(registry);
  private final Instant since = Instant.parse("2026-12-02T10:00:00Z");

  @Test
  void aStalledDaemonSetExportsTheStallSeriesAndItsSplit() {
    metrics.observe("gpu", "toolkit", seen(split(2, 0, 1), stall("ImagePull", 1)));
    metrics.countStall("gpu", "toolkit", Cause.ImagePull);

    String scrape = registry.scrape();
    assertThat(scrape)
        .contains(
            "stallwatch_rollout_stalled{cause=\"ImagePull\",daemonset=\"toolkit\",namespace=\"gpu\","
                + "suspect=\"NewRevision\"} 1.0")
        .contains("stallwatch_rollout_stalled_nodes{daemonset=\"toolkit\",namespace=\"gpu\"} 1.0")
        .contains(
            "stallwatch_rollout_stall_started_timestamp_seconds{daemonset=\"toolkit\",namespace=\"gpu\"} "
                + "1.7962056E9")
        .contains(
            "stallwatch_daemonset_nodes{daemonset=\"toolkit\",namespace=\"gpu\",revision=\"old\"} 2.0")
        .contains(
            "stallwatch_daemonset_nodes{daemonset=\"toolkit\",namespace=\"gpu\",revision=\"none\"} 1.0")
        .contains(
            "stallwatch_stalls_total{cause=\"ImagePull\",daemonset=\"toolkit\",namespace=\"gpu\"} 1.0");
  }

  @Test
  void aThousandStallsAndRollbacksOfOneDaemonSetHoldOneReferenceToEachCounter() {
    for (int i = 0; i < 1000; i++) {
      metrics.countStall("gpu", "toolkit", Cause.ImagePull);
      metrics.countRollback("gpu", "toolkit");
    }
    assertThat(metrics.counterCount("gpu", "toolkit")).isEqualTo(2);
    assertThat(registry.scrape())
        .contains(
            "stallwatch_stalls_total{cause=\"ImagePull\",daemonset=\"toolkit\",namespace=\"gpu\"}"
                + " 1000.0")
        .contains("stallwatch_rollbacks_total{daemonset=\"toolkit\",namespace=\"gpu\"} 1000.0");
    metrics.forget("gpu", "toolkit");
    assertThat(registry.scrape()).doesNotContain("stallwatch_stalls_total{");
  }

  @Test
  void nodesLeftAlwaysTimeLeftOnlyWhileKnownAndNeitherOnceTheDaemonSetIsGone() {
    var moving = new dev.stallwatch.rollout.Pace(2.0, 4, java.time.Duration.ofSeconds(120));
    metrics.observe(
        "gpu",
        "toolkit",
        new Effect.SetSeries(split(2, 1, 0), null, java.util.Map.of(), moving, false));
    assertThat(registry.scrape())
        .contains("stallwatch_rollout_remaining_nodes{daemonset=\"toolkit\",namespace=\"gpu\"} 4.0")
        .contains("stallwatch_rollout_eta_seconds{daemonset=\"toolkit\",namespace=\"gpu\"} 120.0");

    var unknown = new dev.stallwatch.rollout.Pace(null, 3, null);
    metrics.observe(
        "gpu",
        "toolkit",
        new Effect.SetSeries(split(1, 2, 0), null, java.util.Map.of(), unknown, false));
    assertThat(registry.scrape())
        .contains("stallwatch_rollout_remaining_nodes{daemonset=\"toolkit\",namespace=\"gpu\"} 3.0")
        .doesNotContain("stallwatch_rollout_eta_seconds{");

    metrics.observe(
        "gpu",
        "toolkit",
        new Effect.SetSeries(split(1, 2, 0), null, java.util.Map.of(), moving, false));
    assertThat(registry.scrape()).contains("stallwatch_rollout_eta_seconds{");
    metrics.forget("gpu", "toolkit");
    assertThat(registry.scrape())
        .doesNotContain("stallwatch_rollout_remaining_nodes{")
        .doesNotContain("stallwatch_rollout_eta_seconds{");
  }

  @Test
  void pausedWhileTheRolloutIsPausedAndGoneWhenItResumesOrTheDaemonSetGoes() {
    var pace = dev.stallwatch.rollout.Pace.UNKNOWN;
    metrics.observe(
        "kruise",
        "agent",
        new Effect.SetSeries(split(2, 1, 0), null, java.util.Map.of(), pace, true));
    assertThat(registry.scrape())
        .contains("stallwatch_rollout_paused{daemonset=\"agent\",namespace=\"kruise\"} 1.0");

    metrics.observe(
        "kruise",
        "agent",
        new Effect.SetSeries(split(2, 1, 0), null, java.util.Map.of(), pace, false));
    assertThat(registry.scrape()).doesNotContain("stallwatch_rollout_paused{");

    metrics.observe(
        "kruise",
        "agent",
        new Effect.SetSeries(split(2, 1, 0), null, java.util.Map.of(), pace, true));
    metrics.forget("kruise", "agent");
    assertThat(registry.scrape()).doesNotContain("stallwatch_rollout_paused{");
  }

  @Test
  void theCachedPodsOfANamespaceAreReadAtEachScrape() {
    int[] held = {3};
    metrics.cachedPods("team-a", ns -> "team-a".equals(ns) ? held[0] : -1);
    assertThat(registry.scrape()).contains("stallwatch_cache_pods{namespace=\"team-a\"} 3.0");
    held[0] = 0;
    assertThat(registry.scrape()).contains("stallwatch_cache_pods{namespace=\"team-a\"} 0.0");
  }

  @Test
  void eachReconcilesThreadCpuTimeLandsInAHistogramBesideItsWallTime() {
    metrics.reconciled(40_000_000L, 3_000_000L);
    metrics.reconciled(5_000_000L, -1); // no thread CPU time on this JVM: wall time only

    String scrape = registry.scrape();
    assertThat(scrape)
        .contains("stallwatch_reconcile_seconds_count 2")
        .contains("stallwatch_reconcile_cpu_seconds_count 1")
        .contains("stallwatch_reconcile_cpu_seconds_sum 0.003")
        .containsPattern("stallwatch_reconcile_cpu_seconds_bucket\\{le=\"0\\.00[3-4][0-9]*\"\\} 1");
  }

  @Test
  void eachReconcileIsCountedAndLandsInItsHistogramBucket() {
    metrics.reconciled(3_000_000L);
    metrics.reconciled(40_000_000L);

    String scrape = registry.scrape();
    assertThat(scrape)
        .contains("stallwatch_reconcile_seconds_count 2")
        .contains("stallwatch_reconcile_seconds_sum 0.043")
        .containsPattern("stallwatch_reconcile_seconds_bucket\\{le=\"0\\.00[3-4][0-9]*\"\\} 1")
        .contains("stallwatch_reconcile_seconds_bucket{le=\"+Inf\"} 2");
  }

  @Test
  void resolvingRemovesTheStallSeriesButKeepsTheSplitAndTheCount() {
    metrics.observe("gpu", "toolkit", seen(split(2, 0, 1), stall("ImagePull", 1)));
    metrics.countStall("gpu", "toolkit", Cause.ImagePull);
    metrics.observe("gpu", "toolkit", seen(split(3, 0, 0), null));

    String scrape = registry.scrape();
    assertThat(scrape)
        .doesNotContain("stallwatch_rollout_stalled{")
        .doesNotContain("stallwatch_rollout_stalled_nodes{")
        .doesNotContain("stallwatch_rollout_stall_started_timestamp_seconds{")
        .contains(
            "stallwatch_daemonset_nodes{daemonset=\"toolkit\",namespace=\"gpu\",revision=\"old\"} 3.0")
        .contains("stallwatch_stalls_total{");
  }

  @Test
  void aNewCauseReplacesTheSeriesOfTheOldOne() {
    metrics.observe("gpu", "toolkit", seen(split(2, 0, 1), stall("ImagePull", 1)));
    metrics.observe("gpu", "toolkit", seen(split(1, 0, 2), stall("CrashLoop", 2)));

    String scrape = registry.scrape();
    assertThat(scrape)
        .doesNotContain("cause=\"ImagePull\"")
        .contains("stallwatch_rollout_stalled{cause=\"CrashLoop\"")
        .contains("stallwatch_rollout_stalled_nodes{daemonset=\"toolkit\",namespace=\"gpu\"} 2.0");
  }

  @Test
  void aDeletedDaemonSetLeavesNoSeriesBehind() {
    metrics.observe("gpu", "toolkit", seen(split(2, 0, 1), stall("ImagePull", 1)));
    metrics.countStall("gpu", "toolkit", Cause.ImagePull);
    metrics.observe("net", "cni", seen(split(0, 3, 0), null));
    metrics.forget("gpu", "toolkit");

    String scrape = registry.scrape();
    assertThat(scrape).doesNotContain("daemonset=\"toolkit\"").contains("daemonset=\"cni\"");
  }

  @Test
  void aNewSuspectReplacesTheSeries() {
    metrics.observe("gpu", "toolkit", seen(split(2, 0, 1), stall("ImagePull", 1)));
    metrics.observe(
        "gpu",
        "toolkit",
        seen(split(2, 0, 1), new ActiveStall(Cause.ImagePull, Suspect.Node, 1, since)));

    assertThat(registry.scrape())
        .doesNotContain("suspect=\"NewRevision\"")
        .contains("suspect=\"Node\"} 1.0");
  }

  @Test
  void routingLabelsRideOnTheStallSeriesOnlyAndFollowTheDaemonSet() {
    RoutingLabels routing =
        new RoutingLabels(java.util.List.of("team", "app.kubernetes.io/part-of"));
    metrics.observe(
        "gpu",
        "toolkit",
        new Effect.SetSeries(
            split(2, 0, 1),
            stall("ImagePull", 1),
            routing.metricLabels(java.util.Map.of("team", "gpu-platform", "tier", "node")),
            dev.stallwatch.rollout.Pace.UNKNOWN,
            false));
    metrics.observe(
        "net",
        "cni",
        new Effect.SetSeries(
            split(2, 0, 1),
            stall("CrashLoop", 1),
            routing.metricLabels(java.util.Map.of()),
            dev.stallwatch.rollout.Pace.UNKNOWN,
            false));

    String scrape = registry.scrape();
    assertThat(scrape)
        .contains(
            "stallwatch_rollout_stalled{cause=\"ImagePull\",daemonset=\"toolkit\","
                + "label_app_kubernetes_io_part_of=\"\",label_team=\"gpu-platform\",namespace=\"gpu\","
                + "suspect=\"NewRevision\"} 1.0")
        .contains(
            "stallwatch_rollout_stalled{cause=\"CrashLoop\",daemonset=\"cni\","
                + "label_app_kubernetes_io_part_of=\"\",label_team=\"\",namespace=\"net\","
                + "suspect=\"NewRevision\"} 1.0")
        .contains("stallwatch_rollout_stalled_nodes{daemonset=\"toolkit\",namespace=\"gpu\"} 1.0")
        .doesNotContain("tier");

    // The team changes mid-stall: one series, with the new value.
    metrics.observe(
        "gpu",
        "toolkit",
        new Effect.SetSeries(
            split(2, 0, 1),
            stall("ImagePull", 1),
            routing.metricLabels(java.util.Map.of("team", "drivers")),
            dev.stallwatch.rollout.Pace.UNKNOWN,
            false));
    assertThat(registry.scrape())
        .contains("label_team=\"drivers\"")
        .doesNotContain("label_team=\"gpu-platform\"");
  }

  /** One observation with no routing labels, its pace unknown, not paused. */
  static Effect.SetSeries seen(RevisionNodes split, ActiveStall stall) {
    return new Effect.SetSeries(
        split, stall, java.util.Map.of(), dev.stallwatch.rollout.Pace.UNKNOWN, false);
  }

  private ActiveStall stall(String cause, int nodes) {
    return new ActiveStall(Cause.valueOf(cause), Suspect.NewRevision, nodes, since);
  }

  /** A split of so many old, new and pod-less nodes (named o0, n0, x0, …). */
  static RevisionNodes split(int old, int updated, int none) {
    return new RevisionNodes(names("o", old), names("n", updated), names("x", none));
  }

  private static java.util.List<String> names(String prefix, int n) {
    return java.util.stream.IntStream.range(0, n).mapToObj(i -> prefix + i).toList();
  }
}
