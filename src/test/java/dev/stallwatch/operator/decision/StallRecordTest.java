package dev.stallwatch.operator.decision;

import static dev.stallwatch.testing.SeedVerdicts.Operator.NEW;
import static dev.stallwatch.testing.SeedVerdicts.Operator.STALLED_SINCE;
import static dev.stallwatch.testing.SeedVerdicts.Operator.stalled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.testing.SeedVerdicts;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

public class StallRecordTest {
  private final Clock clock = Clock.fixed(Instant.parse("2026-12-02T10:07:00Z"), ZoneOffset.UTC);
  private final Instant now = clock.instant();
  private final Instant later = now.plus(Duration.ofMinutes(3));

  @Test
  void aNewStallRecordsNodeCauseRevisionsCountsAndSplit() {
    RolloutStallStatus status = StallRecord.active(stalled(Cause.ImagePull), null, now);

    assertThat(status.phase()).isEqualTo("Active");
    assertThat(status.node()).isEqualTo("gpu-node-1");
    assertThat(status.cause()).isEqualTo("ImagePull");
    assertThat(status.reason()).isEqualTo("ImagePullBackOff");
    assertThat(status.evidence()).isEqualTo("Full");
    assertThat(status.suspect()).isEqualTo("NewRevision");
    assertThat(status.suspectReason()).isEqualTo(SeedVerdicts.Operator.SUSPECT_REASON);
    assertThat(status.rollbackWithheld()).isNull();
    assertThat(StallRecord.stalledMessage(status))
        .contains(
            "ImagePull (ImagePullBackOff); suspect NewRevision: rollback would help, because the"
                + " new revision's pod fails on Ready node gpu-node-1");
    assertThat(status.nodes())
        .singleElement()
        .satisfies(
            n -> {
              assertThat(n.name()).isEqualTo("gpu-node-1");
              assertThat(n.pod()).isEqualTo("toolkit-abcde");
              assertThat(n.cause()).isEqualTo("ImagePull");
              assertThat(n.since()).isEqualTo(STALLED_SINCE.toString());
              assertThat(n.suspect()).isEqualTo("NewRevision");
            });
    assertThat(status.stalledNodeCount()).isEqualTo(1);
    assertThat(status.oldRevision().hash()).isEqualTo("5d4b9c7f8");
    assertThat(status.newRevision().hash()).isEqualTo("7f6c8d9b4");
    assertThat(status.newRevision().image())
        .isEqualTo("nvcr.io/nvidia/k8s/container-toolkit:v1.14.9");
    assertThat(status.ready()).isEqualTo("2/3");
    assertThat(status.counts().desired()).isEqualTo(3);
    assertThat(status.split().summary()).isEqualTo("2 old / 1 new / 0 none");
    assertThat(status.split().oldNodes()).containsExactly("gpu-node-2", "gpu-node-3");
    assertThat(status.split().newNodes()).containsExactly("gpu-node-1");
    assertThat(status.split().noneNodes()).isEmpty();
    assertThat(status.stalledSince()).isEqualTo(STALLED_SINCE.toString());
    assertThat(status.lastObserved()).isEqualTo(now.toString());
    assertThat(status.resolvedAt()).isNull();
    assertThat(status.conditions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getType()).isEqualTo("Stalled");
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getReason()).isEqualTo("ImagePull");
              assertThat(c.getLastTransitionTime()).isEqualTo(now.toString());
            });
  }

  @Test
  void onALargeClusterTheNodeListsAreCappedButTheCountsAreExact() {
    RolloutStallStatus status =
        StallRecord.active(SeedVerdicts.Operator.stalledWithManyWaiting(1500), null, now);

    assertThat(status.split().oldCount()).isEqualTo(1500);
    assertThat(status.split().summary()).isEqualTo("1500 old / 1 new / 0 none");
    assertThat(status.split().oldNodes())
        .hasSize(RolloutStallStatus.NodeSplit.MAX_LISTED)
        .startsWith("node-0000")
        .endsWith("node-0099");
    assertThat(status.split().newNodes()).containsExactly("gpu-node-1");
  }

  @Test
  void anUnchangedStallIsTheSameObjectSoNothingIsWritten() {
    RolloutStallStatus first = StallRecord.active(stalled(Cause.ImagePull), null, now);
    RolloutStallStatus again = StallRecord.active(stalled(Cause.ImagePull), first, later);
    assertThat(again).isSameAs(first);
  }

  @Test
  void aChangedStallKeepsStalledSinceAndTheConditionTransitionTime() {
    RolloutStallStatus first = StallRecord.active(stalled(Cause.ImagePull), null, now);
    // A restarted operator sees the re-created pod as younger: stalledSince must not move.
    RolloutStallStatus changed =
        StallRecord.active(
            stalled(Cause.CrashLoop, NEW, STALLED_SINCE.plusSeconds(200)), first, later);

    assertThat(changed).isNotSameAs(first);
    assertThat(changed.cause()).isEqualTo("CrashLoop");
    assertThat(changed.stalledSince()).isEqualTo(STALLED_SINCE.toString());
    assertThat(changed.lastObserved()).isEqualTo(later.toString());
    assertThat(changed.conditions().get(0).getLastTransitionTime()).isEqualTo(now.toString());
    assertThat(changed.conditions().get(0).getReason()).isEqualTo("CrashLoop");
  }

  @Test
  void resolvingKeepsTheStallDetailsAndStampsResolvedAt() {
    RolloutStallStatus active = StallRecord.active(stalled(Cause.ImagePull), null, now);
    RolloutStallStatus resolved =
        StallRecord.resolved(active, Resolution.RolledBack, "rolled back", later);

    assertThat(resolved.phase()).isEqualTo("Resolved");
    assertThat(resolved.resolvedAt()).isEqualTo(later.toString());
    assertThat(resolved.node()).isEqualTo("gpu-node-1");
    assertThat(resolved.stalledSince()).isEqualTo(STALLED_SINCE.toString());
    assertThat(resolved.conditions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getStatus()).isEqualTo("False");
              assertThat(c.getReason()).isEqualTo("RolledBack");
              assertThat(c.getLastTransitionTime()).isEqualTo(later.toString());
            });
  }

  @Test
  void resolvingAgainChangesNothing() {
    RolloutStallStatus active = StallRecord.active(stalled(Cause.ImagePull), null, now);
    RolloutStallStatus resolved = StallRecord.resolved(active, Resolution.RolledBack, "m", later);
    assertThat(
            StallRecord.resolved(resolved, Resolution.RolloutComplete, "m", later.plusSeconds(9)))
        .isSameAs(resolved);
  }

  @Test
  void aResolvedStallThatStallsAgainStartsAFreshStalledSince() {
    RolloutStallStatus resolved =
        StallRecord.resolved(
            StallRecord.active(stalled(Cause.ImagePull), null, now),
            Resolution.RolloutMovedOn,
            "m",
            later);
    Instant again = later.plusSeconds(60);
    RolloutStallStatus reactivated =
        StallRecord.active(stalled(Cause.ImagePull, NEW, again), resolved, again);
    assertThat(reactivated.phase()).isEqualTo("Active");
    assertThat(reactivated.stalledSince()).isEqualTo(again.toString());
    assertThat(reactivated.resolvedAt()).isNull();
    assertThat(reactivated.conditions().get(0).getLastTransitionTime()).isEqualTo(again.toString());
  }

  @Test
  void aWithheldRollbackIsRecordedAndAChangeOfItIsAChange() {
    RolloutStallStatus first = StallRecord.active(stalled(Cause.ImagePull), null, now);
    RolloutStallStatus withheld =
        StallRecord.active(
            stalled(Cause.ImagePull), first, later, "not rolled back: the suspect is Node");

    assertThat(withheld).isNotSameAs(first);
    assertThat(withheld.rollbackWithheld()).isEqualTo("not rolled back: the suspect is Node");
    assertThat(
            StallRecord.active(
                stalled(Cause.ImagePull),
                withheld,
                later.plusSeconds(60),
                withheld.rollbackWithheld()))
        .isSameAs(withheld);
  }
}
