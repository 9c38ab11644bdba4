package dev.stallwatch.rollout;

import static dev.stallwatch.rollout.Views.NEW;
import static dev.stallwatch.rollout.Views.NEW_TEMPLATE;
import static dev.stallwatch.rollout.Views.OLD;
import static dev.stallwatch.rollout.Views.OLD_TEMPLATE;
import static dev.stallwatch.rollout.Views.ago;
import static dev.stallwatch.rollout.Views.ds;
import static dev.stallwatch.rollout.Views.node;
import static dev.stallwatch.rollout.Views.pod;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A snapshot caught mid-relist: the DaemonSet older than its ControllerRevisions or its pods. */
class SnapshotLagTest {
  private static final DaemonSetView OLD_DS = ds(OLD_TEMPLATE, null);

  private static RolloutSnapshot snapshot(
      DaemonSetView ds, List<RevisionView> revisions, List<PodView> pods) {
    return new RolloutSnapshot(ds, pods, List.of(node("n1"), node("n2")), revisions);
  }

  @Test
  void noCachedRevisionOfADaemonSetTheControllerHasObservedLagsOnlyInTheCaches() {
    var noRevisions = snapshot(ds(), List.of(), List.of(pod("n1", "new").build()));

    assertThat(SnapshotLag.ofCaches(noRevisions))
        .hasValue(
            "no ControllerRevision of DaemonSet ds is cached, though the controller has written"
                + " its status");
    // A dump without ControllerRevisions has nothing to compare.
    assertThat(SnapshotLag.of(noRevisions)).isEmpty();
  }

  @Test
  void noRevisionOfADaemonSetTheControllerHasNotSeenYetIsNoLag() {
    var fresh = snapshot(ds(NEW_TEMPLATE, null), List.of(), List.of());

    assertThat(SnapshotLag.ofCaches(fresh)).isEmpty();
  }

  @Test
  void theCachesAndTheDumpAgreeWhenRevisionsAreThere() {
    var lagging = snapshot(OLD_DS, List.of(OLD), List.of(pod("n1", "new").build()));

    assertThat(SnapshotLag.ofCaches(lagging)).isEqualTo(SnapshotLag.of(lagging)).isPresent();
  }

  @Test
  void aSettledRolloutDoesNotLag() {
    var settled =
        snapshot(
            ds(), List.of(OLD, NEW), List.of(pod("n1", "new").build(), pod("n2", "old").build()));

    assertThat(SnapshotLag.of(settled)).isEmpty();
  }

  @Test
  void theDaemonSetStillOnTheOldTemplateWhileTheNewRevisionIsCachedLags() {
    var lagging = snapshot(OLD_DS, List.of(OLD, NEW), List.of(pod("n1", "new").build()));

    assertThat(SnapshotLag.of(lagging))
        .hasValue(
            "the template of DaemonSet ds is revision 1 (old) but ControllerRevision ds-new is"
                + " newer (revision 2)");
  }

  @Test
  void theDaemonSetOnATemplateNoCachedRevisionMatchesLags() {
    // The DaemonSet already changed; its new ControllerRevision not cached yet; an old pod is
    // being deleted for the rollout: judged now, the old revision would look stalled.
    var lagging = snapshot(ds(), List.of(OLD), List.of(pod("n1", "old").deleted(ago(0)).build()));

    assertThat(SnapshotLag.of(lagging))
        .hasValue(
            "the template of DaemonSet ds matches none of its 1 ControllerRevision(s): its new"
                + " revision is not cached yet");
  }

  @Test
  void aPodOfARevisionNotYetCachedLags() {
    var lagging = snapshot(OLD_DS, List.of(OLD), List.of(pod("n1", "new").build()));

    assertThat(SnapshotLag.of(lagging))
        .hasValue(
            "pod ds-n1-new of DaemonSet ds carries revision new, which none of its 1"
                + " ControllerRevision(s) has");
  }

  @Test
  void aRollbackTheControllerHasNotObservedYetDoesNotLag() {
    // Rolled back to the old template (generation 2), the controller's status still at 1: it has
    // not renumbered the old revision yet, and the verdict on the restored revision is right.
    var justRolledBack =
        snapshot(
            ds(OLD_TEMPLATE, new DaemonSetView.Status(1L, 3, 3, 2, 1, 2, 1, 0)),
            List.of(OLD, NEW),
            List.of(pod("n1", "new").build(), pod("n2", "old").build()));

    assertThat(SnapshotLag.of(justRolledBack)).isEmpty();
  }

  @Test
  void aRollbackTheControllerHasRecordedDoesNotLag() {
    // Rolled back to the old template: the controller raised the old revision to 3.
    RevisionView restored = Views.revision("old", 3, OLD_TEMPLATE, ago(60 * 24));

    var rolledBack =
        snapshot(
            OLD_DS,
            List.of(restored, NEW),
            List.of(pod("n1", "new").build(), pod("n2", "old").build()));

    assertThat(SnapshotLag.of(rolledBack)).isEmpty();
  }

  @Test
  void withoutControllerRevisionsThereIsNothingToCompare() {
    assertThat(SnapshotLag.of(snapshot(OLD_DS, List.of(), List.of(pod("n1", "new").build()))))
        .isEmpty();
  }

  @Test
  void podsAndRevisionsOfOtherOwnersAreIgnored() {
    RevisionView foreign =
        new RevisionView(
            "other-x",
            "x",
            9,
            ago(1),
            new OwnerRef("DaemonSet", "other", "uid-other"),
            NEW_TEMPLATE);
    PodView foreignPod =
        new PodView(
            "ns",
            "other-pod",
            "uid-p",
            java.util.Map.of(MetadataKeys.REVISION_HASH_LABEL, "y"),
            new OwnerRef("DaemonSet", "other", "uid-other"),
            "n1",
            "n1",
            ago(1),
            null,
            "Running",
            "",
            "",
            List.of(),
            List.of(),
            List.of("img"),
            List.of(),
            List.of());

    var mixed =
        snapshot(ds(), List.of(OLD, NEW, foreign), List.of(pod("n1", "new").build(), foreignPod));

    assertThat(SnapshotLag.of(mixed)).isEmpty();
  }
}
