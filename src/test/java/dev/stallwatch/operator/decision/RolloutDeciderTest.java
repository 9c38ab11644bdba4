package dev.stallwatch.operator.decision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.operator.decision.Effect.Log;
import dev.stallwatch.operator.decision.RolloutDecider.Decision;
import dev.stallwatch.operator.decision.RolloutDecider.Observation;
import dev.stallwatch.rollback.RollbackDecision;
import dev.stallwatch.rollback.RollbackOutcome;
import dev.stallwatch.rollback.RollbackPolicy;
import dev.stallwatch.rollback.RollbackResult;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.EventView;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RolloutSnapshot;
import dev.stallwatch.testing.ScenarioFixture;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The operator's decisions beyond the verdict, on scenario fixtures with a fixed clock: each case
 * is one behaviour the embedded and real-tier ITs see through a running operator.
 */
public class RolloutDeciderTest {
  private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");
  private static final AnalyzerSettings FIVE_MINUTES = new AnalyzerSettings(Duration.ofMinutes(5));

  private final RolloutDecider decider = decider(false, false);

  private static RolloutDecider decider(boolean autoRollback, boolean conditions) {
    return new RolloutDecider(
        FIVE_MINUTES,
        new StallPlanner(Duration.ofHours(24)),
        new RollbackPolicy(autoRollback, Duration.ofMinutes(5)),
        RoutingLabels.NONE,
        conditions);
  }

  /** A scenario fixture's objects, as the caches would hold them. */
  private record Fixture(
      DaemonSet ds,
      List<Pod> pods,
      List<Node> nodes,
      List<ControllerRevision> revisions,
      List<EventView> events) {

    static Fixture load(String name) {
      DaemonSet ds = null;
      List<Pod> pods = new ArrayList<>();
      List<Node> nodes = new ArrayList<>();
      List<ControllerRevision> revisions = new ArrayList<>();
      List<EventView> events = new ArrayList<>();
      for (HasMetadata o : ScenarioFixture.load(name).kubeObjects()) {
        if (o instanceof DaemonSet d) {
          ds = d;
        } else if (o instanceof Pod p) {
          pods.add(p);
        } else if (o instanceof Node n) {
          nodes.add(n);
        } else if (o instanceof ControllerRevision r) {
          revisions.add(r);
        } else if (o instanceof Event e) {
          events.add(KubeViews.event(e));
        } else {
          throw new IllegalArgumentException(o.getKind());
        }
      }
      return new Fixture(ds, pods, nodes, revisions, events);
    }

    Fixture annotated(String key, String value) {
      DaemonSet copy =
          new DaemonSetBuilder(ds)
              .editMetadata()
              .addToAnnotations(key, value)
              .endMetadata()
              .build();
      return new Fixture(copy, pods, nodes, revisions, events);
    }

    Fixture generation(long generation) {
      DaemonSet copy =
          new DaemonSetBuilder(ds).editMetadata().withGeneration(generation).endMetadata().build();
      return new Fixture(copy, pods, nodes, revisions, events);
    }

    /** Every node tainted {@code key:NoSchedule}, which the DaemonSet does not tolerate. */
    Fixture tainted(String key) {
      List<Node> copies =
          nodes.stream()
              .map(
                  n ->
                      new NodeBuilder(n)
                          .editOrNewSpec()
                          .addNewTaint()
                          .withKey(key)
                          .withEffect("NoSchedule")
                          .endTaint()
                          .endSpec()
                          .build())
              .toList();
      return new Fixture(ds, pods, copies, revisions, events);
    }

    /** Without the pods on {@code node}. */
    Fixture withoutPodsOn(String node) {
      List<Pod> kept = pods.stream().filter(p -> !node.equals(p.getSpec().getNodeName())).toList();
      return new Fixture(ds, kept, nodes, revisions, events);
    }

    Observation seen(RolloutStall... stalls) {
      RolloutSnapshot snapshot = Snapshots.of(ds, pods, nodes, revisions);
      return new Observation(ds, snapshot, Set.of(stalls), StallNodes.of(snapshot), null);
    }

    /** As {@link #seen}, with the controller's Events listed for this reconcile. */
    Observation seenWithEvents(RolloutStall... stalls) {
      RolloutSnapshot snapshot = Snapshots.of(ds, pods, nodes, revisions);
      return new Observation(ds, snapshot, Set.of(stalls), StallNodes.of(snapshot), events);
    }
  }

