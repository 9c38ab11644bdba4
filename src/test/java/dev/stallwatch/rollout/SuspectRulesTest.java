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

  /** {@code base} with maintenance signals (conditions True; taints go in {@code taints}). */
  static NodeView maintained(
      NodeView base, List<Maintenance.Signal> conditions, List<NodeView.Taint> taints) {
    return new NodeView(
        base.name(),
        base.labels(),
        taints,
        base.unschedulable(),
        base.ready(),
        base.created(),
        conditions);
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
            Suspect.Unknown),
        // Nodes in maintenance: a node-caused stall on a node with a signal from before the new
        // pod is the node's; a pod's own failure keeps its suspect.
        Arguments.of(
            "in maintenance before the new pod, down after it (else the new revision)",
            clues(
                Cause.NodeUnavailable,
                "NodeStatusUnknown",
                "",
                maintained(downAfter, List.of(drain(T.minusSeconds(1800))), List.of()),
                fresh,
                false,
                ONE_GPU,
                ONE_GPU),
            Suspect.Node),
        Arguments.of(
            "maintenance planned only after the new pod: the new revision stays suspect",
            clues(
                Cause.NodeUnavailable,
                "NodeStatusUnknown",
                "",
                maintained(
                    downAfter,
                    List.of(new Maintenance.Signal("MaintenancePlanned", T.minusSeconds(300))),
                    List.of()),
                fresh,
                false,
                ONE_GPU,
                ONE_GPU),
            Suspect.NewRevision),
        Arguments.of(
            "the autoscaler's taint, the pod unschedulable",
            clues(
                Cause.Unschedulable,
                "Unschedulable",
                "node(s) had untolerated taint {ToBeDeletedByClusterAutoscaler: }",
                maintained(
                    ready,
                    List.of(),
                    List.of(
                        new NodeView.Taint(
                            Maintenance.AUTOSCALER_TAINT,
                            String.valueOf(T.minusSeconds(3600).getEpochSecond()),
                            "NoSchedule",
                            null))),
                fresh,
                false,
                WITH_PORT,
                ONE_GPU),
            Suspect.Node),
        Arguments.of(
            "a drain, the controller cannot create the pod",
            clues(
                Cause.FailedCreate,
                "FailedCreate",
                "pods is forbidden",
                maintained(ready, List.of(drain(null)), List.of()),
                null,
                false,
                ONE_GPU,
                ONE_GPU),
            Suspect.Node),
        Arguments.of(
            "graceful shutdown, nothing yet runs there",
            clues(
                Cause.Unknown,
                "NoPod",
                "",
                maintained(
                    ready,
                    List.of(
                        new Maintenance.Signal(
                            "GracefulNodeShutdownInProgress", T.minusSeconds(60))),
                    List.of()),
                null,
                false,
                ONE_GPU,
                ONE_GPU),
            Suspect.Node),
        Arguments.of(
            "an image that cannot be pulled on a node in maintenance keeps its suspect",
            clues(
                Cause.ImagePull,
                "ImagePullBackOff",
                "",
                maintained(ready, List.of(drain(T.minusSeconds(3600))), List.of()),
                fresh,
                false,
                ONE_GPU,
                ONE_GPU),
            Suspect.NewRevision));
  }

  static Maintenance.Signal drain(Instant since) {
    return new Maintenance.Signal("DrainInProgress", since);
  }

  @org.junit.jupiter.api.Test
  void maintenanceNamesTheSignal() {
    NodeView downAfter = node("Unknown", T.minusSeconds(600));
    PodView fresh = pod(T.minusSeconds(1200), "False", T.minusSeconds(1200));

    SuspectRules.Suspicion s =
        SuspectRules.judge(
            clues(
                Cause.NodeUnavailable,
                "NodeStatusUnknown",
                "",
                maintained(
                    downAfter,
                    List.of(new Maintenance.Signal("MaintenanceInProgress", T.minusSeconds(1800))),
                    List.of()),
                fresh,
                false,
                ONE_GPU,
                ONE_GPU));

    assertThat(s.because())
        .isEqualTo(
            "node n1 is in maintenance (MaintenanceInProgress) since before the new pod was"
                + " created there");
  }

  @org.junit.jupiter.api.Test
  void theAutoscalersTaintIsASignalWhateverTheCallerPassed() {
    NodeView.Taint taint =
        new NodeView.Taint(Maintenance.AUTOSCALER_TAINT, "1764669600", "NoSchedule", null);
    NodeView n =
        new NodeView(
            "n1",
            Map.of(),
            List.of(taint),
            false,
            null,
            T,
            List.of(new Maintenance.Signal(Maintenance.AUTOSCALER_TAINT, null), drain(null)));

    assertThat(n.maintenance())
        .containsExactly(
            drain(null),
            new Maintenance.Signal(
                Maintenance.AUTOSCALER_TAINT, Instant.ofEpochSecond(1764669600)));
    assertThat(new NodeView("n2", Map.of(), List.of(), false, null, T).maintenance()).isEmpty();
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
