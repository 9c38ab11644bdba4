package dev.stallwatch.operator;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.operator.RolloutPlan.LogLine;
import dev.stallwatch.operator.RolloutPlan.Notice;
import dev.stallwatch.operator.RolloutState.Confirming;
import dev.stallwatch.operator.RolloutState.Listed;
import dev.stallwatch.operator.RolloutState.Refusal;
import dev.stallwatch.rollback.AutoRollback;
import dev.stallwatch.rollback.RollbackDecision;
import dev.stallwatch.rollback.RollbackPolicy;
import dev.stallwatch.rollback.RollbackRecord;
import dev.stallwatch.rollback.RollbackResult;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.EventView;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.rollout.RolloutSnapshot;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.rollout.SnapshotLag;
import dev.stallwatch.rollout.StallMemory;
import dev.stallwatch.rollout.Suspect;
import dev.stallwatch.rollout.UnconfirmedStall;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The operator's one decision step: from what the caches show of one DaemonSet (an {@link
 * Observation}), what it remembers of it ({@link RolloutState}) and the time, every effect of the
 * reconcile ({@link RolloutPlan}) and what to remember next. Pure: no client, no clock, no log; the
 * reconciler observes and {@link PlanWriter} acts.
 *
 * <p>Beyond the analyzer's verdict it decides: to wait while the caches lag behind each other
 * (mid-relist), to look twice at a stall that rests only on pod deletions first seen late, to read
 * the controller's FailedCreate Events, the RolloutStall writes ({@link StallPlanner}), one Warning
 * per invalid spec, the opt-in auto-rollback with its retries and one Warning per refusal, and when
 * to look again.
 */
public final class RolloutDecider {

  /** How soon a DaemonSet whose caches lag behind each other is looked at again. */
  static final Duration LAG_RECHECK = Duration.ofSeconds(1);

  /**
   * How long a lag is waited out at most: longer, it is no relist (a ControllerRevision deleted by
   * hand, a controller that is down) and the verdict is recorded all the same.
   */
  static final Duration LAG_LIMIT = Duration.ofSeconds(60);

  /**
   * How long a stall that rests only on pod deletions first seen past stall-after ({@link
   * UnconfirmedStall}) is looked at again before it is recorded: long enough for the DaemonSet's
   * change held back behind the deletion (a hung connection resuming) to arrive; a pod truly stuck
   * terminating is recorded this much later, with the same stalledSince.
   */
  static final Duration CONFIRMATION = Duration.ofSeconds(2);

  /** How long after a failed auto-rollback it is tried again (a 403, a conflict that persisted). */
  static final Duration ROLLBACK_RETRY = Duration.ofMinutes(1);

  private final AnalyzerSettings settings;
  private final StallPlanner planner;
  private final RollbackPolicy rollbacks;
  private final RoutingLabels routing;

  public RolloutDecider(
      AnalyzerSettings settings,
      StallPlanner planner,
      RollbackPolicy rollbacks,
      RoutingLabels routing) {
    this.settings = settings;
    this.planner = planner;
    this.rollbacks = rollbacks;
    this.routing = routing;
  }

  /**
   * One DaemonSet as the caches show it.
   *
   * @param snapshot its snapshot for the analyzer
   * @param stalls its RolloutStalls
   * @param nodes which nodes exist and which are down
   * @param failedCreates the controller's FailedCreate Events just listed for it; null when not
   *     listed this time
   */
  public record Observation(
      DaemonSet ds,
      RolloutSnapshot snapshot,
      Set<RolloutStall> stalls,
      StallNodes nodes,
      List<EventView> failedCreates) {

    /** The same observation with the FailedCreate Events just listed. */
    public Observation withFailedCreates(List<EventView> events) {
      return new Observation(ds, snapshot, stalls, nodes, List.copyOf(events));
    }

    String key() {
      return ds.getMetadata().getNamespace() + "/" + ds.getMetadata().getName();
    }

    Map<String, String> annotations() {
      return ds.getMetadata().getAnnotations();
    }
  }

