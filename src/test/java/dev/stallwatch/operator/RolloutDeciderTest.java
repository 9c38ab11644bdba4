package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.operator.RolloutDecider.Decision;
import dev.stallwatch.operator.RolloutDecider.Observation;
import dev.stallwatch.operator.RolloutPlan.LogLine;
import dev.stallwatch.operator.RolloutPlan.Notice;
import dev.stallwatch.operator.StallPlan.Kind;
import dev.stallwatch.rollback.AutoRollback;
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
class RolloutDeciderTest {
  private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");
  private static final AnalyzerSettings FIVE_MINUTES = new AnalyzerSettings(Duration.ofMinutes(5));

  private final RolloutDecider decider = decider(false);

  private static RolloutDecider decider(boolean autoRollback) {
    return new RolloutDecider(
        FIVE_MINUTES,
        new StallPlanner(Duration.ofHours(24)),
        new RollbackPolicy(autoRollback, Duration.ofMinutes(5)),
        RoutingLabels.NONE);
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
  }

  private static final Fixture SEED = Fixture.load("seed-image-pull");

  private static List<String> lines(RolloutPlan plan) {
    return plan.log().stream().map(l -> l.level() + " " + l.message()).toList();
  }

  @Test
  void aStallIsRecordedOnceWithItsSeriesAndItsMemory() {
    Decision d = decider.decide(SEED.seen(), RolloutState.NEW, NOW);

    assertThat(d.verdict().phase()).isEqualTo(Phase.Stalled);
    assertThat(d.plan().stalls().changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.kind()).isEqualTo(Kind.CREATE);
              assertThat(c.transition()).isEqualTo(StallTransition.STALLED);
            });
    assertThat(d.plan().metrics().active().cause()).isEqualTo(Cause.ImagePull);
    assertThat(d.plan().metrics().active().since()).isEqualTo(d.verdict().stalledSince());
    assertThat(d.plan().rollback()).isNull();
    assertThat(d.plan().next()).isEqualTo(d.verdict().nextCheck());
    assertThat(d.state().memory().heldSince()).isNotEmpty();
    assertThat(d.plan().events()).isEmpty();
  }

  @Test
  void afterARestartTheActiveStallGoesOnWithoutASecondEventOrANewStart() {
    RolloutStall recorded =
        decider.decide(SEED.seen(), RolloutState.NEW, NOW).plan().stalls().active();
    Instant later = NOW.plus(Duration.ofMinutes(3));

    // A new operator process: nothing remembered, the RolloutStall in the cache.
    Decision d = decider.decide(SEED.seen(recorded), RolloutState.NEW, later);

    assertThat(d.plan().stalls().changes())
        .allSatisfy(c -> assertThat(c.transition()).isEqualTo(StallTransition.STILL_STALLED));
    assertThat(d.plan().stalls().active().getStatus().stalledSince())
        .isEqualTo(recorded.getStatus().stalledSince());
    assertThat(d.state().memory().heldSince())
        .isEqualTo(RolloutState.NEW.recall(Set.of(recorded)).heldSince());
    assertThat(d.plan().metrics().active().since())
        .isEqualTo(Instant.parse(recorded.getStatus().stalledSince()));
  }

  @Test
  void aRolloutThatLooksCompleteOnlyBecauseItsNodesLeftDesiredKeepsItsStall() {
    // Every node tainted NoSchedule (as the node lifecycle controller taints nodes it lost, here
    // with the Ready condition already True again): DESIRED is 0, so "all 0 desired nodes run the
    // new revision" — yet the stalled node still holds its broken pod, which the controller leaves.
    Decision first = decider.decide(SEED.seen(), RolloutState.NEW, NOW);
    RolloutStall recorded = first.plan().stalls().active();
    Instant later = NOW.plus(Duration.ofMinutes(1));
    Fixture outage = SEED.tainted("example.com/outage");

    Decision d = decider.decide(outage.seen(recorded), first.state(), later);

    assertThat(d.verdict().phase()).isEqualTo(Phase.Complete);
    // Nothing judged meanwhile: the record is not rewritten, the memory not dropped, the series
    // stays as the record has it.
    assertThat(d.plan().stalls().changes()).isEmpty();
    assertThat(d.plan().stalls().active()).isSameAs(recorded);
    assertThat(d.state().memory()).isEqualTo(first.state().memory());
    assertThat(d.plan().metrics().active().cause()).isEqualTo(Cause.ImagePull);
    assertThat(d.plan().metrics().active().nodes()).isEqualTo(1);

    // The nodes back: the same stall goes on — no "moving again", no second Event.
    Decision back = decider.decide(SEED.seen(recorded), d.state(), later.plusSeconds(30));
    assertThat(back.plan().stalls().changes())
        .allSatisfy(c -> assertThat(c.transition()).isEqualTo(StallTransition.STILL_STALLED));
    assertThat(back.plan().stalls().active().getStatus().stalledSince())
        .isEqualTo(recorded.getStatus().stalledSince());

    // Once the broken pod is gone from the node outside DESIRED, the rollout is complete.
    Decision gone =
        decider.decide(outage.withoutPodsOn("gpu-node-1").seen(recorded), RolloutState.NEW, later);
    assertThat(gone.plan().stalls().changes())
        .singleElement()
        .satisfies(c -> assertThat(c.resolution()).isEqualTo(Resolution.RolloutComplete));
  }

  @Test
  void whileTheCachesLagTheVerdictWaitsThenAfterTheLimitIsRecordedWithOneWarning() {
    Fixture lagging = Fixture.load("without-controller-revisions");

    Decision first = decider.decide(lagging.seen(), RolloutState.NEW, NOW);
    assertThat(first.verdict()).isNull();
    assertThat(first.plan().stalls().changes()).isEmpty();
    assertThat(first.plan().metrics()).isNull();
    assertThat(first.plan().next()).isEqualTo(NOW.plus(RolloutDecider.LAG_RECHECK));
    assertThat(first.plan().log()).extracting(LogLine::level).containsOnly(LogLine.Level.DEBUG);
    assertThat(first.state().lagSince()).isEqualTo(NOW);

    Instant stillWithin = NOW.plus(RolloutDecider.LAG_LIMIT).minusMillis(1);
    Decision second = decider.decide(lagging.seen(), first.state(), stillWithin);
    assertThat(second.verdict()).isNull();
    assertThat(second.state().lagSince()).isEqualTo(NOW);

    Instant past = NOW.plus(RolloutDecider.LAG_LIMIT);
    Decision third = decider.decide(lagging.seen(), second.state(), past);
    assertThat(third.verdict()).isNotNull();
    assertThat(third.plan().metrics()).isNotNull();
    assertThat(lines(third.plan()))
        .containsExactly(
            "WARN gpu-operator/nvidia-container-toolkit: no ControllerRevision of DaemonSet"
                + " nvidia-container-toolkit is cached, though the controller has written its"
                + " status for 60 s; analyzing all the same");

    Decision fourth = decider.decide(lagging.seen(), third.state(), past.plusSeconds(30));
    assertThat(fourth.verdict()).isNotNull();
    assertThat(fourth.plan().log()).isEmpty();

    // The caches caught up: the next lag is waited out afresh.
    Decision caughtUp = decider.decide(SEED.seen(), fourth.state(), past.plusSeconds(31));
    assertThat(caughtUp.state().lagSince()).isNull();
  }

  @Test
  void aStallRestingOnlyOnALateDeletionIsLookedAtAgainBeforeItIsRecorded() {
    Fixture terminating = Fixture.load("stuck-terminating-on-ready-node");

    Decision first = decider.decide(terminating.seen(), RolloutState.NEW, NOW);
    assertThat(first.verdict().phase()).isEqualTo(Phase.Stalled);
    assertThat(first.plan().stalls().changes()).isEmpty();
    assertThat(first.plan().metrics()).isNull();
    assertThat(first.plan().next()).isEqualTo(NOW.plus(RolloutDecider.LAG_RECHECK));
    assertThat(first.state().confirming().since()).isEqualTo(NOW);
    assertThat(first.state().memory()).isNull(); // nothing remembered yet
    assertThat(lines(first.plan()))
        .singleElement()
        .asString()
        .startsWith("INFO gpu-operator/nvidia-container-toolkit: ")
        .endsWith("; looking again before recording it");

    Decision again = decider.decide(terminating.seen(), first.state(), NOW.plusSeconds(1));
    assertThat(again.plan().stalls().changes()).isEmpty();
    assertThat(again.plan().log()).extracting(LogLine::level).containsOnly(LogLine.Level.DEBUG);

    Decision confirmed =
        decider.decide(terminating.seen(), again.state(), NOW.plus(RolloutDecider.CONFIRMATION));
    assertThat(confirmed.plan().stalls().changes())
        .singleElement()
        .satisfies(c -> assertThat(c.kind()).isEqualTo(Kind.CREATE));
    assertThat(confirmed.plan().stalls().active().getStatus().stalledSince())
        .isEqualTo(first.verdict().stalledSince().toString());
    assertThat(confirmed.state().confirming()).isNull();
    assertThat(lines(confirmed.plan()))
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
    assertThat(lines(second.plan()))
        .first()
        .isEqualTo(
            "INFO gpu-operator/nvidia-container-toolkit: the stall of revision "
                + first.state().confirming().hash()
                + " did not stand a second look: not recorded");
  }

  @Test
  void aPodlessNodeAsksForTheControllersEventsThenUsesThemForAWhile() {
    Fixture quota = Fixture.load("failed-create-quota");

    Decision ask = decider.decide(quota.seen(), RolloutState.NEW, NOW);
    assertThat(ask.plan().listFailedCreates()).isTrue();
    assertThat(ask.plan().stalls().changes()).isEmpty();
    assertThat(ask.state()).isEqualTo(RolloutState.NEW);

    Decision listed =
        decider.decide(quota.seen().withFailedCreates(quota.events()), ask.state(), NOW);
    assertThat(listed.plan().listFailedCreates()).isFalse();
    assertThat(listed.verdict().cause()).isEqualTo(Cause.FailedCreate);
    assertThat(listed.plan().next()).isBeforeOrEqualTo(NOW.plus(FailedCreates.REFRESH));
    assertThat(listed.state().failedCreates().at()).isEqualTo(NOW);

    Instant within = NOW.plus(FailedCreates.REFRESH).minusMillis(1);
    Decision reused = decider.decide(quota.seen(), listed.state(), within);
    assertThat(reused.plan().listFailedCreates()).isFalse();
    assertThat(reused.verdict().cause()).isEqualTo(Cause.FailedCreate);

    Decision stale = decider.decide(quota.seen(), listed.state(), NOW.plus(FailedCreates.REFRESH));
    assertThat(stale.plan().listFailedCreates()).isTrue();

    // Not wanted any more: forgotten.
    assertThat(decider.decide(SEED.seen(), listed.state(), within).state().failedCreates())
        .isNull();
  }

  @Test
  void anInvalidSpecIsOneWarningPerGenerationAndProblem() {
    DaemonSet ds = SEED.generation(4).ds();

    Decision first = decider.invalid(ds, "spec.selector is missing", RolloutState.NEW);
    assertThat(first.plan().events())
        .containsExactly(Notice.warning(StallEvents.INVALID, "spec.selector is missing"));
    assertThat(lines(first.plan()))
        .containsExactly(
            "WARN cannot analyze DaemonSet gpu-operator/nvidia-container-toolkit: spec.selector is"
                + " missing");

    Decision same = decider.invalid(ds, "spec.selector is missing", first.state());
    assertThat(same.plan().events()).isEmpty();
    assertThat(same.plan().log()).isEmpty();

    Decision other = decider.invalid(ds, "spec.template is missing", same.state());
    assertThat(other.plan().events()).hasSize(1);

    Decision edited =
        decider.invalid(SEED.generation(5).ds(), "spec.template is missing", other.state());
    assertThat(edited.plan().events()).hasSize(1);

    // Fixed, then broken the same way again: said again.
    Decision fixed = decider.decide(SEED.generation(5).seen(), edited.state(), NOW);
    assertThat(fixed.state().invalid()).isNull();
    assertThat(
            decider
                .invalid(SEED.generation(5).ds(), "spec.template is missing", fixed.state())
                .plan()
                .events())
        .hasSize(1);
  }

  @Test
  void aDueAutoRollbackIsPlannedRefusedOnceRetriedAfterAMinuteAndDoneOnce() {
    RolloutDecider rolling = decider(true);
    Fixture optedIn = SEED.annotated(MetadataKeys.AUTO_ROLLBACK, "true");

    Decision due = rolling.decide(optedIn.seen(), RolloutState.NEW, NOW);
    assertThat(due.plan().rollback()).isNotNull();
    assertThat(due.plan().rollback().rollBack()).isTrue();

    var refused = new AutoRollback.Outcome(due.plan().rollback(), null, "HTTP 403: forbidden");
    Decision first = rolling.afterRollback(optedIn.ds(), due.verdict(), refused, due.state(), NOW);
    assertThat(first.plan().events())
        .containsExactly(Notice.warning(StallEvents.ROLLBACK_REFUSED, "HTTP 403: forbidden"));
    assertThat(first.plan().next()).isEqualTo(NOW.plus(RolloutDecider.ROLLBACK_RETRY));

    // Pod events meanwhile: no retry before the minute is up.
    Decision meanwhile = rolling.decide(optedIn.seen(), first.state(), NOW.plusSeconds(10));
    assertThat(meanwhile.plan().rollback()).isNull();
    assertThat(meanwhile.plan().next()).isBeforeOrEqualTo(NOW.plus(RolloutDecider.ROLLBACK_RETRY));

    // Retried, refused the same way: no second Warning.
    Instant retry = NOW.plus(RolloutDecider.ROLLBACK_RETRY);
    Decision again = rolling.decide(optedIn.seen(), meanwhile.state(), retry);
    assertThat(again.plan().rollback()).isNotNull();
    Decision second =
        rolling.afterRollback(
            optedIn.ds(),
            again.verdict(),
            new AutoRollback.Outcome(again.plan().rollback(), null, "HTTP 403: forbidden"),
            again.state(),
            retry);
    assertThat(second.plan().events()).isEmpty();
    assertThat(second.plan().log()).isEmpty();

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
        rolling.afterRollback(
            optedIn.ds(),
            third.verdict(),
            new AutoRollback.Outcome(third.plan().rollback(), result, null),
            third.state(),
            done);
    assertThat(rolledBack.plan().countRollback()).isTrue();
    assertThat(rolledBack.plan().events())
        .extracting(Notice::reason)
        .containsExactly(StallEvents.ROLLED_BACK);
    assertThat(rolledBack.state().ownRollbacks()).hasSize(1);
    assertThat(rolledBack.state().refusal()).isNull();

    // The next reconcile still sees the DaemonSet as it was: no second rollback.
    Decision stale = rolling.decide(optedIn.seen(), rolledBack.state(), done.plusSeconds(1));
    assertThat(stale.plan().rollback()).isNull();
  }

  @Test
  void withoutTheOptInNoRollbackIsPlanned() {
    Decision d = decider(true).decide(SEED.seen(), RolloutState.NEW, NOW);
    assertThat(d.plan().rollback()).isNull();
    assertThat(d.plan().stalls().active()).isNotNull();
  }

  @Test
  void aDeletedDaemonSetDropsItsSeriesAndItsStalls() {
    RolloutStall recorded =
        decider.decide(SEED.seen(), RolloutState.NEW, NOW).plan().stalls().active();

    RolloutPlan plan = decider.deleted("gpu-operator/nvidia-container-toolkit", Set.of(recorded));

    assertThat(plan.forget()).isTrue();
    assertThat(plan.orphans()).containsExactly(recorded);
    assertThat(lines(plan))
        .containsExactly(
            "INFO DaemonSet gpu-operator/nvidia-container-toolkit deleted: removing its 1"
                + " RolloutStall(s)");
    assertThat(decider.deleted("ns/none", Set.of()).log()).isEmpty();
  }

  /**
   * The first write of a stall failed with its outcome unknown (its status PUT landed, the answer
   * was lost): the next look finds it Active and announces it, once.
   */
  @Test
  void aStallWhoseFirstWriteWasNotConfirmedIsAnnouncedWhenFoundActive() {
    Decision first = decider.decide(SEED.seen(), RolloutState.NEW, NOW);
    RolloutStall landed = first.plan().stalls().active();
    String name = landed.getMetadata().getName();
    RolloutState failed = first.state().unannounced(name);

    Decision next = decider.decide(SEED.seen(landed), failed, NOW.plusSeconds(5));

    assertThat(next.plan().stalls().changes())
        .filteredOn(c -> c.transition() == StallTransition.STALLED)
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.kind()).isEqualTo(Kind.ANNOUNCE);
              assertThat(c.stall().getMetadata().getName()).isEqualTo(name);
            });
    assertThat(next.plan().stalls().cause()).isEqualTo(Cause.ImagePull);
    assertThat(next.state().unannounced()).isEmpty();
    // Announced: the look after says nothing more.
    assertThat(
            decider
                .decide(SEED.seen(landed), next.state(), NOW.plusSeconds(6))
                .plan()
                .stalls()
                .changes())
        .noneMatch(c -> c.transition() == StallTransition.STALLED);
  }

  /** The write did not land: the stall is created (and announced) again, not announced twice. */
  @Test
  void aStallWhoseFirstWriteDidNotLandIsCreatedAndAnnouncedOnce() {
    Decision first = decider.decide(SEED.seen(), RolloutState.NEW, NOW);
    String name = first.plan().stalls().active().getMetadata().getName();

    Decision next =
        decider.decide(SEED.seen(), first.state().unannounced(name), NOW.plusSeconds(5));

    assertThat(next.plan().stalls().changes())
        .filteredOn(c -> c.transition() == StallTransition.STALLED)
        .singleElement()
        .satisfies(c -> assertThat(c.kind()).isEqualTo(Kind.CREATE));
    assertThat(next.state().unannounced()).isEmpty();
  }
}
