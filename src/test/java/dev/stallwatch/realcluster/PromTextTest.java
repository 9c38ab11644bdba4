package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PromTextTest {
  private static final String SCRAPE =
      """
      # HELP stallwatch_rollout_stalled 1 while stalled
      # TYPE stallwatch_rollout_stalled gauge
      stallwatch_rollout_stalled{cause="ImagePull",daemonset="probe-01",namespace="scale",suspect="NewRevision"} 1.0
      stallwatch_rollout_stalled_nodes{daemonset="probe-01",namespace="scale"} 1.0
      stallwatch_reconcile_seconds_bucket{le="0.001"} 10
      stallwatch_reconcile_seconds_bucket{le="0.002"} 30
      stallwatch_reconcile_seconds_bucket{le="0.004"} 40
      stallwatch_reconcile_seconds_bucket{le="+Inf"} 40
      stallwatch_reconcile_seconds_count 40
      kube_pod_labels{namespace="a",pod="p",label_x="with \\"quote\\", comma"} 1
      """;

  @Test
  void samplesOfOneMetricAreReadWithTheirLabelsButNotThoseOfALongerName() {
    var stalled = PromText.samples(SCRAPE, "stallwatch_rollout_stalled");

    assertThat(stalled).hasSize(1);
    assertThat(stalled.get(0).label("daemonset")).isEqualTo("probe-01");
    assertThat(stalled.get(0).value()).isEqualTo(1.0);
    assertThat(PromText.value(SCRAPE, "stallwatch_reconcile_seconds_count")).isEqualTo(40);
    assertThat(PromText.samples(SCRAPE, "kube_pod_labels").get(0).label("label_x"))
        .isEqualTo("with \"quote\", comma");
    assertThat(PromText.seriesCount(SCRAPE)).isEqualTo(8);
  }

  @Test
  void aQuantileOfTheObservationsBetweenTwoScrapesIsInterpolatedInsideItsBucket() {
    var after = PromText.buckets(SCRAPE, "stallwatch_reconcile_seconds");
    Map<Double, Double> before =
        Map.of(0.001, 10.0, 0.002, 10.0, 0.004, 10.0, Double.POSITIVE_INFINITY, 10.0);

    // 30 new observations: 20 in (1 ms, 2 ms], 10 in (2 ms, 4 ms]
    assertThat(PromText.quantile(0.5, before, after)).isCloseTo(0.00175, within(1e-9));
    assertThat(PromText.quantile(0.99, before, after)).isCloseTo(0.00394, within(1e-9));
    assertThat(PromText.quantile(0.5, after, after)).isNaN();
  }

  @Test
  void theStuckAlertFiresTwentyMinutesAfterTheSampleBeforeTheLastChangeOfUpdated() {
    Instant t = Instant.parse("2026-12-03T12:00:00Z");
    var scrapes =
        List.of(
            new DaemonSetSeries(t, 1, 1, 0, 1, 0),
            new DaemonSetSeries(t.plusSeconds(15), 1, 1, 1, 0, 0),
            new DaemonSetSeries(t.plusSeconds(30), 1, 1, 1, 0, 0));

    assertThat(DaemonSetSeries.stuckAlertFiresAt(scrapes))
        .isEqualTo(t.plus(Duration.ofMinutes(20)));
  }

  @Test
  void aFinishedRolloutNeverFiresTheStuckAlert() {
    Instant t = Instant.parse("2026-12-03T12:00:00Z");
    var done = List.of(new DaemonSetSeries(t, 3, 3, 3, 3, 0));

    assertThat(DaemonSetSeries.stuckAlertFiresAt(done)).isNull();
    assertThat(DaemonSetSeries.stuckAlertFiresAt(List.of())).isNull();
  }
}