  /**
   * What to do, and what to remember.
   *
   * @param verdict the analyzer's verdict; null when none was reached (caches lagging, an invalid
   *     spec, the DaemonSet deleted, Events to be listed first)
   */
  public record Decision(RolloutPlan plan, RolloutState state, RolloutVerdict verdict) {}

  /** The reconcile of a DaemonSet whose snapshot could be built. */
  public Decision decide(Observation o, RolloutState state, Instant now) {
    String key = o.key();
    List<LogLine> log = new ArrayList<>();
    state = state.withInvalid(null);
    var lag = SnapshotLag.ofCaches(o.snapshot());
    if (lag.isEmpty()) {
      state = state.withLagSince(null);
    } else if (!Instant.MAX.equals(state.lagSince())) {
      Instant since = state.lagSince() == null ? now : state.lagSince();
      if (now.isBefore(since.plus(LAG_LIMIT))) {
        // Mid-relist: a verdict now would judge the previous revision as the new one (a stall of
        // it, superseded a moment later). Nothing is recorded; the caches catch up within moments.
        return new Decision(
            RolloutPlan.only(
                List.of(
                    LogLine.debug(key + ": caches catching up, verdict deferred: " + lag.get())),
                now.plus(LAG_RECHECK)),
            state.withLagSince(since),
            null);
      }
      log.add(
          LogLine.warn(
              key
                  + ": "
                  + lag.get()
                  + " for "
                  + LAG_LIMIT.toSeconds()
                  + " s; analyzing all the same"));
      state = state.withLagSince(Instant.MAX);
    }

    StallMemory memory = state.recall(o.stalls());
    RolloutVerdict verdict = RolloutAnalyzer.analyze(o.snapshot(), now, settings, memory);
    boolean eventsWanted = FailedCreates.wanted(verdict);
    if (eventsWanted) {
      // A node without a pod has crossed stall-after: only the controller's Events say why. They
      // are not watched (a busy cluster writes thousands a minute): listed, reused a while.
      Listed listed = state.failedCreates();
      if (o.failedCreates() != null) {
        listed = new Listed(now, o.failedCreates());
      } else if (listed == null || !now.isBefore(listed.at().plus(FailedCreates.REFRESH))) {
        return new Decision(RolloutPlan.toListFailedCreates(), state, null);
      }
      state = state.withFailedCreates(listed);
      if (!listed.events().isEmpty()) {
        verdict =
            RolloutAnalyzer.analyze(
                o.snapshot().withEvents(listed.events()), now, settings, memory);
      }
    } else {
      state = state.withFailedCreates(null);
    }

    Confirming pending = confirming(o, verdict, memory, state.confirming(), now, log);
    state = state.withConfirming(pending);
    if (pending != null) {
      // Maybe old news (a deletion held back with the DaemonSet's change behind it): nothing is
      // recorded or remembered yet; looked at again within a second, recorded once confirmed.
      Instant due = pending.since().plus(CONFIRMATION);
      Instant recheck = now.plus(LAG_RECHECK);
      return new Decision(
          RolloutPlan.only(log, due.isBefore(recheck) ? due : recheck), state, verdict);
    }
    List<RollbackRecord> recorded = recordedRollbacks(o.stalls());
    String withheld = withheldRollback(o, verdict, recorded, now);
    StallPlan stallPlan =
        planner.plan(
            verdict,
            o.stalls(),
            RollbackRecord.fromAnnotations(o.annotations()),
            now,
            withheld,
            o.nodes());
    // An outage holds the stall open (Resolution): nothing is judged meanwhile, so what the
    // operator remembers of each node stays as it was — once the nodes are back, the stall goes on
    // from the same instants instead of "moving again" and stalling anew.
    boolean heldOpen = stallPlan.active() != null && !verdict.stalled();
    if (!heldOpen) {
      state = state.withMemory(StallMemory.from(verdict, now));
    }
    stallPlan = announcing(stallPlan, state.unannounced());
    state = state.withUnannounced(Set.of());
    List<Notice> events = new ArrayList<>();
    if (withheld != null && stallPlan.active() != null && isNew(withheld, stallPlan, o.stalls())) {
      log.add(LogLine.info(key + ": " + withheld));
      events.add(Notice.normal(StallEvents.ROLLBACK_WITHHELD, withheld));
    }
    RolloutPlan.Metrics metrics =
        new RolloutPlan.Metrics(
            verdict.split(),
            activeStall(verdict, stallPlan.active()),
            routing.tags(o.ds().getMetadata().getLabels()),
            verdict.pace(),
            verdict.phase() == Phase.Paused);

    // Only a stall that is being raised: an acknowledged exclusion was accepted, not to be undone.
    RollbackDecision rollback = null;
    Instant rollbackRecheck = null;
    if (stallPlan.active() != null && verdict.stalled()) {
      String hash = hash(verdict);
      Refusal refused = state.refusal();
      if (refused != null && refused.hash().equals(hash) && now.isBefore(refused.retryAt())) {
        rollbackRecheck = refused.retryAt(); // it failed moments ago: not on every pod event
      } else {
        List<RollbackRecord> known = new ArrayList<>(recorded);
        known.addAll(state.ownRollbacks());
        RollbackDecision decision = rollbacks.decide(verdict, o.annotations(), known, now);
        if (decision.rollBack()) {
          rollback = decision;
        } else {
          state = state.withRefusal(null);
          rollbackRecheck = decision.recheckAt();
        }
      }
    }
    // Events are not watched: while a pod-less node stays unexplained, look again in a while.
    Instant eventsRecheck = eventsWanted ? now.plus(FailedCreates.REFRESH) : null;
    Instant next =
        earliest(verdict.nextCheck(), stallPlan.nextExpiry(), rollbackRecheck, eventsRecheck);
    return new Decision(
        new RolloutPlan(
            log, stallPlan, events, metrics, false, false, List.of(), rollback, false, next),
        state,
        verdict);
  }