  private static final Fixture SEED = Fixture.load("seed-image-pull");

  private static List<String> lines(Decision d) {
    return all(d, Log.class).stream().map(l -> l.level() + " " + l.message()).toList();
  }

  private static <T extends Effect> List<T> all(Decision d, Class<T> type) {
    return d.effects().stream().filter(type::isInstance).map(type::cast).toList();
  }

  /** The RolloutStall writes, in order: creations, status writes, deletions. */
  private static List<Effect> writes(Decision d) {
    return d.effects().stream()
        .filter(
            e ->
                e instanceof Effect.CreateStall
                    || e instanceof Effect.WriteStatus
                    || e instanceof Effect.DeleteStall)
        .toList();
  }

  /** The one stall created or written. */
  private static RolloutStall written(Decision d) {
    List<Effect> writes = writes(d);
    assertThat(writes).hasSize(1);
    return writes.get(0) instanceof Effect.CreateStall c
        ? c.stall()
        : ((Effect.WriteStatus) writes.get(0)).stall();
  }

  private static List<String> events(Decision d) {
    return all(d, Effect.Emit.class).stream().map(e -> e.reason().reason()).toList();
  }

  private static Effect.SetSeries series(Decision d) {
    List<Effect.SetSeries> series = all(d, Effect.SetSeries.class);
    assertThat(series).hasSizeLessThanOrEqualTo(1);
    return series.isEmpty() ? null : series.get(0);
  }

  private static RollbackDecision rollback(Decision d) {
    List<Effect.RollBack> rollbacks = all(d, Effect.RollBack.class);
    assertThat(rollbacks).hasSizeLessThanOrEqualTo(1);
    return rollbacks.isEmpty() ? null : rollbacks.get(0).decision();
  }

  /** When the decision looks again: the earliest {@link Effect.LookAgain}, null when none. */
  private static Instant next(Decision d) {
    return all(d, Effect.LookAgain.class).stream()
        .map(Effect.LookAgain::at)
        .min(Instant::compareTo)
        .orElse(null);
  }

  /** What the rollback the decision asked for came to, settled. */
  private static Decision rolledBack(
      RolloutDecider decider, DaemonSet ds, Decision d, RollbackOutcome outcome, Instant now) {
    return decider.settle(ds, d, new Performed(Set.of(), outcome, false, null, null), now);
  }

