package dev.stallwatch.operator;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.rollback.AutoRollback;
import dev.stallwatch.rollback.RollbackDecision;
import dev.stallwatch.rollback.RollbackPolicy;
import dev.stallwatch.rollback.RollbackRecord;
import dev.stallwatch.rollback.RollbackResult;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.EventView;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.rollout.RolloutSnapshot;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.rollout.SnapshotLag;
import dev.stallwatch.rollout.StallMemory;
import dev.stallwatch.rollout.UnconfirmedStall;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Observes every DaemonSet: builds its snapshot from the caches, asks the analyzer for a verdict,
 * and records the result as RolloutStalls, Events and metrics. Every decision comes from the
 * analyzer; this class only observes, records and reports. It writes the DaemonSet only for the
 * opt-in auto-rollback ({@link AutoRollback}: global switch and per-DaemonSet annotation); no
 * finalizer either: deletions arrive through {@code triggerReconcilerOnAllEvents}.
 */
@ControllerConfiguration(
    name = DaemonSetRolloutReconciler.NAME,
    generationAwareEventProcessing = false,
    triggerReconcilerOnAllEvents = true)
public final class DaemonSetRolloutReconciler implements Reconciler<DaemonSet> {
  public static final String NAME = "daemonset-rollout";
  private static final Logger log = LoggerFactory.getLogger(DaemonSetRolloutReconciler.class);
  private static final Duration MIN_RESCHEDULE = Duration.ofMillis(200);

  private final Clock clock;
  private final UnaryOperator<Duration> toRealDelay;
  private final AnalyzerSettings settings;
  private final StallPlanner planner;
  private final StallMetrics metrics;
  private final StallEvents events;
  private final StallWrites writes;
  private final AutoRollback autoRollback;
  private final FailedCreates failedCreates;
  private final ApiReachability reachability;
  private final StallMemories memories = new StallMemories();
  private final RolloutEventSources.Stores stores;
  private final Map<String, String> reportedInvalid = new ConcurrentHashMap<>();
  private final Map<String, Refusal> refusedRollbacks = new ConcurrentHashMap<>();

  /**
   * The rollbacks this operator did, per DaemonSet. A reconcile right after one may still see the
   * DaemonSet and its RolloutStalls as they were before it (its own writes reach the caches a
   * moment later): without these it would try again and report a refusal that means nothing.
   */
  private final Map<String, List<RollbackRecord>> ownRollbacks = new ConcurrentHashMap<>();

  /** How soon a DaemonSet whose caches lag behind each other is looked at again. */
  static final Duration LAG_RECHECK = Duration.ofSeconds(1);

  /**
   * How long a lag is waited out at most: longer, it is no relist (a ControllerRevision deleted by
   * hand, a controller that is down) and the verdict is recorded all the same.
   */
  static final Duration LAG_LIMIT = Duration.ofSeconds(60);

  private final Map<String, Instant> lagSince = new ConcurrentHashMap<>();

  /**
   * How long a stall that rests only on pod deletions first seen past stall-after ({@link
   * UnconfirmedStall}) is looked at again before it is recorded: long enough for the DaemonSet's
   * change held back behind the deletion (a hung connection resuming) to arrive; a pod truly stuck
   * terminating is recorded this much later, with the same stalledSince.
   */
  static final Duration CONFIRMATION = Duration.ofSeconds(2);

  /** A stall being confirmed: of which revision, since when. */
  private record Confirming(String hash, Instant since) {}

  private final Map<String, Confirming> confirming = new ConcurrentHashMap<>();

  private final RoutingLabels routing;

  /** How long after a failed auto-rollback it is tried again (a 403, a conflict that persisted). */
  static final Duration ROLLBACK_RETRY = Duration.ofMinutes(1);

  /** An auto-rollback that could not be done: of which stalled revision, why, when to retry. */
  private record Refusal(String hash, String reason, Instant retryAt) {}

