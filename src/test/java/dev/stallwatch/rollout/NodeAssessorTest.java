package dev.stallwatch.rollout;

import static dev.stallwatch.rollout.Views.NEW;
import static dev.stallwatch.rollout.Views.NOW;
import static dev.stallwatch.rollout.Views.OLD;
import static dev.stallwatch.rollout.Views.ago;
import static dev.stallwatch.rollout.Views.downNode;
import static dev.stallwatch.rollout.Views.ds;
import static dev.stallwatch.rollout.Views.node;
import static dev.stallwatch.rollout.Views.pod;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.rollout.NodeRow.Standing;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A node's standing, since when it holds the rollout back, its cause and suspect — one short node
 * per row, for the rules of the second round (outage after the rollout, blocked at start, unseen
 * and deleted nodes).
 */
class NodeAssessorTest {

  /** What a row expects; null fields are not checked. */
  record Expect(Standing standing, Cause cause, Suspect suspect, java.time.Instant since) {}

  static NodeAssessor assessor(String goneNode) {
    List<PodView> none = List.of();
    RevisionSplit split = RevisionSplit.of(ds(), List.of(OLD, NEW), none);
    return new NodeAssessor(
        ds(),
        split,
        new AnalyzerSettings(Duration.ofMinutes(5)),
        StallMemory.NONE,
        NOW,
        name -> name.equals(goneNode),
        null);
  }

