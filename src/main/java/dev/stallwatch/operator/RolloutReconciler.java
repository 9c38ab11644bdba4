package dev.stallwatch.operator;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.Keys;
import dev.stallwatch.operator.cache.CacheReads;
import dev.stallwatch.operator.cache.FailedCreates;
import dev.stallwatch.operator.cache.ListProgress;
import dev.stallwatch.operator.cache.RolloutEventSources;
import dev.stallwatch.operator.cache.Watched;
import dev.stallwatch.operator.decision.Performed;
import dev.stallwatch.operator.decision.RolloutDecider;
import dev.stallwatch.operator.decision.RolloutState;
import dev.stallwatch.operator.decision.StallNodes;
import dev.stallwatch.operator.decision.StallPlanner;
import dev.stallwatch.operator.effects.ApiTrouble;
import dev.stallwatch.operator.effects.ConditionWrites;
import dev.stallwatch.operator.effects.EffectRunner;
import dev.stallwatch.operator.effects.StallEvents;
import dev.stallwatch.operator.effects.StallMetrics;
import dev.stallwatch.operator.effects.StallWrites;
import dev.stallwatch.rollback.AutoRollback;
import dev.stallwatch.rollback.RollbackPolicy;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.RolloutSnapshot;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Observes every DaemonSet: builds its snapshot from the caches (with the controller's FailedCreate
 * Events when what it remembers says they are due), hands it with what it remembers of the
 * DaemonSet ({@link RolloutState}) to {@link RolloutDecider}, the one place that decides, has
 * {@link EffectRunner} run the decision's effects (RolloutStalls, Events, metrics, the opt-in
 * auto-rollback, the condition) and gives what they came to back to the decider ({@link
 * RolloutDecider#settle}). No finalizer: deletions arrive through {@code
 * triggerReconcilerOnAllEvents}.
 *
 * <p>One reconciler per kind of DaemonSet ({@link Watched}): {@code apps/v1}, and OpenKruise's
 * Advanced DaemonSet where the cluster serves it; each reads its primary as a DaemonSet.
 */
abstract sealed class RolloutReconciler<P extends HasMetadata> implements Reconciler<P>
    permits DaemonSetRolloutReconciler, AdvancedDaemonSetRolloutReconciler {
  private static final Logger log = LoggerFactory.getLogger(RolloutReconciler.class);
  private static final Duration MIN_RESCHEDULE = Duration.ofMillis(200);

  /** How soon a reconcile that met a conflict (409), a 410 or a 429 is tried again. */
  static final Duration CONFLICT_RETRY = RolloutDecider.CONFLICT_RETRY;

  /** How soon a reconcile that could not reach the API server is tried again. */
  static final Duration OUTAGE_RETRY = Duration.ofSeconds(5);

  private final Clock clock;
  private final UnaryOperator<Duration> toRealDelay;
  private final RolloutDecider decider;
  private final EffectRunner effects;
  private final StallMetrics metrics;
  private final FailedCreates failedCreates;
  private final ApiReachability reachability;
  private final RolloutEventSources.Stores stores;
  private final Map<ResourceID, RolloutState> states = new ConcurrentHashMap<>();
  private final Watched<P> watched;
  private final io.fabric8.kubernetes.client.KubernetesClient listing;

  /**
   * @param toRealDelay turns a delay on {@code clock} into a wall-clock delay (identity unless the
   *     clock runs faster than real time, as the demo's does)
   */
  RolloutReconciler(
      Watched<P> watched,
      Clock clock,
      UnaryOperator<Duration> toRealDelay,
      OperatorSettings config,
      StallMetrics metrics,
      StallEvents events,
      io.fabric8.kubernetes.client.KubernetesClient client,
      io.fabric8.kubernetes.client.KubernetesClient listing,
      ApiReachability reachability) {
    this.listing = listing;
    this.watched = watched;
    this.clock = clock;
    this.reachability = reachability;
    this.toRealDelay = toRealDelay;
    RollbackPolicy policy = new RollbackPolicy(config.autoRollback(), config.autoRollbackAfter());
    this.decider =
        new RolloutDecider(
            new AnalyzerSettings(config.stallAfter()),
            new StallPlanner(config.resolvedTtl()),
            policy,
            config.routingLabels(),
            config.daemonSetConditions());
    this.metrics = metrics;
    this.stores = new RolloutEventSources.Stores(ns -> metrics.cachedPods(ns, this::cachedPods));
    this.effects =
        new EffectRunner(
            new StallWrites(client, config.routingLabels()),
            events,
            metrics,
            config.daemonSetConditions() ? new ConditionWrites(client, metrics) : null,
            new AutoRollback(policy, client));
    this.failedCreates = new FailedCreates(client);
  }

  /** How many pods, nodes and ControllerRevisions this reconciler's caches hold. */
  ListProgress.Counts cached() {
    return stores.counts();
  }

  private int cachedPods(String namespace) {
    return stores.cachedPods(namespace);
  }

  @Override
  public List<EventSource<?, P>> prepareEventSources(EventSourceContext<P> context) {
    return RolloutEventSources.create(context, stores, watched, listing);
  }

  @Override
  public UpdateControl<P> reconcile(P primary, Context<P> context) {
    DaemonSet ds = watched.asDaemonSet().apply(primary);
    long started = System.nanoTime();
    long cpuStarted = StallMetrics.threadCpuNanos();
    try {
      UpdateControl<P> done = observe(ds, context);
      reachability.authorized();
      return done;
    } catch (RuntimeException e) {
      // An API server restarting, throttling or answering a conflict: retried shortly, counted,
      // one line at most per outage. Anything else keeps its stack trace (JOSDK logs it).
      ApiTrouble trouble = ApiTrouble.of(e).orElseThrow(() -> e);
      metrics.reconcileFailed(trouble.reason().name());
      if (trouble.outage()) {
        reachability.reconcileFailed(trouble);
      } else if (trouble.reason() == ApiTrouble.Reason.forbidden) {
        reachability.reconcileRefused(trouble);
      }
      log.debug(
          "{}: reconcile failed ({}), retried: {}",
          Keys.of(ds),
          trouble.reason(),
          trouble.message());
      return UpdateControl.<P>noUpdate()
          .rescheduleAfter(
              trouble.outage() || trouble.reason() == ApiTrouble.Reason.forbidden
                  ? OUTAGE_RETRY
                  : CONFLICT_RETRY);
    } finally {
      long cpu = StallMetrics.threadCpuNanos();
      metrics.reconciled(
          System.nanoTime() - started, cpu < 0 || cpuStarted < 0 ? -1 : cpu - cpuStarted);
    }
  }

  private UpdateControl<P> observe(DaemonSet ds, Context<P> context) {
    ResourceID id = ResourceID.fromResource(ds);
    String ns = ds.getMetadata().getNamespace();
    String name = ds.getMetadata().getName();
    Set<RolloutStall> stalls = CacheReads.stalls(context, ns, name);
    Instant now = clock.instant();
    var target =
        new EffectRunner.Target(
            ds,
            watched.apiVersion(),
            CacheReads.stallCache(context),
            () -> CacheReads.stalls(context, ns, name),
            now);
    if (context.isPrimaryResourceDeleted()) {
      states.remove(id);
      effects.run(target, decider.deleted(ds, stalls).effects()).rethrow();
      return UpdateControl.noUpdate();
    }
    RolloutState state = states.getOrDefault(id, RolloutState.NEW);
    RolloutDecider.Decision decision;
    try {
      RolloutSnapshot snapshot = CacheReads.snapshot(stores, ds, context);
      var seen =
          new RolloutDecider.Observation(
              ds,
              snapshot,
              stalls,
              StallNodes.of(snapshot),
              state.failedCreatesDue(now) ? failedCreates.list(ds) : null);
      decision = decider.decide(seen, state, now);
    } catch (InvalidObjectException e) {
      decision = decider.invalid(ds, e.getMessage(), state);
    }
    if (decision.verdict() != null && log.isDebugEnabled()) {
      log.debug("{}: {} {}", Keys.of(ds), decision.verdict().phase(), decision.verdict().message());
    }
    Performed done = effects.run(target, decision.effects());
    RolloutDecider.Decision settled = decider.settle(ds, decision, done, now);
    remember(id, settled.state());
    Performed after = effects.run(target, settled.effects());
    done.rethrow();
    after.rethrow();
    return reschedule(now, RolloutDecider.earliest(done.next(), after.next()));
  }

  /** Keeps what there is to remember; a DaemonSet with nothing to remember has no record. */
  private void remember(ResourceID id, RolloutState state) {
    if (state.equals(RolloutState.NEW)) {
      states.remove(id);
    } else {
      states.put(id, state);
    }
  }

  private UpdateControl<P> reschedule(Instant now, Instant next) {
    if (next == null) {
      return UpdateControl.noUpdate();
    }
    Duration delay = toRealDelay.apply(Duration.between(now, next));
    // Land just after the instant, never before it, so the next verdict already sees the change.
    delay = delay.plusMillis(50);
    return UpdateControl.<P>noUpdate()
        .rescheduleAfter(delay.compareTo(MIN_RESCHEDULE) < 0 ? MIN_RESCHEDULE : delay);
  }
}