  /**
   * @param toRealDelay turns a delay on {@code clock} into a wall-clock delay (identity unless the
   *     clock runs faster than real time, as the demo's does)
   */
  public DaemonSetRolloutReconciler(
      Clock clock,
      UnaryOperator<Duration> toRealDelay,
      OperatorSettings config,
      StallMetrics metrics,
      StallEvents events,
      io.fabric8.kubernetes.client.KubernetesClient client,
      ApiReachability reachability) {
    this.clock = clock;
    this.reachability = reachability;
    this.toRealDelay = toRealDelay;
    this.settings = new AnalyzerSettings(config.stallAfter());
    this.planner = new StallPlanner(config.resolvedTtl());
    this.metrics = metrics;
    this.stores = new RolloutEventSources.Stores(ns -> metrics.cachedPods(ns, this::cachedPods));
    this.events = events;
    this.routing = config.routingLabels();
    this.writes = new StallWrites(client, events, metrics, routing);
    this.failedCreates = new FailedCreates(client);
    this.autoRollback =
        new AutoRollback(
            new RollbackPolicy(config.autoRollback(), config.autoRollbackAfter()), client);
  }

  private int cachedPods(String namespace) {
    return stores.cachedPods(namespace);
  }

  @Override
  public List<EventSource<?, DaemonSet>> prepareEventSources(
      EventSourceContext<DaemonSet> context) {
    return RolloutEventSources.create(context, stores);
  }

  @Override
  public UpdateControl<DaemonSet> reconcile(DaemonSet ds, Context<DaemonSet> context) {
    long started = System.nanoTime();
    long cpuStarted = threadCpuNanos();
    try {
      return observe(ds, context);
    } catch (RuntimeException e) {
      // An API server restarting, throttling or answering a conflict: retried shortly, counted,
      // one line at most per outage. Anything else keeps its stack trace (JOSDK logs it).
      ApiTrouble trouble = ApiTrouble.of(e).orElseThrow(() -> e);
      metrics.reconcileFailed(trouble.reason().name());
      if (trouble.outage()) {
        reachability.reconcileFailed(trouble);
      }
      log.debug(
          "{}/{}: reconcile failed ({}), retried: {}",
          ds.getMetadata().getNamespace(),
          ds.getMetadata().getName(),
          trouble.reason(),
          trouble.message());
      return UpdateControl.<DaemonSet>noUpdate()
          .rescheduleAfter(trouble.outage() ? OUTAGE_RETRY : CONFLICT_RETRY);
    } finally {
      long cpu = threadCpuNanos();
      metrics.reconciled(
          System.nanoTime() - started, cpu < 0 || cpuStarted < 0 ? -1 : cpu - cpuStarted);
    }
  }

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /** This thread's CPU time so far, or -1 where the JVM does not measure it. */
  private static long threadCpuNanos() {
    return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
  }

  /** How soon a reconcile that met a conflict (409), a 410 or a 429 is tried again. */
  static final Duration CONFLICT_RETRY = Duration.ofSeconds(1);

  /** How soon a reconcile that could not reach the API server is tried again. */
  static final Duration OUTAGE_RETRY = Duration.ofSeconds(5);

