package dev.stallwatch.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.rollout.PodTemplateView.NodeSelectorTerm;
import dev.stallwatch.rollout.PodTemplateView.Requirement;
import dev.stallwatch.rollout.PodTemplateView.Toleration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodeEligibilityTest {

  private static NodeView node(Map<String, String> labels, NodeView.Taint... taints) {
    return new NodeView("node-1", labels, List.of(taints), false, null, null);
  }

  private static PodTemplateView template(
      Map<String, String> selector, List<NodeSelectorTerm> affinity, Toleration... tolerations) {
    return new PodTemplateView(
        Map.of(), selector, affinity, List.of(tolerations), "", false, List.of(), List.of(), null);
  }

  private static NodeView.Taint taint(String key, String value, String effect) {
    return new NodeView.Taint(key, value, effect, null);
  }

  @Test
  void aPlainNodeRunsAPlainTemplate() {
    NodeEligibility.Fit fit = NodeEligibility.evaluate(node(Map.of()), template(Map.of(), null));
    assertThat(fit.shouldRun()).isTrue();
    assertThat(fit.shouldContinueRunning()).isTrue();
  }

  @Test
  void aNodeSelectorMustMatchEveryLabel() {
    PodTemplateView gpuOnly = template(Map.of("gpu", "true", "zone", "a"), null);
    assertThat(NodeEligibility.shouldRun(node(Map.of("gpu", "true", "zone", "a")), gpuOnly))
        .isTrue();
    NodeEligibility.Fit fit = NodeEligibility.evaluate(node(Map.of("gpu", "true")), gpuOnly);
    assertThat(fit.shouldRun()).isFalse();
    assertThat(fit.shouldContinueRunning()).isFalse();
    assertThat(fit.mismatch()).isEqualTo(NodeEligibility.Mismatch.NodeSelectorMismatch);
  }

  @Test
  void aTemplateNodeNameKeepsEveryOtherNodeOut() {
    PodTemplateView pinned =
        new PodTemplateView(
            Map.of(), Map.of(), null, List.of(), "node-2", false, List.of(), List.of(), null);
    NodeEligibility.Fit fit = NodeEligibility.evaluate(node(Map.of()), pinned);
    assertThat(fit.shouldRun()).isFalse();
    assertThat(fit.mismatch()).isEqualTo(NodeEligibility.Mismatch.NodeNameMismatch);
  }

  @ParameterizedTest(name = "{0} {1} {2} on label {3} matches: {4}")
  @CsvSource({
    "In,a;b,,a,true",
    "In,a;b,,c,false",
    "In,a,,<absent>,false",
    "NotIn,a,,b,true",
    "NotIn,a,,a,false",
    "NotIn,a,,<absent>,true",
    "Exists,,,x,true",
    "Exists,,,<absent>,false",
    "DoesNotExist,,,<absent>,true",
    "DoesNotExist,,,x,false",
    "Gt,5,,6,true",
    "Gt,5,,5,false",
    "Gt,5,,abc,false",
    "Lt,5,,4,true",
    "Lt,5,,<absent>,false",
    "Bogus,a,,a,false",
  })
  void requiredAffinityExpressionsFollowEveryOperator(
      String operator, String values, String unused, String label, boolean matches) {
    List<String> vals = values == null ? List.of() : List.of(values.split(";"));
    NodeSelectorTerm term =
        new NodeSelectorTerm(List.of(new Requirement("k", operator, vals)), List.of());
    Map<String, String> labels = "<absent>".equals(label) ? Map.of() : Map.of("k", label);
    assertThat(NodeEligibility.shouldRun(node(labels), template(Map.of(), List.of(term))))
        .isEqualTo(matches);
  }

  @Test
  void affinityTermsAreOredAndTheirRequirementsAnded() {
    NodeSelectorTerm gpuAndZone =
        new NodeSelectorTerm(
            List.of(
                new Requirement("gpu", "In", List.of("true")),
                new Requirement("zone", "In", List.of("a"))),
            List.of());
    NodeSelectorTerm cpuOnly =
        new NodeSelectorTerm(List.of(new Requirement("cpu", "Exists", List.of())), List.of());
    PodTemplateView t = template(Map.of(), List.of(gpuAndZone, cpuOnly));
    assertThat(NodeEligibility.shouldRun(node(Map.of("gpu", "true", "zone", "a")), t)).isTrue();
    assertThat(NodeEligibility.shouldRun(node(Map.of("gpu", "true", "zone", "b")), t)).isFalse();
    assertThat(NodeEligibility.shouldRun(node(Map.of("cpu", "")), t)).isTrue();
  }

  @Test
  void anEmptyTermOrAnEmptyTermListMatchesNoNode() {
    assertThat(
            NodeEligibility.shouldRun(
                node(Map.of()),
                template(Map.of(), List.of(new NodeSelectorTerm(List.of(), List.of())))))
        .isFalse();
    assertThat(NodeEligibility.shouldRun(node(Map.of()), template(Map.of(), List.of()))).isFalse();
  }

  @Test
  void matchFieldsPinByNodeNameWithInAndNotIn() {
    NodeSelectorTerm pin =
        new NodeSelectorTerm(
            List.of(), List.of(new Requirement("metadata.name", "In", List.of("node-1"))));
    NodeSelectorTerm notHere =
        new NodeSelectorTerm(
            List.of(), List.of(new Requirement("metadata.name", "NotIn", List.of("node-1"))));
    NodeSelectorTerm otherField =
        new NodeSelectorTerm(
            List.of(), List.of(new Requirement("metadata.uid", "In", List.of("node-1"))));
    assertThat(NodeEligibility.shouldRun(node(Map.of()), template(Map.of(), List.of(pin))))
        .isTrue();
    assertThat(NodeEligibility.shouldRun(node(Map.of()), template(Map.of(), List.of(notHere))))
        .isFalse();
    assertThat(NodeEligibility.shouldRun(node(Map.of()), template(Map.of(), List.of(otherField))))
        .isFalse();
  }

  @Test
  void anUntoleratedNoScheduleTaintStopsNewPodsButLetsRunningOnesStay() {
    NodeEligibility.Fit fit =
        NodeEligibility.evaluate(
            node(Map.of(), taint("nvidia.com/gpu", "present", "NoSchedule")),
            template(Map.of(), null));
    assertThat(fit.shouldRun()).isFalse();
    assertThat(fit.shouldContinueRunning()).isTrue();
    assertThat(fit.mismatch()).isEqualTo(NodeEligibility.Mismatch.TaintNotTolerated);
  }

  @Test
  void anUntoleratedNoExecuteTaintEvictsToo() {
    NodeEligibility.Fit fit =
        NodeEligibility.evaluate(
            node(Map.of(), taint("dedicated", "gpu", "NoExecute")), template(Map.of(), null));
    assertThat(fit.shouldRun()).isFalse();
    assertThat(fit.shouldContinueRunning()).isFalse();
  }

  @Test
  void preferNoScheduleTaintsDoNotMatter() {
    assertThat(
            NodeEligibility.shouldRun(
                node(Map.of(), taint("x", "y", "PreferNoSchedule")), template(Map.of(), null)))
        .isTrue();
  }

  @ParameterizedTest(name = "toleration {0} {1}={2}:{3} tolerates x=y:NoSchedule: {4}")
  @CsvSource({
    "x,Equal,y,NoSchedule,true",
    "x,Equal,z,NoSchedule,false",
    "x,,y,NoSchedule,true",
    "x,Exists,,NoSchedule,true",
    "x,Exists,,,true",
    ",Exists,,,true",
    "x,Exists,,NoExecute,false",
    "other,Exists,,,false",
  })
  void tolerationsMatchTaintsAsUpstream(
      String key, String operator, String value, String effect, boolean tolerated) {
    Toleration t = new Toleration(key, operator, value, effect, null);
    assertThat(NodeEligibility.tolerates(t, taint("x", "y", "NoSchedule"))).isEqualTo(tolerated);
  }

  @ParameterizedTest(name = "default toleration covers {0}:{1}")
  @CsvSource({
    "node.kubernetes.io/not-ready,NoExecute",
    "node.kubernetes.io/unreachable,NoExecute",
    "node.kubernetes.io/disk-pressure,NoSchedule",
    "node.kubernetes.io/memory-pressure,NoSchedule",
    "node.kubernetes.io/pid-pressure,NoSchedule",
    "node.kubernetes.io/unschedulable,NoSchedule",
  })
  void daemonPodsTolerateTheNodeLifecycleTaintsByDefault(String key, String effect) {
    assertThat(
            NodeEligibility.shouldRun(
                node(Map.of(), taint(key, "", effect)), template(Map.of(), null)))
        .isTrue();
  }

  @Test
  void aNotReadyNodeWithItsNoScheduleTaintDropsOutOfDesiredButKeepsItsPod() {
    NodeEligibility.Fit fit =
        NodeEligibility.evaluate(
            node(
                Map.of(),
                taint("node.kubernetes.io/not-ready", "", "NoSchedule"),
                taint("node.kubernetes.io/not-ready", "", "NoExecute")),
            template(Map.of(), null));
    assertThat(fit.shouldRun()).isFalse();
    assertThat(fit.shouldContinueRunning()).isTrue();
  }

  @Test
  void networkUnavailableIsToleratedOnlyForHostNetworkPods() {
    NodeView n = node(Map.of(), taint("node.kubernetes.io/network-unavailable", "", "NoSchedule"));
    PodTemplateView hostNet =
        new PodTemplateView(
            Map.of(), Map.of(), null, List.of(), "", true, List.of(), List.of(), null);
    assertThat(NodeEligibility.shouldRun(n, hostNet)).isTrue();
    assertThat(NodeEligibility.shouldRun(n, template(Map.of(), null))).isFalse();
  }
}
