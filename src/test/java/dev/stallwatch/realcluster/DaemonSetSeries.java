package dev.stallwatch.realcluster;

import java.time.Duration;
import java.util.List;

/**
 * The kube_daemonset_status_* values of one DaemonSet in one scrape of kube-state-metrics ({@link
 * KubeStateMetrics}), and when the kubernetes-mixin alert would fire on a run of them.
 */
record DaemonSetSeries(
    java.time.Instant at,
    double desired,
    double current,
    double updated,
    double available,
    double misscheduled) {
  boolean unfinished() {
    return current != desired || misscheduled != 0 || updated != desired || available != desired;
  }

  /** The series of {@code daemonSet} in namespace {@code ns} in a scrape; null when absent. */
  static DaemonSetSeries of(String text, java.time.Instant at, String ns, String daemonSet) {
    double[] v = new double[5];
    String[] names = {
      "desired_number_scheduled",
      "current_number_scheduled",
      "updated_number_scheduled",
      "number_available",
      "number_misscheduled"
    };
    for (int i = 0; i < names.length; i++) {
      v[i] = Double.NaN;
      for (PromText.Sample s : PromText.samples(text, "kube_daemonset_status_" + names[i])) {
        if (ns.equals(s.label("namespace")) && daemonSet.equals(s.label("daemonset"))) {
          v[i] = s.value();
        }
      }
      if (Double.isNaN(v[i])) {
        return null;
      }
    }
    return new DaemonSetSeries(at, v[0], v[1], v[2], v[3], v[4]);
  }

  /**
   * When the kubernetes-mixin alert {@code KubeDaemonSetRolloutStuck} would fire for one DaemonSet,
   * from its scraped series: its condition ((current != desired) or (misscheduled != 0) or (updated
   * != desired) or (available != desired)) and {@code changes(updated[5m]) == 0}, held for {@code
   * for: 15m}. {@code changes()} stops seeing the last change of {@code updated} once the sample
   * before it has left the 5-minute window. Assumes the series keep their last scraped values (a
   * stalled pod's ImagePullBackOff is final); null when the condition is false at the last scrape.
   *
   * @param scrapes the DaemonSet's series per scrape, in time order
   */
  static java.time.Instant stuckAlertFiresAt(List<DaemonSetSeries> scrapes) {
    if (scrapes.isEmpty() || !scrapes.get(scrapes.size() - 1).unfinished()) {
      return null;
    }
    java.time.Instant windowFrom = scrapes.get(0).at(); // no change seen: from the first scrape
    for (int i = 1; i < scrapes.size(); i++) {
      if (scrapes.get(i).updated() != scrapes.get(i - 1).updated()) {
        windowFrom = scrapes.get(i - 1).at();
      }
    }
    return windowFrom.plus(Duration.ofMinutes(5)).plus(Duration.ofMinutes(15));
  }
}
