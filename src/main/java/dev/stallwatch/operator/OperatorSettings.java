package dev.stallwatch.operator;

import dev.stallwatch.operator.decision.RoutingLabels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The operator's validated configuration.
 *
 * @param namespaces namespaces to watch; empty means all
 * @param stallAfter how long a node may hold a rollout back before it is stuck
 * @param resolvedTtl how long a Resolved RolloutStall is kept
 * @param metricsPort port of /metrics, /healthz and /readyz; 0 picks a free one
 * @param leaderElection whether to hold the {@value #LEASE_NAME} Lease before reconciling
 * @param leaderElectionNamespace the Lease's namespace; required when leader election is on
 * @param autoRollback the global switch of auto-rollback (DaemonSets still opt in by annotation)
 * @param autoRollbackAfter how long a stall lasts before an opted-in DaemonSet is rolled back
 * @param routingLabels the DaemonSet labels copied onto its RolloutStall and stall series
 * @param advancedDaemonSets whether OpenKruise Advanced DaemonSets are watched where the cluster
 *     serves them ({@link AdvancedDaemonSets})
 * @param daemonSetConditions whether a stalled DaemonSet carries the {@code Stalled} condition
 *     ({@link StalledCondition}; needs patch on daemonsets/status)
 */
public record OperatorSettings(
    Set<String> namespaces,
    Duration stallAfter,
    Duration resolvedTtl,
    int metricsPort,
    boolean leaderElection,
    String leaderElectionNamespace,
    boolean autoRollback,
    Duration autoRollbackAfter,
    RoutingLabels routingLabels,
    boolean advancedDaemonSets,
    boolean daemonSetConditions) {

  /** Settings that write no DaemonSet condition. */
  public OperatorSettings(
      Set<String> namespaces,
      Duration stallAfter,
      Duration resolvedTtl,
      int metricsPort,
      boolean leaderElection,
      String leaderElectionNamespace,
      boolean autoRollback,
      Duration autoRollbackAfter,
      RoutingLabels routingLabels,
      boolean advancedDaemonSets) {
    this(
        namespaces,
        stallAfter,
        resolvedTtl,
        metricsPort,
        leaderElection,
        leaderElectionNamespace,
        autoRollback,
        autoRollbackAfter,
        routingLabels,
        advancedDaemonSets,
        false);
  }

  /** Settings that leave Advanced DaemonSets alone. */
  public OperatorSettings(
      Set<String> namespaces,
      Duration stallAfter,
      Duration resolvedTtl,
      int metricsPort,
      boolean leaderElection,
      String leaderElectionNamespace,
      boolean autoRollback,
      Duration autoRollbackAfter,
      RoutingLabels routingLabels) {
    this(
        namespaces,
        stallAfter,
        resolvedTtl,
        metricsPort,
        leaderElection,
        leaderElectionNamespace,
        autoRollback,
        autoRollbackAfter,
        routingLabels,
        false);
  }

  /** These settings, watching Advanced DaemonSets where served or not. */
  public OperatorSettings withAdvancedDaemonSets(boolean watch) {
    return new OperatorSettings(
        namespaces,
        stallAfter,
        resolvedTtl,
        metricsPort,
        leaderElection,
        leaderElectionNamespace,
        autoRollback,
        autoRollbackAfter,
        routingLabels,
        watch,
        daemonSetConditions);
  }

  /** These settings, writing the DaemonSets' Stalled condition or not. */
  public OperatorSettings withDaemonSetConditions(boolean write) {
    return new OperatorSettings(
        namespaces,
        stallAfter,
        resolvedTtl,
        metricsPort,
        leaderElection,
        leaderElectionNamespace,
        autoRollback,
        autoRollbackAfter,
        routingLabels,
        advancedDaemonSets,
        write);
  }

  public static final String LEASE_NAME = "stallwatch-leader";

  /** Default of {@code --auto-rollback-after}. */
  public static final Duration DEFAULT_AUTO_ROLLBACK_AFTER = Duration.ofMinutes(10);

  /** Settings without routing labels. */
  public OperatorSettings(
      Set<String> namespaces,
      Duration stallAfter,
      Duration resolvedTtl,
      int metricsPort,
      boolean leaderElection,
      String leaderElectionNamespace,
      boolean autoRollback,
      Duration autoRollbackAfter) {
    this(
        namespaces,
        stallAfter,
        resolvedTtl,
        metricsPort,
        leaderElection,
        leaderElectionNamespace,
        autoRollback,
        autoRollbackAfter,
        RoutingLabels.NONE);
  }

  /** Settings with auto-rollback off. */
  public OperatorSettings(
      Set<String> namespaces,
      Duration stallAfter,
      Duration resolvedTtl,
      int metricsPort,
      boolean leaderElection,
      String leaderElectionNamespace) {
    this(
        namespaces,
        stallAfter,
        resolvedTtl,
        metricsPort,
        leaderElection,
        leaderElectionNamespace,
        false,
        DEFAULT_AUTO_ROLLBACK_AFTER);
  }

  private static final Pattern DNS_1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  public OperatorSettings {
    namespaces = namespaces == null ? Set.of() : Set.copyOf(namespaces);
    routingLabels = routingLabels == null ? RoutingLabels.NONE : routingLabels;
    List<String> problems = new ArrayList<>();
    for (String ns : namespaces) {
      if (ns.length() > 63 || !DNS_1123_LABEL.matcher(ns).matches()) {
        problems.add("--namespaces: '" + ns + "' is not a valid namespace name");
      }
    }
    if (stallAfter == null || stallAfter.isZero() || stallAfter.isNegative()) {
      problems.add("--stall-after must be a positive duration such as 5m, got " + stallAfter);
    }
    if (resolvedTtl == null || resolvedTtl.isZero() || resolvedTtl.isNegative()) {
      problems.add("--resolved-ttl must be a positive duration such as 24h, got " + resolvedTtl);
    }
    if (metricsPort < 0 || metricsPort > 65535) {
      problems.add("--metrics-port must be between 0 and 65535, got " + metricsPort);
    }
    if (autoRollbackAfter == null || autoRollbackAfter.isNegative()) {
      problems.add(
          "--auto-rollback-after must be a duration such as 10m, got " + autoRollbackAfter);
    }
    if (leaderElection && (leaderElectionNamespace == null || leaderElectionNamespace.isBlank())) {
      problems.add(
          "--leader-election needs --leader-election-namespace"
              + " (or STALLWATCH_LEADER_ELECTION_NAMESPACE, or POD_NAMESPACE)");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
  }

  /** True when every namespace is watched. */
  public boolean allNamespaces() {
    return namespaces.isEmpty();
  }
}