  private UpdateControl<DaemonSet> observe(DaemonSet ds, Context<DaemonSet> context) {
    String ns = ds.getMetadata().getNamespace();
    String name = ds.getMetadata().getName();
    String key = ns + "/" + name;
    Set<RolloutStall> stalls = stalls(context, ns, name);
    if (context.isPrimaryResourceDeleted()) {
      forget(key, ns, name, stalls);
      return UpdateControl.noUpdate();
    }
    Instant now = clock.instant();
    RolloutSnapshot snapshot;
    try {
      snapshot =
          snapshot(
              ds,
              pods(context, ns, name),
              () -> nodes(context),
              owned(context, ControllerRevision.class, RolloutEventSources.REVISIONS, ns, name));
    } catch (InvalidObjectException e) {
      reportInvalid(ds, key, e);
      return UpdateControl.noUpdate();
    }
    reportedInvalid.remove(key);
    if (cachesLag(key, snapshot, now)) {
      // Mid-relist: a verdict now would judge the previous revision as the new one (a stall of it,
      // superseded a moment later). Nothing is recorded; the caches catch up within moments.
      return UpdateControl.<DaemonSet>noUpdate().rescheduleAfter(LAG_RECHECK);
    }
    StallMemory memory = memories.recall(key, stalls);
    RolloutVerdict verdict = RolloutAnalyzer.analyze(snapshot, now, settings, memory);
    if (FailedCreates.wanted(verdict)) {
      // A node without a pod has crossed stall-after: only the controller's Events say why.
      List<EventView> events = failedCreates.of(ds, now);
      if (!events.isEmpty()) {
        verdict = RolloutAnalyzer.analyze(snapshot.withEvents(events), now, settings, memory);
      }
    } else {
      failedCreates.forget(key);
    }
    Instant confirmAt = unconfirmed(key, snapshot, verdict, memory, stalls, now);
    if (confirmAt != null) {
      // Maybe old news (a deletion held back with the DaemonSet's change behind it): nothing is
      // recorded or remembered yet; looked at again within a second, recorded once confirmed.
      Instant recheck = now.plus(LAG_RECHECK);
      return reschedule(now, confirmAt.isBefore(recheck) ? confirmAt : recheck);
    }
    memories.remember(key, verdict, now);
    log.debug("{}: {} {}", key, verdict.phase(), verdict.message());
    String withheld = withheldRollback(ds, verdict, stalls, now);
    StallNodes nodeNames = StallNodes.of(snapshot.nodes());
    StallPlan plan =
        planner.plan(
            verdict,
            stalls,
            RollbackRecord.fromAnnotations(ds.getMetadata().getAnnotations()),
            now,
            withheld,
            nodeNames);
    writes.apply(ds, plan, stallCache(context));
    reportWithheld(ds, plan, stalls, withheld);
    metrics.observe(
        ns,
        name,
        verdict.split(),
        activeStall(plan.active()),
        routing.tags(ds.getMetadata().getLabels()));
    // Only a stall that is being raised: an acknowledged exclusion was accepted, not to be undone.
    Instant rollbackRecheck =
        plan.active() == null ? null : rollBackIfDue(ds, verdict, recordedRollbacks(stalls), now);
    // Events are not watched: while a pod-less node stays unexplained, look again in a while.
    Instant eventsRecheck = FailedCreates.wanted(verdict) ? now.plus(FailedCreates.REFRESH) : null;
    return reschedule(now, verdict.nextCheck(), plan.nextExpiry(), rollbackRecheck, eventsRecheck);
  }

  /**
   * Whether the snapshot's caches lag behind each other ({@link SnapshotLag}) and the reconcile
   * should wait for them; a lag that outlasts {@link #LAG_LIMIT} is logged once and ignored.
   */
  private boolean cachesLag(String key, RolloutSnapshot snapshot, Instant now) {
    var lag = SnapshotLag.ofCaches(snapshot);
    if (lag.isEmpty()) {
      lagSince.remove(key);
      return false;
    }
    Instant since = lagSince.computeIfAbsent(key, k -> now);
    if (since.equals(Instant.MAX)) {
      return false; // outlasted the limit, already said so
    }
    if (now.isBefore(since.plus(LAG_LIMIT))) {
      log.debug("{}: caches catching up, verdict deferred: {}", key, lag.get());
      return true;
    }
    lagSince.put(key, Instant.MAX);
    log.warn("{}: {} for {} s; analyzing all the same", key, lag.get(), LAG_LIMIT.toSeconds());
    return false;
  }