  @Test
  void aStallIsRecordedOnceWithItsSeriesAndItsMemory() {
    Decision d = decider.decide(SEED.seen(), RolloutState.NEW, NOW);

    assertThat(d.verdict().phase()).isEqualTo(Phase.Stalled);
    assertThat(writes(d)).singleElement().isInstanceOf(Effect.CreateStall.class);
    assertThat(series(d).active().cause()).isEqualTo(Cause.ImagePull);
    assertThat(series(d).active().since()).isEqualTo(d.verdict().stalledSince());
    assertThat(rollback(d)).isNull();
    assertThat(next(d)).isEqualTo(d.verdict().nextCheck());
    assertThat(d.state().memory().heldSince()).isNotEmpty();
    // Its Event and counter follow the write (never sent for a write that did not land), then the
    // series (the seed's verdict has no next check: no look again).
    assertThat(d.effects())
        .extracting(e -> (Object) e.getClass().getSimpleName())
        .containsExactly("CreateStall", "Emit", "CountStall", "SetSeries");
    assertThat(all(d, Effect.Emit.class))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.reason()).isEqualTo(EventReason.STALLED);
              assertThat(e.message()).startsWith("Rollout stalled on node gpu-node-1: ImagePull");
            });
    assertThat(all(d, Effect.CountStall.class))
        .containsExactly(new Effect.CountStall(Cause.ImagePull));
  }

  @Test
  void afterARestartTheActiveStallGoesOnWithoutASecondEventOrANewStart() {
    RolloutStall recorded = written(decider.decide(SEED.seen(), RolloutState.NEW, NOW));
    Instant later = NOW.plus(Duration.ofMinutes(3));

    // A new operator process: nothing remembered, the RolloutStall in the cache.
    Decision d = decider.decide(SEED.seen(recorded), RolloutState.NEW, later);

    assertThat(all(d, Effect.WriteStatus.class))
        .allSatisfy(
            w -> {
              assertThat(w.starts()).isFalse();
              assertThat(w.stall().getStatus().stalledSince())
                  .isEqualTo(recorded.getStatus().stalledSince());
            });
    assertThat(all(d, Effect.CreateStall.class)).isEmpty();
    assertThat(events(d)).isEmpty();
    assertThat(all(d, Effect.CountStall.class)).isEmpty();
    assertThat(d.state().memory().heldSince())
        .isEqualTo(RolloutState.NEW.recall(Set.of(recorded)).heldSince());
    assertThat(series(d).active().since())
        .isEqualTo(Instant.parse(recorded.getStatus().stalledSince()));
  }

  @Test
  void aRolloutThatLooksCompleteOnlyBecauseItsNodesLeftDesiredKeepsItsStall() {
    // Every node tainted NoSchedule (as the node lifecycle controller taints nodes it lost, here
    // with the Ready condition already True again): DESIRED is 0, so "all 0 desired nodes run the
    // new revision" — yet the stalled node still holds its broken pod, which the controller leaves.
    Decision first = decider.decide(SEED.seen(), RolloutState.NEW, NOW);
    RolloutStall recorded = written(first);
    Instant later = NOW.plus(Duration.ofMinutes(1));
    Fixture outage = SEED.tainted("example.com/outage");

    Decision d = decider.decide(outage.seen(recorded), first.state(), later);

    assertThat(d.verdict().phase()).isEqualTo(Phase.Complete);
    // Nothing judged meanwhile: the record is not rewritten, the memory not dropped, the series
    // stays as the record has it.
    assertThat(writes(d)).isEmpty();
    assertThat(events(d)).isEmpty();
    assertThat(d.state().memory()).isEqualTo(first.state().memory());
    assertThat(series(d).active().cause()).isEqualTo(Cause.ImagePull);
    assertThat(series(d).active().nodes()).isEqualTo(1);
    assertThat(series(d).active().since())
        .isEqualTo(Instant.parse(recorded.getStatus().stalledSince()));

    // The nodes back: the same stall goes on — no "moving again", no second Event.
    Decision back = decider.decide(SEED.seen(recorded), d.state(), later.plusSeconds(30));
    assertThat(all(back, Effect.WriteStatus.class))
        .allSatisfy(
            w -> {
              assertThat(w.starts()).isFalse();
              assertThat(w.stall().getStatus().stalledSince())
                  .isEqualTo(recorded.getStatus().stalledSince());
            });
    assertThat(events(back)).isEmpty();
    assertThat(series(back).active().since())
        .isEqualTo(Instant.parse(recorded.getStatus().stalledSince()));

    // Once the broken pod is gone from the node outside DESIRED, the rollout is complete.
    Decision gone =
        decider.decide(outage.withoutPodsOn("gpu-node-1").seen(recorded), RolloutState.NEW, later);
    assertThat(written(gone).getStatus().conditions())
        .singleElement()
        .satisfies(c -> assertThat(c.getReason()).isEqualTo(Resolution.RolloutComplete.name()));
    assertThat(events(gone)).containsExactly(EventReason.RESOLVED.reason());
  }

  @Test
  void whileTheCachesLagTheVerdictWaitsThenAfterTheLimitIsRecordedWithOneWarning() {
    Fixture lagging = Fixture.load("without-controller-revisions");

    Decision first = decider.decide(lagging.seen(), RolloutState.NEW, NOW);
    assertThat(first.verdict()).isNull();
    assertThat(writes(first)).isEmpty();
    assertThat(series(first)).isNull();
    assertThat(next(first)).isEqualTo(NOW.plus(RolloutDecider.LAG_RECHECK));
    assertThat(all(first, Log.class)).extracting(Log::level).containsOnly(Log.Level.DEBUG);
    assertThat(first.state().lagSince()).isEqualTo(NOW);

    Instant stillWithin = NOW.plus(RolloutDecider.LAG_LIMIT).minusMillis(1);
    Decision second = decider.decide(lagging.seen(), first.state(), stillWithin);
    assertThat(second.verdict()).isNull();
    assertThat(second.state().lagSince()).isEqualTo(NOW);

    Instant past = NOW.plus(RolloutDecider.LAG_LIMIT);
    Decision third = decider.decide(lagging.seen(), second.state(), past);
    assertThat(third.verdict()).isNotNull();
    assertThat(series(third)).isNotNull();
    assertThat(lines(third))
        .containsExactly(
            "WARN gpu-operator/nvidia-container-toolkit: no ControllerRevision of DaemonSet"
                + " nvidia-container-toolkit is cached, though the controller has written its"
                + " status for 60 s; analyzing all the same");

    Decision fourth = decider.decide(lagging.seen(), third.state(), past.plusSeconds(30));
    assertThat(fourth.verdict()).isNotNull();
    assertThat(lines(fourth)).isEmpty();

    // The caches caught up: the next lag is waited out afresh.
    Decision caughtUp = decider.decide(SEED.seen(), fourth.state(), past.plusSeconds(31));
    assertThat(caughtUp.state().lagSince()).isNull();
  }

  @Test
  void aStallRestingOnlyOnALateDeletionIsLookedAtAgainBeforeItIsRecorded() {
    Fixture terminating = Fixture.load("stuck-terminating-on-ready-node");

    Decision first = decider.decide(terminating.seen(), RolloutState.NEW, NOW);
    assertThat(first.verdict().phase()).isEqualTo(Phase.Stalled);
    assertThat(writes(first)).isEmpty();
    assertThat(series(first)).isNull();
    assertThat(next(first)).isEqualTo(NOW.plus(RolloutDecider.LAG_RECHECK));
    assertThat(first.state().confirming().since()).isEqualTo(NOW);
    assertThat(first.state().memory()).isNull(); // nothing remembered yet
    assertThat(lines(first))
        .singleElement()
        .asString()
        .startsWith("INFO gpu-operator/nvidia-container-toolkit: ")
        .endsWith("; looking again before recording it");

    Decision again = decider.decide(terminating.seen(), first.state(), NOW.plusSeconds(1));
    assertThat(writes(again)).isEmpty();
    assertThat(all(again, Log.class)).extracting(Log::level).containsOnly(Log.Level.DEBUG);

    Decision confirmed =
        decider.decide(terminating.seen(), again.state(), NOW.plus(RolloutDecider.CONFIRMATION));
    assertThat(writes(confirmed)).singleElement().isInstanceOf(Effect.CreateStall.class);
    assertThat(written(confirmed).getStatus().stalledSince())
        .isEqualTo(first.verdict().stalledSince().toString());
    assertThat(confirmed.state().confirming()).isNull();
    assertThat(lines(confirmed))
        .containsExactly(
            "INFO gpu-operator/nvidia-container-toolkit: still stalled 2 s later: recording it");
  }

  @Test
  void aStallThatDoesNotStandTheSecondLookIsNotRecorded() {
    Fixture terminating = Fixture.load("stuck-terminating-on-ready-node");
    Decision first = decider.decide(terminating.seen(), RolloutState.NEW, NOW);

    // The DaemonSet's change behind the deletion arrived: the rollout is the seed's, not stuck
    // on a deletion any more.
    Decision second = decider.decide(SEED.seen(), first.state(), NOW.plusSeconds(1));

    assertThat(second.state().confirming()).isNull();
    assertThat(lines(second))
        .first()
        .isEqualTo(
            "INFO gpu-operator/nvidia-container-toolkit: the stall of revision "
                + first.state().confirming().hash()
                + " did not stand a second look: not recorded");
  }

  /**
   * The analyzer runs once per decision: a verdict that first wants the controller's Events records
   * nothing and has them listed by the next reconcile, at once; the state says when they are due
   * again.
   */
  @Test
  void aPodlessNodeAsksForTheControllersEventsThenUsesThemForAWhile() {
    Fixture quota = Fixture.load("failed-create-quota");
    assertThat(RolloutState.NEW.failedCreatesDue(NOW)).isFalse();

    Decision ask = decider.decide(quota.seen(), RolloutState.NEW, NOW);
    assertThat(ask.verdict()).isNull();
    assertThat(ask.effects()).containsExactly(new Effect.LookAgain(NOW));
    assertThat(ask.state().failedCreatesDue(NOW)).isTrue();

    Decision listed = decider.decide(quota.seenWithEvents(), ask.state(), NOW);
    assertThat(listed.verdict().cause()).isEqualTo(Cause.FailedCreate);
    assertThat(written(listed).getStatus().cause()).isEqualTo(Cause.FailedCreate.name());
    assertThat(next(listed)).isBeforeOrEqualTo(NOW.plus(RolloutDecider.EVENTS_REFRESH));
    assertThat(listed.state().failedCreates().at()).isEqualTo(NOW);

    Instant within = NOW.plus(RolloutDecider.EVENTS_REFRESH).minusMillis(1);
    assertThat(listed.state().failedCreatesDue(within)).isFalse();
    Decision reused = decider.decide(quota.seen(), listed.state(), within);
    assertThat(reused.verdict().cause()).isEqualTo(Cause.FailedCreate);
    assertThat(reused.state().failedCreatesDue(within)).isFalse();

    Instant stale = NOW.plus(RolloutDecider.EVENTS_REFRESH);
    assertThat(reused.state().failedCreatesDue(stale)).isTrue();
    Decision relisted = decider.decide(quota.seenWithEvents(), reused.state(), stale);
    assertThat(relisted.state().failedCreates().at()).isEqualTo(stale);

    // Not wanted any more: forgotten.
    Decision moved = decider.decide(SEED.seen(), listed.state(), within);
    assertThat(moved.state().failedCreates()).isNull();
    assertThat(moved.state().failedCreatesDue(within)).isFalse();
  }

  @Test
  void anInvalidSpecIsOneWarningPerGenerationAndProblem() {
    DaemonSet ds = SEED.generation(4).ds();

    Decision first = decider.invalid(ds, "spec.selector is missing", RolloutState.NEW);
    assertThat(all(first, Effect.Emit.class))
        .containsExactly(new Effect.Emit(EventReason.INVALID, "spec.selector is missing"));
    assertThat(lines(first))
        .containsExactly(
            "WARN cannot analyze DaemonSet gpu-operator/nvidia-container-toolkit: spec.selector is"
                + " missing");

    Decision same = decider.invalid(ds, "spec.selector is missing", first.state());
    assertThat(same.effects()).isEmpty();

    Decision other = decider.invalid(ds, "spec.template is missing", same.state());
    assertThat(events(other)).hasSize(1);

    Decision edited =
        decider.invalid(SEED.generation(5).ds(), "spec.template is missing", other.state());
    assertThat(events(edited)).hasSize(1);

    // Fixed, then broken the same way again: said again.
    Decision fixed = decider.decide(SEED.generation(5).seen(), edited.state(), NOW);
    assertThat(fixed.state().invalid()).isNull();
    assertThat(
            events(
                decider.invalid(
                    SEED.generation(5).ds(), "spec.template is missing", fixed.state())))
        .hasSize(1);
  }

  @Test
  void aDueAutoRollbackIsPlannedRefusedOnceRetriedAfterAMinuteAndDoneOnce() {
    RolloutDecider rolling = decider(true, false);
    Fixture optedIn = SEED.annotated(MetadataKeys.AUTO_ROLLBACK, "true");

    Decision due = rolling.decide(optedIn.seen(), RolloutState.NEW, NOW);
    assertThat(rollback(due)).isNotNull();
    assertThat(rollback(due).rollBack()).isTrue();
    // The rollback runs after the stall is written and announced.
    assertThat(due.effects().indexOf(new Effect.RollBack(rollback(due))))
        .isGreaterThan(due.effects().indexOf(all(due, Effect.Emit.class).get(0)));

    var refused = new RollbackOutcome(rollback(due), null, "HTTP 403: forbidden");
    Decision first = rolledBack(rolling, optedIn.ds(), due, refused, NOW);
    assertThat(all(first, Effect.Emit.class))
        .containsExactly(new Effect.Emit(EventReason.ROLLBACK_REFUSED, "HTTP 403: forbidden"));
    assertThat(next(first)).isEqualTo(NOW.plus(RolloutDecider.ROLLBACK_RETRY));

    // Pod events meanwhile: no retry before the minute is up.
    Decision meanwhile = rolling.decide(optedIn.seen(), first.state(), NOW.plusSeconds(10));
    assertThat(rollback(meanwhile)).isNull();
    assertThat(next(meanwhile)).isBeforeOrEqualTo(NOW.plus(RolloutDecider.ROLLBACK_RETRY));

    // Retried, refused the same way: no second Warning.
    Instant retry = NOW.plus(RolloutDecider.ROLLBACK_RETRY);
    Decision again = rolling.decide(optedIn.seen(), meanwhile.state(), retry);
    assertThat(rollback(again)).isNotNull();
    Decision second =
        rolledBack(
            rolling,
            optedIn.ds(),
            again,
            new RollbackOutcome(rollback(again), null, "HTTP 403: forbidden"),
            retry);
    assertThat(events(second)).isEmpty();
    assertThat(lines(second)).isEmpty();

    // Done at last: one Event, one count, remembered before the caches show it.
    Instant done = retry.plus(RolloutDecider.ROLLBACK_RETRY);
    Decision third = rolling.decide(optedIn.seen(), second.state(), done);
    var newRevision = third.verdict().newRevision();
    var result =
        new RollbackResult(
            "gpu-operator/nvidia-container-toolkit",
            RollbackResult.Outcome.ROLLED_BACK,
            new RollbackResult.RevisionSummaryLine(2, newRevision.hash()),
            new RollbackResult.RevisionSummaryLine(1, third.verdict().oldRevision().hash()),
            List.of(),
            List.of());
    Decision rolledBack =
        rolledBack(
            rolling, optedIn.ds(), third, new RollbackOutcome(rollback(third), result, null), done);
    assertThat(all(rolledBack, Effect.CountRollback.class)).hasSize(1);
    assertThat(events(rolledBack)).containsExactly(EventReason.ROLLED_BACK.reason());
    assertThat(rolledBack.state().ownRollbacks()).hasSize(1);
    assertThat(rolledBack.state().refusal()).isNull();

    // The next reconcile still sees the DaemonSet as it was: no second rollback.
    Decision stale = rolling.decide(optedIn.seen(), rolledBack.state(), done.plusSeconds(1));
    assertThat(rollback(stale)).isNull();
  }

  @Test
  void withoutTheOptInNoRollbackIsPlanned() {
    Decision d = decider(true, false).decide(SEED.seen(), RolloutState.NEW, NOW);
    assertThat(rollback(d)).isNull();
    assertThat(series(d).active()).isNotNull();
  }

  @Test
  void aDeletedDaemonSetDropsItsSeriesAndItsStalls() {
    RolloutStall recorded = written(decider.decide(SEED.seen(), RolloutState.NEW, NOW));

    Decision d = decider.deleted(SEED.ds(), Set.of(recorded));

    assertThat(d.effects())
        .containsExactly(
            Log.info(
                "DaemonSet gpu-operator/nvidia-container-toolkit deleted: removing its 1"
                    + " RolloutStall(s)"),
            new Effect.DropSeries(),
            new Effect.DeleteStall(recorded, false));
    assertThat(d.state()).isEqualTo(RolloutState.NEW);
    assertThat(decider.deleted(SEED.ds(), Set.of()).effects())
        .containsExactly(new Effect.DropSeries());
  }

  /**
   * The first write of a stall failed with its outcome unknown (its status PUT landed, the answer
   * was lost): settled, the state remembers it; the next look finds it Active and announces it,
   * once.
   */
  @Test
  void aStallWhoseFirstWriteWasNotConfirmedIsAnnouncedWhenFoundActive() {
    Decision first = decider.decide(SEED.seen(), RolloutState.NEW, NOW);
    RolloutStall landed = written(first);
    String name = landed.getMetadata().getName();
    var lost =
        new Performed(Set.of(name), null, false, null, new IllegalStateException("answer lost"));
    RolloutState failed = decider.settle(SEED.ds(), first, lost, NOW).state();
    assertThat(failed.unannounced()).containsExactly(name);

    Decision next = decider.decide(SEED.seen(landed), failed, NOW.plusSeconds(5));

    assertThat(all(next, Effect.CreateStall.class)).isEmpty();
    assertThat(all(next, Effect.WriteStatus.class)).noneMatch(Effect.WriteStatus::starts);
    assertThat(lines(next))
        .contains(
            "INFO RolloutStall gpu-operator/"
                + name
                + ": its status write's answer was lost; announcing it now");
    assertThat(events(next)).containsExactly(EventReason.STALLED.reason());
    assertThat(all(next, Effect.CountStall.class))
        .containsExactly(new Effect.CountStall(Cause.ImagePull));
    assertThat(next.state().unannounced()).isEmpty();
    // Announced: the look after says nothing more.
    assertThat(events(decider.decide(SEED.seen(landed), next.state(), NOW.plusSeconds(6))))
        .isEmpty();
  }

  /** The write did not land: the stall is created (and announced) again, not announced twice. */
  @Test
  void aStallWhoseFirstWriteDidNotLandIsCreatedAndAnnouncedOnce() {
    Decision first = decider.decide(SEED.seen(), RolloutState.NEW, NOW);
    String name = written(first).getMetadata().getName();

    Decision next =
        decider.decide(SEED.seen(), first.state().unannounced(name), NOW.plusSeconds(5));

    assertThat(writes(next)).singleElement().isInstanceOf(Effect.CreateStall.class);
    assertThat(events(next)).containsExactly(EventReason.STALLED.reason());
    assertThat(next.state().unannounced()).isEmpty();
  }

  /**
   * With {@code --daemonset-conditions} the condition follows the stalls: synced after the writes,
   * and looked at again shortly when stalls were written (the cache shows them only later); a
   * conflict is looked at again shortly.
   */
  @Test
  void theConditionFollowsTheStallsWhenAskedFor() {
    RolloutDecider withConditions = decider(false, true);
    Decision d = withConditions.decide(SEED.seen(), RolloutState.NEW, NOW);

    String hash = d.verdict().newRevision().hash();
    assertThat(all(d, Effect.SyncCondition.class)).containsExactly(new Effect.SyncCondition(hash));
    assertThat(d.effects().indexOf(new Effect.SyncCondition(hash)))
        .isGreaterThan(d.effects().indexOf(all(d, Effect.CreateStall.class).get(0)));
    assertThat(next(d)).isEqualTo(NOW.plus(RolloutDecider.CONFLICT_RETRY));

    var conflict = new Performed(Set.of(), null, true, null, null);
    assertThat(withConditions.settle(SEED.ds(), d, conflict, NOW).effects())
        .containsExactly(new Effect.LookAgain(NOW.plus(RolloutDecider.CONFLICT_RETRY)));
    assertThat(all(decider.decide(SEED.seen(), RolloutState.NEW, NOW), Effect.SyncCondition.class))
        .isEmpty();
  }

  /** A status edited by hand is rewritten with one warning naming what was found. */
  @Test
  void aHandEditedStatusIsRewrittenWithAWarning() {
    RolloutStall recorded = written(decider.decide(SEED.seen(), RolloutState.NEW, NOW));
    var mapper = io.fabric8.kubernetes.client.utils.Serialization.jsonMapper();
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> status =
        mapper.convertValue(recorded.getStatus(), java.util.Map.class);
    status.put("phase", "Broken");
    RolloutStall vandalised = new RolloutStall();
    vandalised.setMetadata(recorded.getMetadata());
    vandalised.setSpec(recorded.getSpec());
    vandalised.setStatus(mapper.convertValue(status, dev.stallwatch.crd.RolloutStallStatus.class));

    Decision d = decider.decide(SEED.seen(vandalised), RolloutState.NEW, NOW.plusSeconds(30));

    assertThat(lines(d))
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("WARN RolloutStall gpu-operator/")
                    .contains("status edited by hand (phase \"Broken\"")
                    .endsWith("rewritten from the current verdict"));
    assertThat(all(d, Effect.WriteStatus.class)).singleElement();
    assertThat(events(d)).isEmpty(); // repaired, not a second RolloutStalled
  }
}
