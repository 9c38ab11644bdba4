package dev.stallwatch.operator.decision;

import static dev.stallwatch.testing.SeedVerdicts.Operator.NEW;
import static dev.stallwatch.testing.SeedVerdicts.Operator.OLD;
import static dev.stallwatch.testing.SeedVerdicts.Operator.notStalled;
import static dev.stallwatch.testing.SeedVerdicts.Operator.stall;
import static dev.stallwatch.testing.SeedVerdicts.Operator.stalled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus.Rollback;
import dev.stallwatch.operator.decision.StallPlan.Kind;
import dev.stallwatch.rollback.RollbackRecord;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.testing.SeedVerdicts;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

public class StallPlannerTest {
  private final Duration ttl = Duration.ofHours(24);
  private final StallPlanner planner = new StallPlanner(ttl);

  /** The planner's plan with no withheld rollback and every node ready. */
  private StallPlan plan(
      RolloutVerdict verdict,
      java.util.Collection<RolloutStall> existing,
      java.util.Optional<RollbackRecord> rollback,
      Instant now) {
    return plan(verdict, existing, rollback, now, null);
  }

  /** The planner's plan with every node ready. */
  private StallPlan plan(
      RolloutVerdict verdict,
      java.util.Collection<RolloutStall> existing,
      java.util.Optional<RollbackRecord> rollback,
      Instant now,
      String withheld) {
    return planner.plan(verdict, existing, rollback, now, withheld, StallNodes.ALL_READY);
  }

  private final Instant now = Instant.parse("2026-12-02T10:07:00Z");
  private static final Optional<RollbackRecord> NO_ROLLBACK = Optional.empty();

