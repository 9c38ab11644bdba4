package dev.stallwatch.operator.decision;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.kube.Keys;
import dev.stallwatch.operator.decision.Effect.Log;
import dev.stallwatch.operator.decision.RolloutState.Confirming;
import dev.stallwatch.operator.decision.RolloutState.Listed;
import dev.stallwatch.operator.decision.RolloutState.Refusal;
import dev.stallwatch.rollback.RollbackDecision;
import dev.stallwatch.rollback.RollbackOutcome;
import dev.stallwatch.rollback.RollbackPolicy;
import dev.stallwatch.rollback.RollbackRecord;
import dev.stallwatch.rollback.RollbackResult;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.EventView;
import dev.stallwatch.rollout.NodeRow;
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
 * reconcile, in order ({@link Effect}), and what to remember next. Pure: no client, no clock, no
 * log; the reconciler observes and {@link EffectRunner} acts. What the effects came to (a write's
 * answer lost, the rollback's outcome, a conflict) comes back through {@link #settle}.
 *
 * <p>Beyond the analyzer's verdict it decides: to wait while the caches lag behind each other
 * (mid-relist), to look twice at a stall that rests only on pod deletions first seen late, when the
 * controller's FailedCreate Events are to be read, the RolloutStall writes ({@link StallPlanner})
 * with their Events and counters, one Warning per invalid spec, the opt-in auto-rollback with its
 * retries and one Warning per refusal, and when to look again. The analyzer runs once per decision.
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
  public static final Duration CONFIRMATION = Duration.ofSeconds(2);

  /** How long after a failed auto-rollback it is tried again (a 403, a conflict that persisted). */
  static final Duration ROLLBACK_RETRY = Duration.ofMinutes(1);

  /** How long the controller's FailedCreate Events, once listed, are used before listed again. */
  static final Duration EVENTS_REFRESH = Duration.ofSeconds(30);

  /** How soon a DaemonSet is looked at again after a conflict, or after its stalls were written. */
  public static final Duration CONFLICT_RETRY = Duration.ofSeconds(1);

  private final AnalyzerSettings settings;
  private final StallPlanner planner;
  private final RollbackPolicy rollbacks;
  private final RoutingLabels routing;
  private final boolean conditions;

  /**
   * @param conditions whether the DaemonSet's {@code RolloutStalled} condition follows its stalls
   *     ({@code --daemonset-conditions})
   */
  public RolloutDecider(
      AnalyzerSettings settings,
      StallPlanner planner,
      RollbackPolicy rollbacks,
      RoutingLabels routing,
      boolean conditions) {
    this.settings = settings;
    this.planner = planner;
    this.rollbacks = rollbacks;
    this.routing = routing;
    this.conditions = conditions;
  }

  /**
   * One DaemonSet as the caches show it.
   *
   * @param snapshot its snapshot for the analyzer
   * @param stalls its RolloutStalls
   * @param nodes which nodes exist and which are down
   * @param failedCreates the controller's FailedCreate Events, listed for this reconcile because
   *     the state said they are due ({@link RolloutState#failedCreatesDue}); null when not listed
   */
  public record Observation(
      DaemonSet ds,
      RolloutSnapshot snapshot,
      Set<RolloutStall> stalls,
      StallNodes nodes,
      List<EventView> failedCreates) {

    public Observation {
      failedCreates = failedCreates == null ? null : List.copyOf(failedCreates);
    }

    String key() {
      return Keys.of(ds);
    }

    Map<String, String> annotations() {
      return ds.getMetadata().getAnnotations();
    }
  }

  /**
   * What to do, in order, and what to remember.
   *
   * @param verdict the analyzer's verdict; null when none was reached (caches lagging, an invalid
   *     spec, the DaemonSet deleted, Events to be listed first)
   */
  public record Decision(List<Effect> effects, RolloutState state, RolloutVerdict verdict) {
    public Decision {
      effects = List.copyOf(effects);
    }
  }

  /** The reconcile of a DaemonSet whose snapshot could be built. */
  public Decision decide(Observation o, RolloutState state, Instant now) {
    String key = o.key();
    List<Effect> effects = new ArrayList<>();
    state = state.withInvalid(null);
    Listed listed =
        o.failedCreates() != null ? new Listed(now, o.failedCreates()) : state.failedCreates();
    var lag = SnapshotLag.ofCaches(o.snapshot());
    if (lag.isEmpty()) {
      state = state.withLagSince(null);
    } else if (!Instant.MAX.equals(state.lagSince())) {
      Instant since = state.lagSince() == null ? now : state.lagSince();
      if (now.isBefore(since.plus(LAG_LIMIT))) {
        // Mid-relist: a verdict now would judge the previous revision as the new one (a stall of
        // it, superseded a moment later). Nothing is recorded; the caches catch up within moments.
        return new Decision(
            List.of(
                Log.debug(key + ": caches catching up, verdict deferred: " + lag.get()),
                new Effect.LookAgain(now.plus(LAG_RECHECK))),
            state.withLagSince(since).withFailedCreates(listed),
            null);
      }
      effects.add(
          Log.warn(
              key
                  + ": "
                  + lag.get()
                  + " for "
                  + LAG_LIMIT.toSeconds()
                  + " s; analyzing all the same"));
      state = state.withLagSince(Instant.MAX);
    }

    StallMemory memory = state.recall(o.stalls());
    // The controller's Events explain a node without a pod; they are read only while the last
    // verdict wanted them (listed, reused a while), so that the analyzer runs once.
    boolean withEvents = listed != null && listed.at() != null && !listed.events().isEmpty();
    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(
            withEvents ? o.snapshot().withEvents(listed.events()) : o.snapshot(),
            now,
            settings,
            memory);
    boolean eventsWanted = eventsWanted(verdict);
    if (eventsWanted && (listed == null || listed.at() == null)) {
      // A node without a pod has crossed stall-after: only the controller's Events say why. They
      // are not watched (a busy cluster writes thousands a minute): listed by the next reconcile,
      // at once, before anything is recorded.
      // The lag warning said above (if any) stays: the state already remembers it was said.
      effects.add(new Effect.LookAgain(now));
      return new Decision(effects, state.withFailedCreates(Listed.WANTED), null);
    }
    state = state.withFailedCreates(eventsWanted ? listed : null);

    Confirming pending = confirming(o, verdict, memory, state.confirming(), now, effects);
    state = state.withConfirming(pending);
    if (pending != null) {
      // Maybe old news (a deletion held back with the DaemonSet's change behind it): nothing is
      // recorded or remembered yet; looked at again within a second, recorded once confirmed.
      Instant due = pending.since().plus(CONFIRMATION);
      Instant recheck = now.plus(LAG_RECHECK);
      condition(verdict, effects);
      effects.add(new Effect.LookAgain(due.isBefore(recheck) ? due : recheck));
      return new Decision(effects, state, verdict);
    }
    List<RollbackRecord> known = new ArrayList<>(recordedRollbacks(o.stalls()));
    known.addAll(state.ownRollbacks());
    // The one decision on an auto-rollback: why a due one is withheld goes on the stall.
    RollbackDecision rollback =
        verdict.stalled() ? rollbacks.decide(verdict, o.annotations(), known, now) : null;
    String withheld = rollback != null && rollback.withheld() ? rollback.reason() : null;
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
    for (StallPlan.Change change : stallPlan.changes()) {
      writes(o.ds(), change, stallPlan.cause(), effects);
    }
    if (withheld != null && stallPlan.active() != null && isNew(withheld, stallPlan, o.stalls())) {
      effects.add(Log.info(key + ": " + withheld));
      effects.add(new Effect.Emit(EventReason.ROLLBACK_WITHHELD, withheld));
    }
    effects.add(
        new Effect.SetSeries(
            verdict.split(),
            activeStall(verdict, stallPlan.active()),
            routing.metricLabels(o.ds().getMetadata().getLabels()),
            verdict.pace(),
            verdict.phase() == Phase.Paused));

    // Only a stall that is being raised: an acknowledged exclusion was accepted, not to be undone.
    Instant rollbackRecheck = null;
    if (stallPlan.active() != null && verdict.stalled()) {
      Refusal refused = state.refusal();
      if (refused != null
          && refused.hash().equals(verdict.newHash())
          && now.isBefore(refused.retryAt())) {
        rollbackRecheck = refused.retryAt(); // it failed moments ago: not on every pod event
      } else if (rollback.rollBack()) {
        effects.add(new Effect.RollBack(rollback));
      } else {
        state = state.withRefusal(null);
        rollbackRecheck = rollback.recheckAt();
      }
    }
    condition(verdict, effects);
    if (conditions && !stallPlan.changes().isEmpty()) {
      // The cache lists the RolloutStalls written just now only once their watch events arrive,
      // and JOSDK sends no event for the reconciler's own writes: look again, so the condition
      // follows the record without waiting for the next change of the DaemonSet.
      effects.add(new Effect.LookAgain(now.plus(CONFLICT_RETRY)));
    }
    // Events are not watched: while a pod-less node stays unexplained, look again in a while.
    Instant eventsRecheck = eventsWanted ? now.plus(EVENTS_REFRESH) : null;
    Instant next =
        earliest(verdict.nextCheck(), stallPlan.nextExpiry(), rollbackRecheck, eventsRecheck);
    if (next != null) {
      effects.add(new Effect.LookAgain(next));
    }
    return new Decision(effects, state, verdict);
  }

  /**
   * What the effects of {@code decided} came to: a stall whose starting write's answer was lost is
   * remembered as unannounced (announced by the next decision that finds it Active); an
   * auto-rollback done is one Event and a counter, one refused is one Warning per stalled revision
   * and reason (retried after {@link #ROLLBACK_RETRY}); a conflict on the condition is looked at
   * again shortly.
   */
  public Decision settle(DaemonSet ds, Decision decided, Performed performed, Instant now) {
    RolloutState state = decided.state();
    for (String stall : performed.unannounced()) {
      state = state.unannounced(stall);
    }
    List<Effect> effects = new ArrayList<>();
    if (performed.rollback() != null) {
      state = afterRollback(ds, decided.verdict(), performed.rollback(), state, now, effects);
    }
    if (performed.conditionConflict()) {
      effects.add(new Effect.LookAgain(now.plus(CONFLICT_RETRY)));
    }
    return new Decision(effects, state, decided.verdict());
  }

  private static RolloutState afterRollback(
      DaemonSet ds,
      RolloutVerdict verdict,
      RollbackOutcome outcome,
      RolloutState state,
      Instant now,
      List<Effect> effects) {
    String reason = outcome.decision().reason();
    Instant recheck = outcome.decision().recheckAt();
    if (outcome.rolledBack()) {
      RollbackResult r = outcome.result();
      effects.add(Log.info(Keys.of(ds) + ": rolled back: " + reason));
      effects.add(
          new Effect.Emit(
              EventReason.ROLLED_BACK,
              "Rolled back from " + r.from() + " to " + r.to() + ": " + reason));
      effects.add(new Effect.CountRollback());
      if (recheck != null) {
        effects.add(new Effect.LookAgain(recheck));
      }
      return state.withRollback(
          new RollbackRecord(r.from().hash(), r.to().hash(), now, RollbackRecord.BY_OPERATOR));
    }
    if (outcome.refusal() == null) {
      if (recheck != null) {
        effects.add(new Effect.LookAgain(recheck));
      }
      return state.withRefusal(null);
    }
    String hash = verdict.newHash();
    Instant retryAt = now.plus(ROLLBACK_RETRY);
    Refusal previous = state.refusal();
    // One Warning per stalled revision and reason, however often it is retried.
    if (previous == null
        || !previous.hash().equals(hash)
        || !previous.reason().equals(outcome.refusal())) {
      effects.add(Log.warn(Keys.of(ds) + ": auto-rollback not done: " + outcome.refusal()));
      effects.add(new Effect.Emit(EventReason.ROLLBACK_REFUSED, outcome.refusal()));
    }
    effects.add(new Effect.LookAgain(retryAt));
    return state.withRefusal(new Refusal(hash, outcome.refusal(), retryAt));
  }

  /**
   * A DaemonSet whose snapshot could not be built: one Warning per generation (spec change) and
   * problem; status writes and re-reconciles of the same bad spec stay quiet.
   */
  public Decision invalid(DaemonSet ds, String problem, RolloutState state) {
    String seen = ds.getMetadata().getGeneration() + ":" + problem;
    if (seen.equals(state.invalid())) {
      return new Decision(List.of(), state, null);
    }
    return new Decision(
        List.of(
            Log.warn("cannot analyze DaemonSet " + Keys.of(ds) + ": " + problem),
            new Effect.Emit(EventReason.INVALID, problem)),
        state.withInvalid(seen),
        null);
  }

  /**
   * A deleted DaemonSet: its series go, and its RolloutStalls (the API server's garbage collector
   * deletes them too; deleting them here also covers clusters without it). Nothing is remembered.
   */
  public Decision deleted(DaemonSet ds, Collection<RolloutStall> stalls) {
    List<Effect> effects = new ArrayList<>();
    if (!stalls.isEmpty()) {
      effects.add(
          Log.info(
              "DaemonSet "
                  + Keys.of(ds)
                  + " deleted: removing its "
                  + stalls.size()
                  + " RolloutStall(s)"));
    }
    effects.add(new Effect.DropSeries());
    stalls.forEach(s -> effects.add(new Effect.DeleteStall(s, false)));
    return new Decision(effects, RolloutState.NEW, null);
  }

  /** Whether a stuck node without a pod is unexplained, or explained by the Events alone. */
  static boolean eventsWanted(RolloutVerdict verdict) {
    return verdict.nodes().stream()
        .anyMatch(
            r ->
                r.pod() == null
                    && r.standing() == NodeRow.Standing.STUCK
                    && (r.cause() == Cause.Unknown || r.cause() == Cause.FailedCreate));
  }

  /**
   * The condition follows the stalls ({@code --daemonset-conditions}) once the revision is known.
   */
  private void condition(RolloutVerdict verdict, List<Effect> effects) {
    if (conditions && verdict.newRevision() != null) {
      effects.add(new Effect.SyncCondition(verdict.newHash()));
    }
  }

  /**
   * One planned change: its hand-edited warning, the write, then — once written — its Event and
   * counter.
   */
  private static void writes(
      DaemonSet ds, StallPlan.Change change, Cause cause, List<Effect> effects) {
    RolloutStall stall = change.stall();
    boolean starts = change.transition() == StallTransition.STALLED;
    if (change.handEdited()) {
      var was = change.previous();
      effects.add(
          Log.warn(
              "RolloutStall "
                  + Keys.of(stall)
                  + ": status edited by hand (phase "
                  + quoted(was.phase())
                  + ", stalledSince "
                  + quoted(was.stalledSince())
                  + ", stalledNodeCount "
                  + was.stalledNodeCount()
                  + "); rewritten from the current verdict"));
    }
    switch (change.kind()) {
      case CREATE -> effects.add(new Effect.CreateStall(stall));
      case UPDATE_STATUS -> effects.add(new Effect.WriteStatus(stall, starts));
      case DELETE -> effects.add(new Effect.DeleteStall(stall, true));
      case ANNOUNCE ->
          effects.add(
              Log.info(
                  "RolloutStall "
                      + Keys.of(stall)
                      + ": its status write's answer was lost; announcing it now"));
    }
    var status = stall.getStatus();
    switch (change.transition()) {
      case STALLED -> {
        effects.add(new Effect.Emit(EventReason.STALLED, StallRecord.stalledMessage(status)));
        effects.add(new Effect.CountStall(cause));
      }
      case RESOLVED ->
          // The condition's message: the resolution, and who rolled back when that is known.
          effects.add(
              new Effect.Emit(
                  EventReason.RESOLVED,
                  status.conditions().isEmpty()
                      ? change
                          .resolution()
                          .describe(ds.getMetadata().getName(), stall.getSpec().revision())
                      : status.conditions().get(0).getMessage()));
      default -> {}
    }
  }

  private static String quoted(String s) {
    return s == null ? "none" : "\"" + s + "\"";
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
      List<Effect> log) {
    String key = o.key();
    var why = UnconfirmedStall.of(o.snapshot(), verdict, memory);
    if (why.isEmpty() || hasActiveStall(o.stalls(), verdict.newHash())) {
      if (before != null && why.isEmpty()) {
        log.add(
            Log.info(
                key
                    + ": the stall of revision "
                    + before.hash()
                    + " did not stand a second look: not recorded"));
      }
      return null;
    }
    String hash = verdict.newHash();
    boolean first = before == null || !before.hash().equals(hash);
    Confirming pending = first ? new Confirming(hash, now) : before;
    if (now.isBefore(pending.since().plus(CONFIRMATION))) {
      // One line per episode, not per look.
      log.add(
          first
              ? Log.info(key + ": " + why.get() + "; looking again before recording it")
              : Log.debug(key + ": still unconfirmed: " + why.get()));
      return pending;
    }
    log.add(
        Log.info(key + ": still stalled " + CONFIRMATION.toSeconds() + " s later: recording it"));
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
    changes.add(StallPlan.Change.announce(active));
    return new StallPlan(changes, active, plan.nextExpiry(), plan.cause());
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

  private static List<RollbackRecord> recordedRollbacks(Collection<RolloutStall> stalls) {
    return stalls.stream()
        .flatMap(s -> StallRecord.rollbackRecord(s.getStatus()).stream())
        .toList();
  }

  /**
   * The active stall's series: cause, suspect and node count from the verdict (the stall's status
   * is written from it), the start from the stall (it keeps its stalledSince across restarts).
   */
  private static ActiveStall activeStall(RolloutVerdict verdict, RolloutStall stall) {
    if (stall == null || stall.getStatus() == null) {
      return null;
    }
    // Unreadable (hand-edited): the series still exists, dated at the epoch.
    Instant since = stall.getStatus().stalledSinceTime().orElse(Instant.EPOCH);
    if (!verdict.stalled()) {
      // Held open by an outage: the series stays as the record has it.
      var status = stall.getStatus();
      return new ActiveStall(
          named(Cause.class, status.cause(), Cause.Unknown),
          named(Suspect.class, status.suspect(), null),
          status.stalledNodeCount() == null ? 0 : status.stalledNodeCount(),
          since);
    }
    return new ActiveStall(
        verdict.causeOrUnknown(), verdict.suspect(), verdict.stalledNodes().size(), since);
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

  public static Instant earliest(Instant... candidates) {
    Instant next = null;
    for (Instant c : candidates) {
      if (c != null && (next == null || c.isBefore(next))) {
        next = c;
      }
    }
    return next;
  }
}
