package dev.stallwatch.operator.effects;

import java.util.List;

/**
 * Every series the operator exports, in one place: the meter name the code registers, its kind, its
 * help text and its labels. The metrics reference's table lists exactly these, and the dashboard
 * and the alert rules query nothing else ({@code MetricsContractTest}); adding a series means a
 * constant here, the code that feeds it, and a row in that table.
 */
public enum Series {
  ROLLOUT_STALLED(
      "stallwatch.rollout.stalled",
      Kind.GAUGE,
      "1 while the DaemonSet's rollout is stalled",
      "namespace",
      "daemonset",
      "cause",
      "suspect"),
  ROLLOUT_STALLED_NODES(
      "stallwatch.rollout.stalled.nodes",
      Kind.GAUGE,
      "Nodes holding the stalled rollout back",
      "namespace",
      "daemonset"),
  ROLLOUT_STALL_STARTED(
      "stallwatch.rollout.stall.started.timestamp.seconds",
      Kind.GAUGE,
      "When the stall began, in Unix seconds",
      "namespace",
      "daemonset"),
  DAEMONSET_NODES(
      "stallwatch.daemonset.nodes",
      Kind.GAUGE,
      "Nodes by the revision of the DaemonSet pod they run",
      "namespace",
      "daemonset",
      "revision"),
  ROLLOUT_REMAINING_NODES(
      "stallwatch.rollout.remaining.nodes",
      Kind.GAUGE,
      "Desired nodes whose pod of the new revision is not available yet",
      "namespace",
      "daemonset"),
  ROLLOUT_ETA(
      "stallwatch.rollout.eta.seconds",
      Kind.GAUGE,
      "Time left at the pace of the last 10 minutes, while the rollout progresses and it is known",
      "namespace",
      "daemonset"),
  ROLLOUT_PAUSED(
      "stallwatch.rollout.paused",
      Kind.GAUGE,
      "1 while an OpenKruise Advanced DaemonSet's rollout is paused (rollingUpdate.paused)",
      "namespace",
      "daemonset"),
  STALLS(
      "stallwatch.stalls",
      Kind.COUNTER,
      "Rollout stalls detected",
      "namespace",
      "daemonset",
      "cause"),
  ROLLBACKS(
      "stallwatch.rollbacks",
      Kind.COUNTER,
      "Automatic rollbacks of stalled rollouts",
      "namespace",
      "daemonset"),
  LEADER(
      "stallwatch.leader",
      Kind.GAUGE,
      "1 when this replica holds the Lease and reconciles (always, without leader election)"),
  API_SERVER_REACHABLE(
      "stallwatch.api.server.reachable",
      Kind.GAUGE,
      "0 while this replica's watches are down or its reconciles cannot reach the API server"),
  RECONCILE("stallwatch.reconcile", Kind.TIMER, "Duration of one reconcile of a DaemonSet"),
  RECONCILE_CPU(
      "stallwatch.reconcile.cpu",
      Kind.TIMER,
      "CPU time of the reconciling thread per reconcile of a DaemonSet (beside its wall time: the"
          + " difference is waiting, for the API server, a lock or the CPU)"),
  RECONCILE_ERRORS(
      "stallwatch.reconcile.errors",
      Kind.COUNTER,
      "Reconciles that failed on an expected API answer and were retried",
      "reason"),
  CACHE_PODS(
      "stallwatch.cache.pods",
      Kind.GAUGE,
      "DaemonSet pods held in the operator's cache, by namespace",
      "namespace"),
  DAEMONSET_CONDITIONS_FOREIGN(
      "stallwatch.daemonset.conditions.foreign",
      Kind.GAUGE,
      "DaemonSets whose Stalled condition another writer owns, left alone (--daemonset-conditions)");

  /** How a series is measured; decides the suffix Prometheus gives its name. */
  public enum Kind {
    GAUGE(""),
    COUNTER("_total"),
    /** A histogram of seconds: {@code _bucket}, {@code _count}, {@code _sum} (and {@code _max}). */
    TIMER("_seconds");

    private final String suffix;

    Kind(String suffix) {
      this.suffix = suffix;
    }
  }

  private final String meter;
  private final Kind kind;
  private final String help;
  private final List<String> labels;

  Series(String meter, Kind kind, String help, String... labels) {
    this.meter = meter;
    this.kind = kind;
    this.help = help;
    this.labels = List.of(labels);
  }

  /** The name the code registers with Micrometer. */
  public String meter() {
    return meter;
  }

  public Kind kind() {
    return kind;
  }

  /** The series' HELP text. */
  public String help() {
    return help;
  }

  /**
   * Its labels, in the order docs/reference/metrics.md names them; {@link #ROLLOUT_STALLED} adds
   * one {@code label_<key>} per allowlisted DaemonSet label ({@link RoutingLabels}).
   */
  public List<String> labels() {
    return labels;
  }

  /** The name a Prometheus scrape shows (the metric family's name). */
  public String prometheusName() {
    return meter.replace('.', '_') + kind.suffix;
  }
}