  /**
   * When a new stall that rests only on pod deletions first seen past stall-after ({@link
   * UnconfirmedStall}) is confirmed, while that is still ahead; null when the verdict is to be
   * recorded now — also when its revision already has an Active RolloutStall (nothing new to say).
   */
  private Instant unconfirmed(
      String key,
      RolloutSnapshot snapshot,
      RolloutVerdict verdict,
      StallMemory memory,
      Set<RolloutStall> stalls,
      Instant now) {
    var why = UnconfirmedStall.of(snapshot, verdict, memory);
    if (why.isEmpty() || hasActiveStall(stalls, verdict.newRevision().hash())) {
      Confirming dropped = confirming.remove(key);
      if (dropped != null && why.isEmpty()) {
        log.info(
            "{}: the stall of revision {} did not stand a second look: not recorded",
            key,
            dropped.hash());
      }
      return null;
    }
    String hash = verdict.newRevision().hash();
    boolean[] first = {false};
    Confirming pending =
        confirming.compute(
            key,
            (k, old) -> {
              if (old != null && old.hash().equals(hash)) {
                return old;
              }
              first[0] = true;
              return new Confirming(hash, now);
            });
    Instant due = pending.since().plus(CONFIRMATION);
    if (now.isBefore(due)) {
      if (first[0]) { // one line per episode, not per look
        log.info("{}: {}; looking again before recording it", key, why.get());
      } else {
        log.debug("{}: still unconfirmed: {}", key, why.get());
      }
      return due;
    }
    confirming.remove(key);
    log.info("{}: still stalled {} s later: recording it", key, CONFIRMATION.toSeconds());
    return null;
  }

  private static boolean hasActiveStall(Set<RolloutStall> stalls, String hash) {
    return stalls.stream()
        .anyMatch(
            s ->
                s.getSpec() != null
                    && hash.equals(s.getSpec().revision())
                    && s.getStatus() != null
                    && s.getStatus().active());
  }

  /**
   * Why a due auto-rollback is not done — the suspect is not the new revision — or null: recorded
   * on the stall, so that whoever opted in sees why the operator did not act.
   */
  private String withheldRollback(
      DaemonSet ds, RolloutVerdict verdict, Set<RolloutStall> stalls, Instant now) {
    if (!verdict.stalled()) {
      return null;
    }
    RollbackDecision decision = autoRollback.decide(ds, verdict, recordedRollbacks(stalls), now);
    return decision.withheld() ? decision.reason() : null;
  }

  /** One Event when a stall's withheld rollback is first recorded (or its reason changes). */
  private void reportWithheld(
      DaemonSet ds, StallPlan plan, Set<RolloutStall> stalls, String withheld) {
    if (withheld == null || plan.active() == null) {
      return;
    }
    String name = plan.active().getMetadata().getName();
    String before =
        stalls.stream()
            .filter(s -> s.getMetadata().getName().equals(name) && s.getStatus() != null)
            .map(s -> s.getStatus().rollbackWithheld())
            .filter(java.util.Objects::nonNull)
            .findFirst()
            .orElse(null);
    if (!withheld.equals(before)) {
      log.info("{}/{}: {}", ds.getMetadata().getNamespace(), ds.getMetadata().getName(), withheld);
      events.normal(ds, StallEvents.ROLLBACK_WITHHELD, withheld);
    }
  }