  @Test
  void aStalledRolloutWithoutAStallCreatesOneOwnedByTheDaemonSet() {
    StallPlan plan = plan(stalled(Cause.ImagePull), List.of(), NO_ROLLBACK, now);

    assertThat(plan.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.kind()).isEqualTo(Kind.CREATE);
              assertThat(c.transition()).isEqualTo(StallTransition.STALLED);
              RolloutStall s = c.stall();
              assertThat(s.getMetadata().getName()).isEqualTo("nvidia-container-toolkit-7f6c8d9b4");
              assertThat(s.getMetadata().getNamespace()).isEqualTo("gpu-operator");
              assertThat(s.getMetadata().getOwnerReferences())
                  .singleElement()
                  .satisfies(
                      o -> {
                        assertThat(o.getKind()).isEqualTo("DaemonSet");
                        assertThat(o.getName()).isEqualTo("nvidia-container-toolkit");
                        assertThat(o.getUid()).isEqualTo("uid-1");
                      });
              assertThat(s.getSpec().revision()).isEqualTo(NEW.hash());
              assertThat(s.getStatus().phase()).isEqualTo("Active");
            });
    assertThat(plan.active()).isNotNull();
  }

  @Test
  void aStallSeenAgainUnchangedPlansNoWrite() {
    RolloutStall existing = created();
    StallPlan plan =
        plan(stalled(Cause.ImagePull), List.of(existing), NO_ROLLBACK, now.plusSeconds(30));
    assertThat(plan.changes()).isEmpty();
    assertThat(plan.active().getStatus()).isSameAs(existing.getStatus());
  }

  @Test
  void aHealthyRolloutWithoutStallsPlansNothing() {
    StallPlan plan = plan(notStalled(Phase.Complete, NEW), List.of(), NO_ROLLBACK, now);
    assertThat(plan.changes()).isEmpty();
    assertThat(plan.active()).isNull();
  }

  @Test
  void aRollbackResolvesTheStall() {
    StallPlan plan = plan(notStalled(Phase.Complete, OLD), List.of(created()), NO_ROLLBACK, now);
    assertThat(plan.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.kind()).isEqualTo(Kind.UPDATE_STATUS);
              assertThat(c.transition()).isEqualTo(StallTransition.RESOLVED);
              assertThat(c.resolution()).isEqualTo(Resolution.RolledBack);
              assertThat(c.stall().getStatus().phase()).isEqualTo("Resolved");
            });
    assertThat(plan.active()).isNull();
    assertThat(plan.nextExpiry()).isNull();
  }

  @Test
  void aResolvedStallIsKeptUntilTheTtlThenDeleted() {
    RolloutStall resolved = resolvedAt(now.minus(Duration.ofHours(1)), Map.of());
    StallPlan keep = plan(notStalled(Phase.Complete, OLD), List.of(resolved), NO_ROLLBACK, now);
    assertThat(keep.changes()).isEmpty();
    assertThat(keep.nextExpiry()).isEqualTo(now.plus(Duration.ofHours(23)));

    StallPlan delete =
        plan(
            notStalled(Phase.Complete, OLD),
            List.of(resolved),
            NO_ROLLBACK,
            now.plus(Duration.ofHours(23)));
    assertThat(delete.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.kind()).isEqualTo(Kind.DELETE);
              assertThat(c.transition()).isEqualTo(StallTransition.UNCHANGED);
            });
  }

  @Test
  void aResolvedStallOfTheCurrentRevisionStallsAgain() {
    RolloutStall resolved = resolvedAt(now.minusSeconds(60), Map.of());
    StallPlan plan = plan(stalled(Cause.ImagePull), List.of(resolved), NO_ROLLBACK, now);
    assertThat(plan.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.kind()).isEqualTo(Kind.UPDATE_STATUS);
              assertThat(c.transition()).isEqualTo(StallTransition.STALLED);
              assertThat(c.stall().getStatus().phase()).isEqualTo("Active");
            });
  }

  @Test
  void anAcknowledgedExclusionIsResolvedAndNotRaisedAgainNorExpired() {
    RolloutStall excluded =
        stall(
            StallRecord.active(stalled(Cause.NodeExcluded), null, now),
            Map.of(MetadataKeys.ACKNOWLEDGED, "true"));
    StallPlan ack = plan(stalled(Cause.NodeExcluded), List.of(excluded), NO_ROLLBACK, now);
    assertThat(ack.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.transition()).isEqualTo(StallTransition.RESOLVED);
              assertThat(c.resolution()).isEqualTo(Resolution.Acknowledged);
            });
    RolloutStall acknowledged = ack.changes().get(0).stall();

    Instant dayLater = now.plus(Duration.ofDays(2));
    StallPlan later =
        plan(stalled(Cause.NodeExcluded), List.of(acknowledged), NO_ROLLBACK, dayLater);
    assertThat(later.changes()).isEmpty();
    assertThat(later.active()).isNull();
  }

  @Test
  void aNewRevisionSupersedesTheOldStallAndOpensItsOwn() {
    var third = new dev.stallwatch.rollout.RevisionSummary("0a1b2c3d4", 3L, List.of("t:v3"));
    StallPlan plan =
        plan(stalled(Cause.ImagePull, third, now), List.of(created()), NO_ROLLBACK, now);
    assertThat(plan.changes())
        .extracting(StallPlan.Change::kind, StallPlan.Change::transition)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(Kind.UPDATE_STATUS, StallTransition.RESOLVED),
            org.assertj.core.groups.Tuple.tuple(Kind.CREATE, StallTransition.STALLED));
    assertThat(plan.active().getMetadata().getName())
        .isEqualTo("nvidia-container-toolkit-0a1b2c3d4");
  }

  @Test
  void aRollbackRecordedOnTheDaemonSetIsWrittenOnTheStallItResolves() {
    Instant at = now.minusSeconds(5);
    var record = Optional.of(new RollbackRecord(NEW.hash(), OLD.hash(), at, "stallwatch operator"));

    StallPlan plan = plan(notStalled(Phase.Complete, OLD), List.of(created()), record, now);

    assertThat(plan.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.transition()).isEqualTo(StallTransition.RESOLVED);
              assertThat(c.resolution()).isEqualTo(Resolution.RolledBack);
              assertThat(c.stall().getStatus().rollback())
                  .isEqualTo(
                      new Rollback(NEW.hash(), OLD.hash(), at.toString(), "stallwatch operator"));
              assertThat(c.stall().getStatus().conditions().get(0).getMessage())
                  .isEqualTo(
                      "nvidia-container-toolkit was rolled back from revision "
                          + NEW.hash()
                          + " by stallwatch operator");
            });
  }

  @Test
  void aRollbackByAnotherClientIsRecordedWithoutByAtTheMomentItIsSeen() {
    // kubectl rollout undo: back to the old revision, and no stallwatch record on the DaemonSet.
    StallPlan plan = plan(notStalled(Phase.Complete, OLD), List.of(created()), NO_ROLLBACK, now);

    assertThat(plan.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.resolution()).isEqualTo(Resolution.RolledBack);
              assertThat(c.stall().getStatus().rollback())
                  .isEqualTo(new Rollback(NEW.hash(), OLD.hash(), now.toString(), null));
              assertThat(c.stall().getStatus().conditions().get(0).getMessage())
                  .isEqualTo(
                      "nvidia-container-toolkit was rolled back from revision " + NEW.hash());
            });
    assertThat(StallRecord.rollbackRecord(plan.changes().get(0).stall().getStatus()))
        .hasValue(new RollbackRecord(NEW.hash(), OLD.hash(), now, ""));
  }

  @Test
  void aRecordOnTheDaemonSetAboutAnotherRevisionIsNotTakenForThisOne() {
    var record = Optional.of(new RollbackRecord("0a1b2c3d4", NEW.hash(), now, "stallwatch undo"));

    StallPlan plan = plan(notStalled(Phase.Complete, OLD), List.of(created()), record, now);

    assertThat(plan.changes())
        .singleElement()
        .satisfies(c -> assertThat(c.stall().getStatus().rollback().by()).isNull());
  }

  @Test
  void aStallResolvedBeforeAnUndoStillGetsTheRecordOnceWithoutAnEvent() {
    RolloutStall resolved = resolvedAt(now.minusSeconds(60), Map.of());
    var record = Optional.of(new RollbackRecord(NEW.hash(), OLD.hash(), now, "stallwatch undo"));

    StallPlan plan = plan(notStalled(Phase.Complete, OLD), List.of(resolved), record, now);

    assertThat(plan.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.kind()).isEqualTo(Kind.UPDATE_STATUS);
              assertThat(c.transition()).isEqualTo(StallTransition.UNCHANGED);
              assertThat(c.stall().getStatus().rollback().by()).isEqualTo("stallwatch undo");
              assertThat(c.stall().getStatus().resolvedAt())
                  .isEqualTo(resolved.getStatus().resolvedAt());
            });
    RolloutStall written = plan.changes().get(0).stall();
    StallPlan again =
        plan(notStalled(Phase.Complete, OLD), List.of(written), record, now.plusSeconds(30));
    assertThat(again.changes()).isEmpty();
  }

  @Test
  void theRecordOutlivesTheDaemonSetsAnnotationsWhenTheRevisionStallsAgain() {
    RolloutStall resolved = resolvedAt(now.minusSeconds(60), Map.of());
    var rollback =
        new Rollback(
            NEW.hash(), OLD.hash(), now.minusSeconds(60).toString(), "stallwatch operator");
    RolloutStall recorded = stall(resolved.getStatus().withRollback(rollback), Map.of());

    // Someone re-applied the new template without stallwatch's annotations.
    StallPlan plan = plan(stalled(Cause.ImagePull), List.of(recorded), NO_ROLLBACK, now);

    assertThat(plan.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.transition()).isEqualTo(StallTransition.STALLED);
              assertThat(c.stall().getStatus().rollback()).isEqualTo(rollback);
            });
    assertThat(StallRecord.rollbackRecord(plan.active().getStatus()))
        .hasValue(
            new RollbackRecord(
                NEW.hash(), OLD.hash(), now.minusSeconds(60), "stallwatch operator"));
  }

  @Test
  void aStatusEditedIntoNonsenseIsRewrittenKeepingStalledSinceWithoutASecondEvent() {
    RolloutStall existing = created();
    String since = existing.getStatus().stalledSince();
    RolloutStall vandalised =
        stall(
            edited(
                existing, Map.of("phase", "Banana", "stalledNodeCount", -5, "cause", "Gremlins")),
            Map.of());

    StallPlan plan =
        plan(stalled(Cause.ImagePull), List.of(vandalised), NO_ROLLBACK, now.plusSeconds(5));

    assertThat(plan.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.kind()).isEqualTo(Kind.UPDATE_STATUS);
              assertThat(c.transition()).isEqualTo(StallTransition.STILL_STALLED);
              assertThat(c.stall().getStatus().phase()).isEqualTo("Active");
              assertThat(c.stall().getStatus().stalledSince()).isEqualTo(since);
              assertThat(c.stall().getStatus().cause()).isEqualTo("ImagePull");
              assertThat(c.stall().getStatus().stalledNodeCount()).isPositive();
            });
    assertThat(StallRecord.vandalised(vandalised.getStatus())).isTrue();
    assertThat(StallRecord.vandalised(plan.active().getStatus())).isFalse();
  }

  @Test
  void anActiveStallWithAnUnreadableStalledSinceGetsTheVerdictsBackWithoutAnEvent() {
    RolloutStall existing = created();
    RolloutStall vandalised =
        stall(edited(existing, Map.of("stalledSince", "yesterday")), Map.of());

    StallPlan plan =
        plan(stalled(Cause.ImagePull), List.of(vandalised), NO_ROLLBACK, now.plusSeconds(5));

    assertThat(plan.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.transition()).isEqualTo(StallTransition.STILL_STALLED);
              assertThat(c.stall().getStatus().stalledSince())
                  .isEqualTo(SeedVerdicts.Operator.STALLED_SINCE.toString());
            });
  }

  @SuppressWarnings("unchecked")
  private static dev.stallwatch.crd.RolloutStallStatus edited(
      RolloutStall stall, Map<String, Object> fields) {
    var json = new io.fabric8.kubernetes.client.utils.KubernetesSerialization();
    Map<String, Object> status = json.convertValue(stall.getStatus(), Map.class);
    status.putAll(fields);
    return json.convertValue(status, dev.stallwatch.crd.RolloutStallStatus.class);
  }

  private RolloutStall created() {
    return stall(StallRecord.active(stalled(Cause.ImagePull), null, now), Map.of());
  }

  private RolloutStall resolvedAt(Instant when, Map<String, String> annotations) {
    var active = StallRecord.active(stalled(Cause.ImagePull), null, when.minusSeconds(60));
    return stall(StallRecord.resolved(active, Resolution.RolledBack, "back", when), annotations);
  }
}