  static Arguments row(
      String name, Function<NodeAssessor, Optional<NodeAssessor.Assessment>> how, Expect expect) {
    return Arguments.of(name, how, expect);
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        row(
            "an available new pod: updated",
            a ->
                Optional.of(
                    a.desired(node("n1"), List.of(pod("n1", "new").ready(ago(30)).build()))),
            new Expect(Standing.UPDATED, null, null, null)),
        row(
            "an available old pod: waiting",
            a ->
                Optional.of(
                    a.desired(node("n1"), List.of(pod("n1", "old").ready(ago(600)).build()))),
            new Expect(Standing.WAITING, null, null, null)),
        row(
            "a new pod pulling for 11 minutes: stuck, the new revision suspected",
            a ->
                Optional.of(
                    a.desired(
                        node("n1"),
                        List.of(
                            pod("n1", "new")
                                .created(ago(11))
                                .waiting("ImagePullBackOff")
                                .build()))),
            new Expect(Standing.STUCK, Cause.ImagePull, Suspect.NewRevision, ago(11))),
        row(
            "a new pod still Ready by its last report on a node just gone down: updated",
            a ->
                Optional.of(
                    a.desired(
                        downNode("n1", ago(5)),
                        List.of(pod("n1", "new").created(ago(11)).ready(ago(10)).build()))),
            new Expect(Standing.UPDATED, null, null, null)),
        row(
            "a new pod marked not Ready by the node controller, containers ready: an outage",
            a ->
                Optional.of(
                    a.desired(
                        downNode("n1", ago(5)),
                        List.of(pod("n1", "new").created(ago(11)).markedNotReady(ago(5)).build()))),
            new Expect(Standing.UNAVAILABLE, null, null, null)),
        row(
            "a new pod never Ready, the node down after it came: the new revision suspected",
            a ->
                Optional.of(
                    a.desired(
                        downNode("n1", ago(8)),
                        List.of(pod("n1", "new").created(ago(11)).notReady().build()))),
            new Expect(Standing.STUCK, Cause.NodeUnavailable, Suspect.NewRevision, ago(11))),
        row(
            "blocked at start: a down node on an unavailable old pod, since the rollout began",
            a ->
                a.blockedAtStart(
                    downNode("n1", ago(60)),
                    List.of(pod("n1", "old").created(ago(600)).notReady().build())),
            new Expect(Standing.STUCK, Cause.NodeUnavailable, Suspect.Node, ago(12))),
        row(
            "blocked at start dates from the outage when it came after the rollout began",
            a ->
                a.blockedAtStart(
                    downNode("n1", ago(3)),
                    List.of(pod("n1", "old").created(ago(600)).notReady().build())),
            new Expect(Standing.UPDATING, Cause.NodeUnavailable, Suspect.Node, ago(3))),
        row(
            "not blocked while the old pod is available",
            a ->
                a.blockedAtStart(
                    downNode("n1", ago(60)), List.of(pod("n1", "old").ready(ago(600)).build())),
            null),
        row(
            "not blocked on a Ready node",
            a -> a.blockedAtStart(node("n1"), List.of(pod("n1", "old").notReady().build())),
            null),
        row(
            "an unseen node with a failing new pod, work left: stuck on the pod's own cause",
            a ->
                Optional.of(
                    a.unseen(
                        "n9",
                        List.of(
                            pod("n9", "new").created(ago(11)).waiting("CrashLoopBackOff").build()),
                        true)),
            new Expect(Standing.STUCK, Cause.CrashLoop, Suspect.Unknown, ago(11))),
        row(
            "an unseen node, no work left: unknown, never not-desired",
            a ->
                Optional.of(
                    a.unseen(
                        "n9",
                        List.of(pod("n9", "new").created(ago(11)).notReady().build()),
                        false)),
            new Expect(Standing.UNKNOWN, null, null, null)),
        row(
            "a deleted node's failing pod holds nothing back",
            a ->
                Optional.of(
                    a.unseen(
                        "gone",
                        List.of(
                            pod("gone", "new")
                                .created(ago(11))
                                .waiting("ImagePullBackOff")
                                .build()),
                        true)),
            new Expect(Standing.UNKNOWN, null, null, null)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void standingCauseSuspectAndSince(
      String name, Function<NodeAssessor, Optional<NodeAssessor.Assessment>> how, Expect expect) {
    Optional<NodeAssessor.Assessment> got = how.apply(assessor("gone"));
    if (expect == null) {
      assertThat(got).isEmpty();
      return;
    }
    NodeRow row = got.orElseThrow().row();
    assertThat(row.standing()).as("standing").isEqualTo(expect.standing());
    assertThat(row.cause()).as("cause").isEqualTo(expect.cause());
    assertThat(row.suspect()).as("suspect").isEqualTo(expect.suspect());
    if (expect.since() != null) {
      assertThat(row.since()).as("since").isEqualTo(expect.since());
    }
  }

  @org.junit.jupiter.api.Test
  void aFirstRevisionsFailingPodIsNoCaseForARollback() {
    NodeAssessor first =
        new NodeAssessor(
            ds(),
            RevisionSplit.of(ds(), List.of(NEW), List.of()),
            new AnalyzerSettings(Duration.ofMinutes(5)),
            StallMemory.NONE,
            NOW,
            name -> false,
            null);
    PodView pulling = pod("n1", "new").created(ago(11)).waiting("ImagePullBackOff").build();

    NodeRow row = first.desired(node("n1"), List.of(pulling)).row();

    assertThat(row.cause()).isEqualTo(Cause.ImagePull);
    assertThat(row.suspect()).isEqualTo(Suspect.Unknown);
    assertThat(row.suspectReason())
        .isEqualTo(
            "the new revision's pod fails on Ready node n1 (ImagePullBackOff); but there is no"
                + " earlier revision to roll back to");
    // The same pod with an older revision recorded: the new revision is to blame.
    assertThat(assessor("gone").desired(node("n1"), List.of(pulling)).row().suspect())
        .isEqualTo(Suspect.NewRevision);
  }

  @org.junit.jupiter.api.Test
  void aPodThatOutlivedItsNodesOutageCountsMinReadySecondsFromTheNodesReturn() {
    DaemonSetView d = ds();
    DaemonSetView slow =
        new DaemonSetView(
            d.ref(),
            d.generation(),
            d.templateGeneration(),
            d.annotations(),
            d.template(),
            d.strategy(),
            3600,
            d.status(),
            d.created());
    NodeAssessor assessor =
        new NodeAssessor(
            slow,
            RevisionSplit.of(slow, List.of(OLD, NEW), List.of()),
            new AnalyzerSettings(Duration.ofMinutes(5)),
            StallMemory.NONE,
            NOW,
            name -> false,
            null);
    NodeView back =
        new NodeView(
            "n1",
            java.util.Map.of(),
            List.of(),
            false,
            new NodeView.Condition("True", "KubeletReady", "", ago(2)),
            ago(60 * 24 * 30));
    // Created an hour ago, marked not Ready during the outage, Ready again since the node's return:
    // an outage after the rollout passed the node, not a stall of it.
    PodView survivor = pod("n1", "new").created(ago(60)).ready(ago(1)).build();
    assertThat(assessor.desired(back, List.of(survivor)).row().standing())
        .isEqualTo(Standing.UNAVAILABLE);

    // Still as the node controller marked it during the outage: no kubelet report since — also
    // when the node cache has not yet seen the outage (Ready all along).
    PodView marked = pod("n1", "new").created(ago(60)).markedNotReady(ago(3)).build();
    assertThat(assessor.desired(back, List.of(marked)).row().standing())
        .isEqualTo(Standing.UNAVAILABLE);
    assertThat(assessor.desired(node("n1"), List.of(marked)).row().standing())
        .isEqualTo(Standing.UNAVAILABLE);
    // Never Ready since it was created: the outage is no excuse.
    PodView never = pod("n1", "new").created(ago(60)).notReady().build();
    assertThat(assessor.desired(back, List.of(never)).row().standing()).isEqualTo(Standing.STUCK);

    // A pod that came up only after the node (a new pod): minReadySeconds since its creation.
    PodView fresh = pod("n1", "new").created(ago(1)).ready(ago(1)).build();
    assertThat(assessor.desired(back, List.of(fresh)).row().standing())
        .isNotEqualTo(Standing.UNAVAILABLE);

    // On a node Ready all along, a pod Ready for 10 of its 60 minutes is stuck (minReadySeconds
    // longer than stall-after is worth a look).
    PodView waiting = pod("n1", "new").created(ago(11)).ready(ago(10)).build();
    NodeRow stuck = assessor.desired(node("n1"), List.of(waiting)).row();
    assertThat(stuck.standing()).isEqualTo(Standing.STUCK);
    assertThat(stuck.reason()).isEqualTo("MinReadySeconds");
  }
}
