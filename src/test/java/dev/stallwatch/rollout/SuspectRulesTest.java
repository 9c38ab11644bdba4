package dev.stallwatch.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Would a rollback help? One row per rule of PRODUCT.md's suspect table, inputs written by hand.
 */
class SuspectRulesTest {
  private static final Instant T = Instant.parse("2026-12-02T10:00:00Z");

  static NodeView node(String ready, Instant since) {
    return new NodeView(
        "n1", Map.of(), List.of(), false, new NodeView.Condition(ready, "", "", since), T);
  }

  static PodView pod(Instant created, String ready, Instant readySince) {
    return new PodView(
        "ns",
        "p",
        "u",
        Map.of(),
        null,
        "n1",
        "n1",
        created,
        null,
        "Running",
        "",
        "",
        ready == null
            ? List.of()
            : List.of(new PodView.Condition("Ready", ready, "", "", readySince)),
        List.of(),
        List.of("img:2"),
        List.of(),
        List.of());
  }

  static PodTemplateView template(Map<String, String> requests, List<Integer> hostPorts) {
    return new PodTemplateView(
        Map.of(),
        Map.of(),
        null,
        List.of(),
        "",
        false,
        List.of(),
        List.of(new PodTemplateView.Container("c", "img", requests, hostPorts)),
        "");
  }

  static final PodTemplateView ONE_GPU =
      template(Map.of("nvidia.com/gpu", "1", "cpu", "100m"), List.of());
  static final PodTemplateView TWO_GPUS =
      template(Map.of("nvidia.com/gpu", "2", "cpu", "100m"), List.of());
  static final PodTemplateView WITH_PORT =
      template(Map.of("nvidia.com/gpu", "1", "cpu", "100m"), List.of(9400));
  static final PodTemplateView LESS_CPU =
      template(Map.of("nvidia.com/gpu", "1", "cpu", "0.05"), List.of());

  static SuspectRules.Clues clues(
      Cause cause,
      String reason,
      String message,
      NodeView node,
      PodView pod,
      boolean surge,
      PodTemplateView newT,
      PodTemplateView oldT) {
    return new SuspectRules.Clues(
        "n1", cause, reason, message, node, pod, surge, newT, oldT, false);
  }

