package dev.stallwatch.rollout;

import static dev.stallwatch.rollout.Views.NOW;
import static dev.stallwatch.rollout.Views.ago;
import static dev.stallwatch.rollout.Views.downNode;
import static dev.stallwatch.rollout.Views.node;
import static dev.stallwatch.rollout.Views.pod;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The ordered cause table, row by row: first match wins. */
class CauseRulesTest {
  private static final Duration STALL_AFTER = Duration.ofMinutes(5);

  static CauseRules.Facts facts(
      NodeView node, PodView pod, List<PodView> terminating, boolean gone) {
    return new CauseRules.Facts("n1", node, pod, terminating, 0, NOW, STALL_AFTER, gone, null);
  }

  static final EventView QUOTA =
      new EventView(
          "Warning",
          "FailedCreate",
          "Error creating: pods \"ds-x\" is forbidden: exceeded quota: compute",
          ago(2),
          "DaemonSet",
          "ds",
          "uid-ds");

  static CauseRules.Facts refused(NodeView node, PodView pod) {
    return new CauseRules.Facts("n1", node, pod, List.of(), 0, NOW, STALL_AFTER, false, QUOTA);
  }

  static Stream<Arguments> rows() {
    PodView pulling = pod("n1", "new").waiting("ImagePullBackOff").build();
    PodView stuckDeleting = pod("n1", "old").ready(ago(60)).deleted(ago(9)).build();
    return Stream.of(
        Arguments.of(
            "a node gone from the node list",
            facts(null, null, List.of(), true),
            Cause.NodeUnavailable,
            "NodeNotFound"),
        Arguments.of(
            "a node merely unseen: the pod explains",
            facts(null, pulling, List.of(), false),
            Cause.ImagePull,
            "ImagePullBackOff"),
        Arguments.of(
            "a node unseen and no pod",
            facts(null, null, List.of(), false),
            Cause.Unknown,
            "NoPod"),
        Arguments.of(
            "a NotReady node beats the pod's own failure",
            facts(downNode("n1", ago(20)), pulling, List.of(), false),
            Cause.NodeUnavailable,
            "KubeletNotReady"),
        Arguments.of(
            "an old pod terminating past stall-after",
            facts(node("n1"), null, List.of(stuckDeleting), false),
            Cause.NodeUnavailable,
            "Terminating"),
        Arguments.of(
            "an image that cannot be pulled",
            facts(node("n1"), pulling, List.of(), false),
            Cause.ImagePull,
            "ImagePullBackOff"),
        Arguments.of(
            "the scheduler finds no GPU",
            facts(
                node("n1"),
                pod("n1", "new")
                    .unschedulable("0/3 nodes are available: 1 Insufficient nvidia.com/gpu.")
                    .build(),
                List.of(),
                false),
            Cause.InsufficientResources,
            "Unschedulable"),
        Arguments.of(
            "the kubelet is out of cpu",
            facts(node("n1"), pod("n1", "new").failed("OutOfcpu").build(), List.of(), false),
            Cause.InsufficientResources,
            "OutOfcpu"),
        Arguments.of(
            "evicted under node pressure (kubelet eviction manager)",
            facts(node("n1"), pod("n1", "new").failed("Evicted").build(), List.of(), false),
            Cause.InsufficientResources,
            "Evicted"),
        Arguments.of(
            "evicted from a node that then went NotReady: the node explains",
            facts(
                downNode("n1", ago(20)),
                pod("n1", "new").failed(CauseRules.EVICTED).build(),
                List.of(),
                false),
            Cause.NodeUnavailable,
            "KubeletNotReady"),
        Arguments.of(
            "rejected at admission for another reason",
            facts(node("n1"), pod("n1", "new").failed("NodeAffinity").build(), List.of(), false),
            Cause.Unschedulable,
            "NodeAffinity"),
        Arguments.of(
            "no pod, and the controller says it could not create one",
            refused(node("n1"), null),
            Cause.FailedCreate,
            "FailedCreate"),
        Arguments.of(
            "a pod exists: the controller's old FailedCreate does not explain it",
            refused(node("n1"), pulling),
            Cause.ImagePull,
            "ImagePullBackOff"),
        Arguments.of(
            "a host port in use",
            facts(
                node("n1"),
                pod("n1", "new").unschedulable("1 node(s) didn't have free ports").build(),
                List.of(),
                false),
            Cause.Unschedulable,
            "Unschedulable"),
        Arguments.of(
            "a crash loop",
            facts(
                node("n1"), pod("n1", "new").waiting("CrashLoopBackOff").build(), List.of(), false),
            Cause.CrashLoop,
            "CrashLoopBackOff"),
        Arguments.of(
            "running, never Ready",
            facts(node("n1"), pod("n1", "new").notReady().build(), List.of(), false),
            Cause.NotReady,
            "ContainersNotReady"),
        Arguments.of(
            "stuck creating",
            facts(
                node("n1"),
                pod("n1", "new").waiting("ContainerCreating").build(),
                List.of(),
                false),
            Cause.Unknown,
            "ContainerCreating"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void firstMatchingRuleWins(String name, CauseRules.Facts facts, Cause cause, String reason) {
    CauseRules.Finding f = CauseRules.explain(facts);
    assertThat(f.cause()).isEqualTo(cause);
    assertThat(f.reason()).isEqualTo(reason);
    assertThat(f.message()).isNotBlank();
  }

  /**
   * A rule placed after one that takes everything it would match never fires: every cause of the
   * table (and {@link Cause#Unknown}) is the answer to at least one row above.
   */
  @org.junit.jupiter.api.Test
  void everyRuleFiresOnSomeRow() {
    java.util.Set<Cause> fired = new java.util.HashSet<>();
    rows().forEach(a -> fired.add(CauseRules.explain((CauseRules.Facts) a.get()[1]).cause()));
    List<Cause> table = CauseRules.order().stream().filter(c -> c != Cause.NodeExcluded).toList();
    assertThat(fired).containsExactlyInAnyOrderElementsOf(table);
  }

  @org.junit.jupiter.api.Test
  void theCausesAreDeclaredInTheOrderTheirRulesAreTried() {
    assertThat(CauseRules.order()).containsExactly(Cause.values());
  }
}