  /**
   * The opt-in auto-rollback: at most once per stalled revision, never of a rollback. The policy
   * reads the record the rollback leaves on the DaemonSet and the ones its RolloutStalls keep, so a
   * tool that re-applies the DaemonSet without stallwatch's annotations cannot start a loop.
   * Returns when to decide again.
   */
  private Instant rollBackIfDue(
      DaemonSet ds, RolloutVerdict verdict, List<RollbackRecord> recorded, Instant now) {
    if (!verdict.stalled()) {
      return null;
    }
    String ns = ds.getMetadata().getNamespace();
    String name = ds.getMetadata().getName();
    String key = ns + "/" + name;
    String hash = verdict.newRevision() == null ? "" : verdict.newRevision().hash();
    Refusal refused = refusedRollbacks.get(key);
    if (refused != null && refused.hash().equals(hash) && now.isBefore(refused.retryAt())) {
      return refused.retryAt(); // it failed moments ago: not on every pod event
    }
    List<RollbackRecord> known = new ArrayList<>(recorded);
    known.addAll(ownRollbacks.getOrDefault(key, List.of()));
    AutoRollback.Outcome outcome = autoRollback.apply(ds, verdict, known, now);
    if (outcome.refusal() == null) {
      refusedRollbacks.remove(key);
    }
    if (outcome.rolledBack()) {
      RollbackResult r = outcome.result();
      ownRollbacks
          .computeIfAbsent(key, k -> new CopyOnWriteArrayList<>())
          .add(new RollbackRecord(r.from().hash(), r.to().hash(), now, AutoRollback.BY));
      log.info("{}/{}: rolled back: {}", ns, name, outcome.decision().reason());
      events.normal(
          ds,
          StallEvents.ROLLED_BACK,
          "Rolled back from " + r.from() + " to " + r.to() + ": " + outcome.decision().reason());
      metrics.countRollback(ns, name);
    } else if (outcome.refusal() != null) {
      Instant retryAt = now.plus(ROLLBACK_RETRY);
      Refusal previous = refusedRollbacks.put(key, new Refusal(hash, outcome.refusal(), retryAt));
      // One Warning per stalled revision and reason, however often it is retried.
      if (previous == null
          || !previous.hash().equals(hash)
          || !previous.reason().equals(outcome.refusal())) {
        log.warn("{}/{}: auto-rollback not done: {}", ns, name, outcome.refusal());
        events.warning(ds, StallEvents.ROLLBACK_REFUSED, outcome.refusal());
      }
      return retryAt;
    }
    return outcome.decision().recheckAt();
  }

  private UpdateControl<DaemonSet> reschedule(Instant now, Instant... candidates) {
    Instant next = null;
    for (Instant c : candidates) {
      if (c != null && (next == null || c.isBefore(next))) {
        next = c;
      }
    }
    if (next == null) {
      return UpdateControl.noUpdate();
    }
    Duration delay = toRealDelay.apply(Duration.between(now, next));
    // Land just after the instant, never before it, so the next verdict already sees the change.
    delay = delay.plusMillis(50);
    return UpdateControl.<DaemonSet>noUpdate()
        .rescheduleAfter(delay.compareTo(MIN_RESCHEDULE) < 0 ? MIN_RESCHEDULE : delay);
  }

  /**
   * The snapshot ({@link Snapshots#live}); a malformed DaemonSet throws, a malformed
   * pod/node/revision is left out and logged. Views of cached objects are made once per object
   * version ({@link CachedViews}).
   */
  private RolloutSnapshot snapshot(
      DaemonSet ds,
      Collection<Pod> pods,
      Supplier<Collection<Node>> nodes,
      Collection<ControllerRevision> revisions) {
    Snapshots.Live live =
        Snapshots.live(
            ds,
            pods,
            stores.nodeViews(nodes),
            revisions,
            new Snapshots.Views(stores.pods::view, stores.nodes::view, stores.revisions::view));
    live.errors().forEach(e -> log.warn("left out of the analysis: {}", e));
    return live.snapshot();
  }

  /** The DaemonSet's pods from the pod cache's owner index. */
  private static List<Pod> pods(Context<DaemonSet> context, String namespace, String name) {
    return owned(context, Pod.class, RolloutEventSources.PODS, namespace, name);
  }

  /**
   * The objects of {@code type} that the DaemonSet owns, from their cache's owner index ({@link
   * RolloutEventSources#owners}: complete whenever the cache is).
   */
  @SuppressWarnings("unchecked")
  private static <R extends io.fabric8.kubernetes.api.model.HasMetadata> List<R> owned(
      Context<DaemonSet> context, Class<R> type, String source, String namespace, String name) {
    var cache =
        (InformerEventSource<R, DaemonSet>)
            context.eventSourceRetriever().getEventSourceFor(type, source);
    return cache.byIndex(
        RolloutEventSources.BY_OWNER, RolloutEventSources.ownerKey(namespace, name));
  }