  static Stream<Arguments> rows() {
    NodeView ready = node("True", T.minusSeconds(86400));
    NodeView downBefore = node("False", T.minusSeconds(3600));
    NodeView downAfter = node("Unknown", T.minusSeconds(600));
    PodView fresh = pod(T.minusSeconds(1200), "False", T.minusSeconds(1200));
    PodView wasReady = pod(T.minusSeconds(1200), "True", T.minusSeconds(1100));
    String gpuShort = "0/3 nodes are available: 1 Insufficient nvidia.com/gpu.";
    String cpuShort = "0/3 nodes are available: 1 Insufficient cpu.";
    return Stream.of(
        Arguments.of(
            "image pull on a Ready node",
            clues(Cause.ImagePull, "ErrImagePull", "", ready, fresh, false, ONE_GPU, ONE_GPU),
            Suspect.NewRevision),
        Arguments.of(
            "crash loop on a Ready node",
            clues(Cause.CrashLoop, "CrashLoopBackOff", "", ready, fresh, false, ONE_GPU, ONE_GPU),
            Suspect.NewRevision),
        Arguments.of(
            "unknown with a new pod",
            clues(Cause.Unknown, "ContainerCreating", "", ready, fresh, false, ONE_GPU, ONE_GPU),
            Suspect.NewRevision),
        Arguments.of(
            "unknown without a pod",
            clues(Cause.Unknown, "NoPod", "", ready, null, false, ONE_GPU, ONE_GPU),
            Suspect.Unknown),
        Arguments.of(
            "a failing pod on a node the input lacks",
            clues(Cause.NotReady, "ContainersNotReady", "", null, fresh, false, ONE_GPU, ONE_GPU),
            Suspect.Unknown),
        Arguments.of(
            "excluded",
            clues(
                Cause.NodeExcluded, "TaintNotTolerated", "", ready, null, false, ONE_GPU, ONE_GPU),
            Suspect.NewRevision),
        Arguments.of(
            "more of the short resource",
            clues(
                Cause.InsufficientResources,
                "Unschedulable",
                gpuShort,
                ready,
                fresh,
                false,
                TWO_GPUS,
                ONE_GPU),
            Suspect.NewRevision),
        Arguments.of(
            "no more of anything",
            clues(
                Cause.InsufficientResources,
                "Unschedulable",
                gpuShort,
                ready,
                fresh,
                false,
                ONE_GPU,
                ONE_GPU),
            Suspect.Node),
        Arguments.of(
            "less cpu, kubelet out of cpu",
            clues(
                Cause.InsufficientResources,
                "OutOfcpu",
                "",
                ready,
                fresh,
                false,
                LESS_CPU,
                ONE_GPU),
            Suspect.Node),
        Arguments.of(
            "short of cpu while asking more gpu",
            clues(
                Cause.InsufficientResources,
                "Unschedulable",
                cpuShort,
                ready,
                fresh,
                false,
                TWO_GPUS,
                ONE_GPU),
            Suspect.Unknown),
        Arguments.of(
            "a host port the old one lacked",
            clues(
                Cause.Unschedulable,
                "Unschedulable",
                "didn't have free ports",
                ready,
                fresh,
                false,
                WITH_PORT,
                ONE_GPU),
            Suspect.NewRevision),
        Arguments.of(
            "a surge pod beside the old one",
            clues(
                Cause.InsufficientResources,
                "Unschedulable",
                gpuShort,
                ready,
                fresh,
                true,
                ONE_GPU,
                ONE_GPU),
            Suspect.NewRevision),
        Arguments.of(
            "no old template to compare",
            clues(
                Cause.Unschedulable,
                "Unschedulable",
                "volume node affinity conflict",
                ready,
                fresh,
                false,
                ONE_GPU,
                null),
            Suspect.Unknown),
        Arguments.of(
            "node down before the new pod",
            clues(
                Cause.NodeUnavailable,
                "KubeletNotReady",
                "",
                downBefore,
                fresh,
                false,
                ONE_GPU,
                ONE_GPU),
            Suspect.Node),
        Arguments.of(
            "node down, rollout never reached it",
            clues(
                Cause.NodeUnavailable,
                "KubeletNotReady",
                "",
                downAfter,
                null,
                false,
                ONE_GPU,
                ONE_GPU),
            Suspect.Node),
        Arguments.of(
            "node down after the new pod, never available",
            clues(
                Cause.NodeUnavailable,
                "NodeStatusUnknown",
                "",
                downAfter,
                fresh,
                false,
                ONE_GPU,
                ONE_GPU),
            Suspect.NewRevision),
        Arguments.of(
            "node down after the new pod was Ready",
            clues(
                Cause.NodeUnavailable,
                "NodeStatusUnknown",
                "",
                downAfter,
                wasReady,
                false,
                ONE_GPU,
                ONE_GPU),
            Suspect.Node),
        Arguments.of(
            "a node gone from the cluster",
            clues(Cause.NodeUnavailable, "NodeNotFound", "", null, fresh, false, ONE_GPU, ONE_GPU),
            Suspect.Unknown),
        Arguments.of(
            "stuck terminating on a Ready node",
            clues(Cause.NodeUnavailable, "Terminating", "", ready, null, false, ONE_GPU, ONE_GPU),
            Suspect.Unknown));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void suspectFollowsTheTable(String name, SuspectRules.Clues clues, Suspect expected) {
    SuspectRules.Suspicion s = SuspectRules.judge(clues);
    assertThat(s.suspect()).isEqualTo(expected);
    assertThat(s.because()).isNotBlank().doesNotEndWith(".");
  }

  @org.junit.jupiter.api.Test
  void withNothingEarlierTheNewRevisionIsNoLongerTheSuspectButTheNodeStaysOne() {
    NodeView ready = node("True", T.minusSeconds(86400));
    NodeView downBefore = node("False", T.minusSeconds(3600));
    PodView fresh = pod(T.minusSeconds(1200), "False", T.minusSeconds(1200));

    SuspectRules.Suspicion crash =
        SuspectRules.judge(
            new SuspectRules.Clues(
                "n1",
                Cause.CrashLoop,
                "CrashLoopBackOff",
                "",
                ready,
                fresh,
                false,
                ONE_GPU,
                null,
                true));
    SuspectRules.Suspicion down =
        SuspectRules.judge(
            new SuspectRules.Clues(
                "n1",
                Cause.NodeUnavailable,
                "NodeNotReady",
                "",
                downBefore,
                fresh,
                false,
                ONE_GPU,
                null,
                true));

    assertThat(crash.suspect()).isEqualTo(Suspect.Unknown);
    assertThat(crash.because())
        .isEqualTo(
            "the new revision's pod fails on Ready node n1 (CrashLoopBackOff); but there is no"
                + " earlier revision to roll back to");
    assertThat(down.suspect()).isEqualTo(Suspect.Node);
  }
}