  /**
   * What an auto-rollback the plan asked for came to: one Event and a counter when done, one
   * Warning per stalled revision and reason when refused (retried after {@link #ROLLBACK_RETRY}).
   */
  public Decision afterRollback(
      DaemonSet ds,
      RolloutVerdict verdict,
      AutoRollback.Outcome outcome,
      RolloutState state,
      Instant now) {
    String key = ds.getMetadata().getNamespace() + "/" + ds.getMetadata().getName();
    String reason = outcome.decision().reason();
    if (outcome.rolledBack()) {
      RollbackResult r = outcome.result();
      return new Decision(
          new RolloutPlan(
              List.of(LogLine.info(key + ": rolled back: " + reason)),
              RolloutPlan.NO_WRITES,
              List.of(
                  Notice.normal(
                      StallEvents.ROLLED_BACK,
                      "Rolled back from " + r.from() + " to " + r.to() + ": " + reason)),
              null,
              false,
              true,
              List.of(),
              null,
              false,
              outcome.decision().recheckAt()),
          state.withRollback(
              new RollbackRecord(r.from().hash(), r.to().hash(), now, AutoRollback.BY)),
          verdict);
    }
    if (outcome.refusal() == null) {
      return new Decision(
          RolloutPlan.only(List.of(), outcome.decision().recheckAt()),
          state.withRefusal(null),
          verdict);
    }
    String hash = hash(verdict);
    Instant retryAt = now.plus(ROLLBACK_RETRY);
    Refusal previous = state.refusal();
    state = state.withRefusal(new Refusal(hash, outcome.refusal(), retryAt));
    // One Warning per stalled revision and reason, however often it is retried.
    if (previous != null
        && previous.hash().equals(hash)
        && previous.reason().equals(outcome.refusal())) {
      return new Decision(RolloutPlan.only(List.of(), retryAt), state, verdict);
    }
    return new Decision(
        new RolloutPlan(
            List.of(LogLine.warn(key + ": auto-rollback not done: " + outcome.refusal())),
            RolloutPlan.NO_WRITES,
            List.of(Notice.warning(StallEvents.ROLLBACK_REFUSED, outcome.refusal())),
            null,
            false,
            false,
            List.of(),
            null,
            false,
            retryAt),
        state,
        verdict);
  }

