package dev.stallwatch.operator;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The operator's own Prometheus series, one set per DaemonSet. Stall gauges exist only while the
 * DaemonSet is stalled and every series of a DaemonSet goes away when it is deleted, so a dashboard
 * never shows a stale stall.
 *
 * <ul>
 *   <li>{@code stallwatch_rollout_stalled{namespace,daemonset,cause,suspect,label_*}}: 1 while
 *       stalled ({@code suspect}: NewRevision, Node or Unknown — would rolling back help?; {@code
 *       label_*}: the allowlisted DaemonSet labels, {@link RoutingLabels})
 *   <li>{@code stallwatch_rollout_stalled_nodes{namespace,daemonset}}
 *   <li>{@code stallwatch_rollout_stall_started_timestamp_seconds{namespace,daemonset}}
 *   <li>{@code stallwatch_daemonset_nodes{namespace,daemonset,revision="old|new|none"}}
 *   <li>{@code stallwatch_stalls_total{namespace,daemonset,cause}}
 *   <li>{@code stallwatch_reconcile_seconds} (a histogram, no labels): how long each reconcile of a
 *       DaemonSet took, from the cached objects to the last write; its {@code _count} is the number
 *       of reconciles (the scale run reads both; JOSDK's own counters leave out the latency)
 *   <li>{@code stallwatch_reconcile_cpu_seconds} (a histogram, no labels): the reconciling thread's
 *       CPU time per reconcile, beside its wall time
 *   <li>{@code stallwatch_cache_pods{namespace}}: DaemonSet pods in the operator's cache
 *   <li>{@code stallwatch_reconcile_errors_total{reason}}: reconciles that met an expected API
 *       failure (conflict, throttled, gone, server, unreachable, goaway) and were retried
 * </ul>
 */
public final class StallMetrics {
  static final String STALLED = "stallwatch.rollout.stalled";
  static final String STALLED_NODES = "stallwatch.rollout.stalled.nodes";
  static final String STALL_STARTED = "stallwatch.rollout.stall.started.timestamp.seconds";
  static final String NODES = "stallwatch.daemonset.nodes";
  static final String STALLS = "stallwatch.stalls";
  static final String ROLLBACKS = "stallwatch.rollbacks";
  static final String RECONCILE = "stallwatch.reconcile";
  static final String RECONCILE_CPU = "stallwatch.reconcile.cpu";
  static final String CACHED_PODS = "stallwatch.cache.pods";
  static final String RECONCILE_ERRORS = "stallwatch.reconcile.errors";
  private static final String[] REVISIONS = {"old", "new", "none"};

  private final MeterRegistry registry;
  private final Map<String, Series> byDaemonSet = new ConcurrentHashMap<>();

  private final Timer reconciles;
  private final Timer reconcileCpu;

  public StallMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.reconciles =
        Timer.builder(RECONCILE)
            .description("Duration of one reconcile of a DaemonSet")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofSeconds(30))
            .register(registry);
    this.reconcileCpu =
        Timer.builder(RECONCILE_CPU)
            .description(
                "CPU time of the reconciling thread per reconcile of a DaemonSet (beside its wall"
                    + " time: the difference is waiting, for the API server, a lock or the CPU)")
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofNanos(100_000))
            .maximumExpectedValue(Duration.ofSeconds(10))
            .register(registry);
  }

  /** Records one reconcile that took {@code nanos}. */
  public void reconciled(long nanos) {
    reconciles.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  /**
   * Records one reconcile that took {@code wallNanos} and {@code cpuNanos} of its thread's CPU;
   * {@code cpuNanos} below 0: the JVM measures no thread CPU time, only the wall time is recorded.
   */
  public void reconciled(long wallNanos, long cpuNanos) {
    reconciled(wallNanos);
    if (cpuNanos >= 0) {
      reconcileCpu.record(cpuNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }
  }

  /** An active stall as the gauges show it. */
  public record ActiveStall(String cause, String suspect, int nodes, Instant since) {
    public ActiveStall {
      suspect = suspect == null ? "Unknown" : suspect;
    }

    /** A stall whose suspect is not known. */
    public ActiveStall(String cause, int nodes, Instant since) {
      this(cause, null, nodes, since);
    }
  }

  /**
   * Records the latest observation of a DaemonSet: its node split ({@code [old, new, none]}) and
   * its stall, or null when it is not stalled (the stall series are then removed).
   */
  public void observe(String namespace, String daemonSet, int[] split, ActiveStall stall) {
    observe(namespace, daemonSet, split, stall, List.of());
  }

  /**
   * As {@link #observe(String, String, int[], ActiveStall)}, with the DaemonSet's routing labels
   * ({@link RoutingLabels#tags}) on {@code stallwatch_rollout_stalled}; the same label names on
   * every call.
   */
  public void observe(
      String namespace, String daemonSet, int[] split, ActiveStall stall, List<Tag> routing) {
    Series series =
        byDaemonSet.computeIfAbsent(
            key(namespace, daemonSet), k -> new Series(namespace, daemonSet));
    synchronized (series) {
      series.update(split, stall, routing);
    }
  }

  /** Counts one more stall (a transition into stalled, not a re-reconcile). */
  public void countStall(String namespace, String daemonSet, String cause) {
    Series series =
        byDaemonSet.computeIfAbsent(
            key(namespace, daemonSet), k -> new Series(namespace, daemonSet));
    synchronized (series) {
      Counter counter =
          Counter.builder(STALLS)
              .description("Rollout stalls detected")
              .tags(series.tags.and("cause", cause))
              .register(registry);
      series.counters.add(counter);
      counter.increment();
    }
  }

  /** Counts one automatic rollback: {@code stallwatch_rollbacks_total{namespace,daemonset}}. */
  public void countRollback(String namespace, String daemonSet) {
    Series series =
        byDaemonSet.computeIfAbsent(
            key(namespace, daemonSet), k -> new Series(namespace, daemonSet));
    synchronized (series) {
      Counter counter =
          Counter.builder(ROLLBACKS)
              .description("Automatic rollbacks of stalled rollouts")
              .tags(series.tags)
              .register(registry);
      series.counters.add(counter);
      counter.increment();
    }
  }

  /**
   * {@code stallwatch_cache_pods{namespace}}: the DaemonSet pods the operator holds in its cache
   * for a namespace, read from {@code count} (registered the first time a namespace's pod is
   * cached). It tells a cache that lost objects apart from a quiet cluster: the number matches
   * {@code kubectl get pods -l pod-template-generation -n NAMESPACE}.
   */
  public void cachedPods(String namespace, java.util.function.ToIntFunction<String> count) {
    Gauge.builder(CACHED_PODS, () -> count.applyAsInt(namespace))
        .description("DaemonSet pods held in the operator's cache, by namespace")
        .tags("namespace", namespace)
        .strongReference(true)
        .register(registry);
  }

  /**
   * Counts a reconcile that failed on an expected API answer ({@code conflict}, {@code throttled},
   * {@code gone}, {@code server}, {@code unreachable}, {@code goaway}) and is retried: {@code
   * stallwatch_reconcile_errors_total{reason}}. A steady rise means the operator cannot do its
   * work.
   */
  public void reconcileFailed(String reason) {
    Counter.builder(RECONCILE_ERRORS)
        .description("Reconciles that failed on an expected API answer and were retried")
        .tags("reason", reason)
        .register(registry)
        .increment();
  }

  /** How many counters a DaemonSet's series hold (for tests). */
  int counterCount(String namespace, String daemonSet) {
    Series series = byDaemonSet.get(key(namespace, daemonSet));
    if (series == null) {
      return 0;
    }
    synchronized (series) {
      return series.counters.size();
    }
  }

  /** Removes every series of a DaemonSet that no longer exists. */
  public void forget(String namespace, String daemonSet) {
    Series series = byDaemonSet.remove(key(namespace, daemonSet));
    if (series != null) {
      synchronized (series) {
        series.removeAll();
      }
    }
  }

  private static String key(String namespace, String daemonSet) {
    return namespace + "/" + daemonSet;
  }

  /** The meters of one DaemonSet and the values they read. */
  private final class Series {
    final Tags tags;
    final double[] split = new double[3];
    final List<Meter> nodeGauges = new ArrayList<>();
    final List<Meter> stallGauges = new ArrayList<>();
    // A set: micrometer hands out the same counter for the same tags, and a list kept one more
    // reference to it per stall for as long as the DaemonSet lived.
    final java.util.Set<Meter> counters = new java.util.LinkedHashSet<>();
    String cause;
    String suspect;
    List<Tag> routing = List.of();
    double stalledNodes;
    double startedSeconds;

    Series(String namespace, String daemonSet) {
      this.tags = Tags.of("namespace", namespace, "daemonset", daemonSet);
    }

    void update(int[] newSplit, ActiveStall stall, List<Tag> newRouting) {
      for (int i = 0; i < 3; i++) {
        split[i] = newSplit[i];
      }
      if (nodeGauges.isEmpty()) {
        for (int i = 0; i < 3; i++) {
          final int index = i;
          nodeGauges.add(
              Gauge.builder(NODES, this, s -> s.split[index])
                  .description("Nodes by the revision of the DaemonSet pod they run")
                  .tags(tags.and("revision", REVISIONS[i]))
                  .strongReference(true)
                  .register(registry));
        }
      }
      if (stall == null) {
        removeStallGauges();
        return;
      }
      if (!stall.cause().equals(cause)
          || !stall.suspect().equals(suspect)
          || !newRouting.equals(routing)) {
        removeStallGauges();
        cause = stall.cause();
        suspect = stall.suspect();
        routing = List.copyOf(newRouting);
      }
      stalledNodes = stall.nodes();
      startedSeconds = stall.since().toEpochMilli() / 1000.0;
      if (stallGauges.isEmpty()) {
        stallGauges.add(
            Gauge.builder(STALLED, this, s -> 1)
                .description("1 while the DaemonSet's rollout is stalled")
                .tags(tags.and("cause", cause, "suspect", suspect).and(routing))
                .strongReference(true)
                .register(registry));
        stallGauges.add(
            Gauge.builder(STALLED_NODES, this, s -> s.stalledNodes)
                .description("Nodes holding the stalled rollout back")
                .tags(tags)
                .strongReference(true)
                .register(registry));
        stallGauges.add(
            Gauge.builder(STALL_STARTED, this, s -> s.startedSeconds)
                .description("When the stall began, in Unix seconds")
                .tags(tags)
                .strongReference(true)
                .register(registry));
      }
    }

    void removeStallGauges() {
      stallGauges.forEach(registry::remove);
      stallGauges.clear();
      cause = null;
      suspect = null;
      routing = List.of();
    }

    void removeAll() {
      removeStallGauges();
      nodeGauges.forEach(registry::remove);
      nodeGauges.clear();
      counters.forEach(registry::remove);
      counters.clear();
    }
  }
}
