package dev.stallwatch.operator.effects;

import dev.stallwatch.operator.decision.ActiveStall;
import dev.stallwatch.operator.decision.Effect;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.NodeRow;
import dev.stallwatch.rollout.Pace;
import dev.stallwatch.rollout.RevisionNodes;
import dev.stallwatch.rollout.Suspect;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Feeds the operator's own Prometheus series ({@link Series} lists them), one set per DaemonSet.
 * Stall gauges exist only while the DaemonSet is stalled and every series of a DaemonSet goes away
 * when it is deleted, so a dashboard never shows a stale stall.
 */
public final class StallMetrics {

  private final MeterRegistry registry;
  private final Map<ResourceID, DaemonSetSeries> byDaemonSet = new ConcurrentHashMap<>();

  private final Timer reconciles;
  private final Timer reconcileCpu;

  public StallMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.reconciles =
        Timer.builder(Series.RECONCILE.meter())
            .description(Series.RECONCILE.help())
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofSeconds(30))
            .register(registry);
    this.reconcileCpu =
        Timer.builder(Series.RECONCILE_CPU.meter())
            .description(Series.RECONCILE_CPU.help())
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

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /** This thread's CPU time so far, or -1 where the JVM does not measure it. */
  public static long threadCpuNanos() {
    return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
  }

  /**
   * Records the latest observation of a DaemonSet ({@link Effect.SetSeries}): which nodes run which
   * revision; its stall, or none (the stall series are then removed), with its routing labels on
   * {@code stallwatch_rollout_stalled} (the same label names on every call); its {@link Pace}
   * ({@code stallwatch_rollout_remaining_nodes} always, {@code stallwatch_rollout_eta_seconds} only
   * while the time left is known); {@code stallwatch_rollout_paused} 1 while paused (an Advanced
   * DaemonSet's rollout its owner paused), absent otherwise.
   */
  public void observe(String namespace, String daemonSet, Effect.SetSeries observed) {
    List<Tag> routing = new ArrayList<>();
    observed.routing().forEach((label, value) -> routing.add(Tag.of(label, value)));
    DaemonSetSeries series =
        byDaemonSet.computeIfAbsent(
            key(namespace, daemonSet), k -> new DaemonSetSeries(namespace, daemonSet));
    synchronized (series) {
      series.update(observed.split(), observed.active(), routing);
      series.pace(observed.pace());
      series.paused(observed.paused());
    }
  }

  /** Counts one more stall (a transition into stalled, not a re-reconcile). */
  public void countStall(String namespace, String daemonSet, Cause cause) {
    DaemonSetSeries series =
        byDaemonSet.computeIfAbsent(
            key(namespace, daemonSet), k -> new DaemonSetSeries(namespace, daemonSet));
    synchronized (series) {
      Counter counter =
          Counter.builder(Series.STALLS.meter())
              .description(Series.STALLS.help())
              .tags(series.tags.and("cause", cause.name()))
              .register(registry);
      series.counters.add(counter);
      counter.increment();
    }
  }

  /** Counts one automatic rollback: {@code stallwatch_rollbacks_total{namespace,daemonset}}. */
  public void countRollback(String namespace, String daemonSet) {
    DaemonSetSeries series =
        byDaemonSet.computeIfAbsent(
            key(namespace, daemonSet), k -> new DaemonSetSeries(namespace, daemonSet));
    synchronized (series) {
      Counter counter =
          Counter.builder(Series.ROLLBACKS.meter())
              .description(Series.ROLLBACKS.help())
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
    Gauge.builder(Series.CACHE_PODS.meter(), () -> count.applyAsInt(namespace))
        .description(Series.CACHE_PODS.help())
        .tags("namespace", namespace)
        .strongReference(true)
        .register(registry);
  }

  /**
   * {@code stallwatch_daemonset_conditions_foreign}: how many DaemonSets carry a {@code Stalled}
   * condition another field manager owns, which the operator leaves alone ({@link
   * ConditionWrites}).
   */
  public void foreignConditions(int count) {
    foreign.set(count);
    if (foreignGauge == null) {
      synchronized (this) {
        if (foreignGauge == null) {
          foreignGauge =
              Gauge.builder(
                      Series.DAEMONSET_CONDITIONS_FOREIGN.meter(), foreign, AtomicInteger::get)
                  .description(Series.DAEMONSET_CONDITIONS_FOREIGN.help())
                  .strongReference(true)
                  .register(registry);
        }
      }
    }
  }

  private final AtomicInteger foreign = new AtomicInteger();
  private volatile Gauge foreignGauge;

  /**
   * Counts a reconcile that failed on an expected API answer ({@code conflict}, {@code throttled},
   * {@code gone}, {@code server}, {@code unreachable}, {@code goaway}) and is retried: {@code
   * stallwatch_reconcile_errors_total{reason}}. A steady rise means the operator cannot do its
   * work.
   */
  public void reconcileFailed(String reason) {
    Counter.builder(Series.RECONCILE_ERRORS.meter())
        .description(Series.RECONCILE_ERRORS.help())
        .tags("reason", reason)
        .register(registry)
        .increment();
  }

  /** How many counters a DaemonSet's series hold (for tests). */
  int counterCount(String namespace, String daemonSet) {
    DaemonSetSeries series = byDaemonSet.get(key(namespace, daemonSet));
    if (series == null) {
      return 0;
    }
    synchronized (series) {
      return series.counters.size();
    }
  }

  /** Removes every series of a DaemonSet that no longer exists. */
  public void forget(String namespace, String daemonSet) {
    DaemonSetSeries series = byDaemonSet.remove(key(namespace, daemonSet));
    if (series != null) {
      synchronized (series) {
        series.removeAll();
      }
    }
  }

  private static ResourceID key(String namespace, String daemonSet) {
    return new ResourceID(daemonSet, namespace);
  }

  /** The meters of one DaemonSet and the values they read. */
  private final class DaemonSetSeries {
    final Tags tags;
    final Map<NodeRow.Revision, Double> split = new java.util.EnumMap<>(NodeRow.Revision.class);
    final List<Meter> nodeGauges = new ArrayList<>();
    final List<Meter> stallGauges = new ArrayList<>();
    // A set: micrometer hands out the same counter for the same tags, and a list kept one more
    // reference to it per stall for as long as the DaemonSet lived.
    final java.util.Set<Meter> counters = new java.util.LinkedHashSet<>();
    Cause cause;
    Suspect suspect;
    List<Tag> routing = List.of();
    double stalledNodes;
    double startedSeconds;
    double remaining;
    double etaSeconds;
    Meter remainingGauge;
    Meter etaGauge;
    Meter pausedGauge;

    DaemonSetSeries(String namespace, String daemonSet) {
      this.tags = Tags.of("namespace", namespace, "daemonset", daemonSet);
    }

    void update(RevisionNodes newSplit, ActiveStall stall, List<Tag> newRouting) {
      for (NodeRow.Revision r : NodeRow.Revision.values()) {
        split.put(r, (double) newSplit.count(r));
      }
      if (nodeGauges.isEmpty()) {
        for (NodeRow.Revision r : NodeRow.Revision.values()) {
          nodeGauges.add(
              Gauge.builder(Series.DAEMONSET_NODES.meter(), this, s -> s.split.get(r))
                  .description(Series.DAEMONSET_NODES.help())
                  .tags(tags.and("revision", r.label()))
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
            Gauge.builder(Series.ROLLOUT_STALLED.meter(), this, s -> 1)
                .description(Series.ROLLOUT_STALLED.help())
                .tags(tags.and("cause", cause.name(), "suspect", suspect.name()).and(routing))
                .strongReference(true)
                .register(registry));
        stallGauges.add(
            Gauge.builder(Series.ROLLOUT_STALLED_NODES.meter(), this, s -> s.stalledNodes)
                .description(Series.ROLLOUT_STALLED_NODES.help())
                .tags(tags)
                .strongReference(true)
                .register(registry));
        stallGauges.add(
            Gauge.builder(Series.ROLLOUT_STALL_STARTED.meter(), this, s -> s.startedSeconds)
                .description(Series.ROLLOUT_STALL_STARTED.help())
                .tags(tags)
                .strongReference(true)
                .register(registry));
      }
    }

    void pace(Pace pace) {
      remaining = pace.remaining();
      if (remainingGauge == null) {
        remainingGauge =
            Gauge.builder(Series.ROLLOUT_REMAINING_NODES.meter(), this, s -> s.remaining)
                .description(Series.ROLLOUT_REMAINING_NODES.help())
                .tags(tags)
                .strongReference(true)
                .register(registry);
      }
      if (pace.eta() == null) {
        removeEta();
        return;
      }
      etaSeconds = pace.eta().toSeconds();
      if (etaGauge == null) {
        etaGauge =
            Gauge.builder(Series.ROLLOUT_ETA.meter(), this, s -> s.etaSeconds)
                .description(Series.ROLLOUT_ETA.help())
                .tags(tags)
                .strongReference(true)
                .register(registry);
      }
    }

    void paused(boolean paused) {
      if (paused && pausedGauge == null) {
        pausedGauge =
            Gauge.builder(Series.ROLLOUT_PAUSED.meter(), this, s -> 1)
                .description(Series.ROLLOUT_PAUSED.help())
                .tags(tags)
                .strongReference(true)
                .register(registry);
      } else if (!paused && pausedGauge != null) {
        registry.remove(pausedGauge);
        pausedGauge = null;
      }
    }

    private void removeEta() {
      if (etaGauge != null) {
        registry.remove(etaGauge);
        etaGauge = null;
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
      removeEta();
      paused(false);
      if (remainingGauge != null) {
        registry.remove(remainingGauge);
        remainingGauge = null;
      }
      nodeGauges.forEach(registry::remove);
      nodeGauges.clear();
      counters.forEach(registry::remove);
      counters.clear();
    }
  }
}