  /**
   * A DaemonSet whose snapshot could not be built: one Warning per generation (spec change) and
   * problem; status writes and re-reconciles of the same bad spec stay quiet.
   */
  public Decision invalid(DaemonSet ds, String problem, RolloutState state) {
    String seen = ds.getMetadata().getGeneration() + ":" + problem;
    if (seen.equals(state.invalid())) {
      return new Decision(RolloutPlan.only(List.of(), null), state, null);
    }
    String key = ds.getMetadata().getNamespace() + "/" + ds.getMetadata().getName();
    return new Decision(
        new RolloutPlan(
            List.of(LogLine.warn("cannot analyze DaemonSet " + key + ": " + problem)),
            RolloutPlan.NO_WRITES,
            List.of(Notice.warning(StallEvents.INVALID, problem)),
            null,
            false,
            false,
            List.of(),
            null,
            false,
            null),
        state.withInvalid(seen),
        null);
  }

  /**
   * A deleted DaemonSet: its series go, and its RolloutStalls (the API server's garbage collector
   * deletes them too; deleting them here also covers clusters without it). Nothing is remembered.
   */
  public RolloutPlan deleted(String key, Collection<RolloutStall> stalls) {
    List<LogLine> log =
        stalls.isEmpty()
            ? List.of()
            : List.of(
                LogLine.info(
                    "DaemonSet "
                        + key
                        + " deleted: removing its "
                        + stalls.size()
                        + " RolloutStall(s)"));
    return new RolloutPlan(
        log,
        RolloutPlan.NO_WRITES,
        List.of(),
        null,
        true,
        false,
        List.copyOf(stalls),
        null,
        false,
        null);
  }

  /**
   * The stall still being confirmed ({@link UnconfirmedStall}), or null when the verdict is to be
   * recorded now — also when its revision already has an Active RolloutStall (nothing new to say).
   */
  private static Confirming confirming(
      Observation o,
      RolloutVerdict verdict,
      StallMemory memory,
      Confirming before,
      Instant now,
      List<LogLine> log) {
    String key = o.key();
    var why = UnconfirmedStall.of(o.snapshot(), verdict, memory);
    if (why.isEmpty() || hasActiveStall(o.stalls(), hash(verdict))) {
      if (before != null && why.isEmpty()) {
        log.add(
            LogLine.info(
                key
                    + ": the stall of revision "
                    + before.hash()
                    + " did not stand a second look: not recorded"));
      }
      return null;
    }
    String hash = hash(verdict);
    boolean first = before == null || !before.hash().equals(hash);
    Confirming pending = first ? new Confirming(hash, now) : before;
    if (now.isBefore(pending.since().plus(CONFIRMATION))) {
      // One line per episode, not per look.
      log.add(
          first
              ? LogLine.info(key + ": " + why.get() + "; looking again before recording it")
              : LogLine.debug(key + ": still unconfirmed: " + why.get()));
      return pending;
    }
    log.add(
        LogLine.info(
            key + ": still stalled " + CONFIRMATION.toSeconds() + " s later: recording it"));
    return null;
  }