  /**
   * The DaemonSet's RolloutStalls from the stall cache's owner index, each as JOSDK's cache has it:
   * a stall this operator has just written is there in the version it wrote (its temporary cache),
   * while the index may still hold an older one — the bare object of a create whose ADD event came
   * before the status write's, which a reconcile must never take for a stall that starts over (a
   * second RolloutStalled Event).
   */
  private static Set<RolloutStall> stalls(Context<DaemonSet> context, String ns, String name) {
    InformerEventSource<RolloutStall, DaemonSet> cache = stallCache(context);
    Set<RolloutStall> stalls = new java.util.HashSet<>();
    for (RolloutStall s :
        owned(context, RolloutStall.class, RolloutEventSources.STALLS, ns, name)) {
      stalls.add(cache.get(ResourceID.fromResource(s)).orElse(s));
    }
    return Set.copyOf(stalls);
  }

  @SuppressWarnings("unchecked")
  private static Collection<Node> nodes(Context<DaemonSet> context) {
    var source =
        (InformerEventSource<Node, DaemonSet>)
            context.eventSourceRetriever().getEventSourceFor(Node.class, RolloutEventSources.NODES);
    return source.list().toList();
  }

  @SuppressWarnings("unchecked")
  private static InformerEventSource<RolloutStall, DaemonSet> stallCache(
      Context<DaemonSet> context) {
    return (InformerEventSource<RolloutStall, DaemonSet>)
        context
            .eventSourceRetriever()
            .getEventSourceFor(RolloutStall.class, RolloutEventSources.STALLS);
  }

  private void reportInvalid(DaemonSet ds, String key, InvalidObjectException e) {
    // One Warning per generation (spec change) and problem: status writes and re-reconciles of
    // the same bad spec stay quiet.
    String seen = ds.getMetadata().getGeneration() + ":" + e.getMessage();
    if (!seen.equals(reportedInvalid.put(key, seen))) {
      log.warn("cannot analyze DaemonSet {}: {}", key, e.getMessage());
      events.warning(ds, StallEvents.INVALID, e.getMessage());
    }
  }

  private void forget(String key, String ns, String name, Set<RolloutStall> stalls) {
    memories.forget(key);
    reportedInvalid.remove(key);
    lagSince.remove(key);
    confirming.remove(key);
    failedCreates.forget(key);
    refusedRollbacks.remove(key);
    ownRollbacks.remove(key);
    metrics.forget(ns, name);
    // The API server's garbage collector deletes owned stalls too; deleting them here also covers
    // clusters without it (the embedded one) and keeps the outcome the same.
    if (!stalls.isEmpty()) {
      log.info("DaemonSet {} deleted: removing its {} RolloutStall(s)", key, stalls.size());
    }
    stalls.forEach(this::deleteQuietly);
  }

  private void deleteQuietly(RolloutStall stall) {
    try {
      writes.delete(stall);
    } catch (RuntimeException e) {
      log.warn(
          "could not delete RolloutStall {}/{}: {}",
          stall.getMetadata().getNamespace(),
          stall.getMetadata().getName(),
          e.getMessage());
    }
  }

  private static List<RollbackRecord> recordedRollbacks(Collection<RolloutStall> stalls) {
    return stalls.stream()
        .flatMap(s -> StallRecord.rollbackRecord(s.getStatus()).stream())
        .toList();
  }

  private static StallMetrics.ActiveStall activeStall(RolloutStall stall) {
    if (stall == null || stall.getStatus() == null) {
      return null;
    }
    RolloutStallStatus s = stall.getStatus();
    // Unreadable (hand-edited): the series still exists, dated at the epoch.
    Instant since = s.stalledSinceTime().orElse(Instant.EPOCH);
    int nodes = s.stalledNodeCount() == null ? 0 : s.stalledNodeCount();
    return new StallMetrics.ActiveStall(s.causeValue(), s.suspectValue(), nodes, since);
  }
}