  /**
   * The plan, announcing its active stall when an earlier reconcile's first write of it failed with
   * its outcome unknown ({@code pending}) and this plan does not announce it itself: the write may
   * have landed (a status PUT whose answer a GOAWAY or a dropped connection took), and then the
   * stall is found Active here without its {@code RolloutStalled} Event ever sent.
   */
  private static StallPlan announcing(StallPlan plan, Set<String> pending) {
    RolloutStall active = plan.active();
    if (pending.isEmpty() || active == null) {
      return plan;
    }
    String name = active.getMetadata().getName();
    if (!pending.contains(name)
        || plan.changes().stream()
            .anyMatch(
                c ->
                    c.transition() == StallTransition.STALLED
                        && c.stall().getMetadata().getName().equals(name))) {
      return plan;
    }
    List<StallPlan.Change> changes = new ArrayList<>(plan.changes());
    changes.add(
        new StallPlan.Change(
            StallPlan.Kind.ANNOUNCE, active, active.getStatus(), StallTransition.STALLED, null));
    return new StallPlan(changes, active, plan.nextExpiry(), plan.cause());
  }

  /**
   * Why a due auto-rollback is not done — the suspect is not the new revision — or null: recorded
   * on the stall, so that whoever opted in sees why the operator did not act.
   */
  private String withheldRollback(
      Observation o, RolloutVerdict verdict, List<RollbackRecord> recorded, Instant now) {
    if (!verdict.stalled()) {
      return null;
    }
    RollbackDecision decision = rollbacks.decide(verdict, o.annotations(), recorded, now);
    return decision.withheld() ? decision.reason() : null;
  }

  /** Whether the withheld reason is not yet on the active stall (first recorded, or changed). */
  private static boolean isNew(String withheld, StallPlan plan, Set<RolloutStall> stalls) {
    String name = plan.active().getMetadata().getName();
    return stalls.stream()
        .filter(s -> s.getMetadata().getName().equals(name) && s.getStatus() != null)
        .map(s -> s.getStatus().rollbackWithheld())
        .filter(Objects::nonNull)
        .findFirst()
        .map(before -> !before.equals(withheld))
        .orElse(true);
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

  private static String hash(RolloutVerdict verdict) {
    return verdict.newRevision() == null ? "" : verdict.newRevision().hash();
  }

  private static List<RollbackRecord> recordedRollbacks(Collection<RolloutStall> stalls) {
    return stalls.stream()
        .flatMap(s -> StallRecord.rollbackRecord(s.getStatus()).stream())
        .toList();
  }

  /**
   * The active stall's series: cause, suspect and node count from the verdict (the stall's status
   * is written from it), the start from the stall (it keeps its stalledSince across restarts).
   */
  private static StallMetrics.ActiveStall activeStall(RolloutVerdict verdict, RolloutStall stall) {
    if (stall == null || stall.getStatus() == null) {
      return null;
    }
    // Unreadable (hand-edited): the series still exists, dated at the epoch.
    Instant since = stall.getStatus().stalledSinceTime().orElse(Instant.EPOCH);
    if (!verdict.stalled()) {
      // Held open by an outage: the series stays as the record has it.
      var status = stall.getStatus();
      return new StallMetrics.ActiveStall(
          named(Cause.class, status.cause(), Cause.Unknown),
          named(Suspect.class, status.suspect(), null),
          status.stalledNodeCount() == null ? 0 : status.stalledNodeCount(),
          since);
    }
    return new StallMetrics.ActiveStall(
        verdict.cause() == null ? Cause.Unknown : verdict.cause(),
        verdict.suspect(),
        verdict.stalledNodes().size(),
        since);
  }

  /** The constant of {@code type} named {@code name}, or {@code otherwise}. */
  private static <E extends Enum<E>> E named(Class<E> type, String name, E otherwise) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(name)) {
        return e;
      }
    }
    return otherwise;
  }

  static Instant earliest(Instant... candidates) {
    Instant next = null;
    for (Instant c : candidates) {
      if (c != null && (next == null || c.isBefore(next))) {
        next = c;
      }
    }
    return next;
  }
}
