package dev.stallwatch.sim;

import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.ObjectRef;
import dev.stallwatch.rollout.OwnerRef;
import dev.stallwatch.rollout.PodTemplateView;
import dev.stallwatch.rollout.PodView;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The few core views the simulator needs to call the core's predicates on fabric8 objects. The
 * simulator builds its own objects, so nothing here has to cope with malformed input.
 */
final class SimViews {

  private SimViews() {}

  static Instant time(String s) {
    return s == null || s.isEmpty() ? null : Instant.parse(s);
  }

  static NodeView node(Node node) {
    List<NodeView.Taint> taints =
        Optional.ofNullable(node.getSpec().getTaints()).orElse(List.of()).stream()
            .map(
                t ->
                    new NodeView.Taint(
                        t.getKey(), t.getValue(), t.getEffect(), time(t.getTimeAdded())))
            .toList();
    NodeView.Condition ready =
        node.getStatus() == null || node.getStatus().getConditions() == null
            ? null
            : node.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()))
                .map(
                    c ->
                        new NodeView.Condition(
                            c.getStatus(),
                            c.getReason(),
                            c.getMessage(),
                            time(c.getLastTransitionTime())))
                .findFirst()
                .orElse(null);
    return new NodeView(
        node.getMetadata().getName(),
        node.getMetadata().getLabels(),
        taints,
        Boolean.TRUE.equals(node.getSpec().getUnschedulable()),
        ready,
        time(node.getMetadata().getCreationTimestamp()));
  }

  static PodTemplateView template(PodTemplateSpec template) {
    PodSpec spec = template.getSpec();
    return new PodTemplateView(
        template.getMetadata() == null ? Map.of() : template.getMetadata().getLabels(),
        spec.getNodeSelector(),
        requiredAffinity(spec),
        Optional.ofNullable(spec.getTolerations()).orElse(List.of()).stream()
            .map(
                t ->
                    new PodTemplateView.Toleration(
                        t.getKey(),
                        t.getOperator(),
                        t.getValue(),
                        t.getEffect(),
                        t.getTolerationSeconds()))
            .toList(),
        spec.getNodeName(),
        Boolean.TRUE.equals(spec.getHostNetwork()),
        containers(spec.getInitContainers()),
        containers(spec.getContainers()),
        TemplateHash.canonicalJson(template));
  }

  private static List<PodTemplateView.NodeSelectorTerm> requiredAffinity(PodSpec spec) {
    if (spec.getAffinity() == null
        || spec.getAffinity().getNodeAffinity() == null
        || spec.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
            == null) {
      return null;
    }
    return spec
        .getAffinity()
        .getNodeAffinity()
        .getRequiredDuringSchedulingIgnoredDuringExecution()
        .getNodeSelectorTerms()
        .stream()
        .map(
            term ->
                new PodTemplateView.NodeSelectorTerm(
                    requirements(term.getMatchExpressions()), requirements(term.getMatchFields())))
        .toList();
  }

  private static List<PodTemplateView.Requirement> requirements(List<NodeSelectorRequirement> rs) {
    return Optional.ofNullable(rs).orElse(List.of()).stream()
        .map(r -> new PodTemplateView.Requirement(r.getKey(), r.getOperator(), r.getValues()))
        .toList();
  }

  private static List<PodTemplateView.Container> containers(List<Container> containers) {
    return Optional.ofNullable(containers).orElse(List.of()).stream()
        .map(c -> new PodTemplateView.Container(c.getName(), c.getImage(), requests(c)))
        .toList();
  }

  private static Map<String, String> requests(Container c) {
    Map<String, String> out = new TreeMap<>();
    if (c.getResources() != null && c.getResources().getRequests() != null) {
      for (Map.Entry<String, Quantity> e : c.getResources().getRequests().entrySet()) {
        out.put(e.getKey(), e.getValue().toString());
      }
    }
    return out;
  }

  /** The parts of a pod the core's availability and ordering predicates read. */
  static PodView pod(Pod pod) {
    var meta = pod.getMetadata();
    var status = pod.getStatus();
    List<PodView.Condition> conditions =
        status == null || status.getConditions() == null
            ? List.of()
            : status.getConditions().stream()
                .map(
                    c ->
                        new PodView.Condition(
                            c.getType(),
                            c.getStatus(),
                            c.getReason(),
                            c.getMessage(),
                            time(c.getLastTransitionTime())))
                .toList();
    OwnerRef owner =
        Optional.ofNullable(meta.getOwnerReferences()).orElse(List.of()).stream()
            .filter(o -> Boolean.TRUE.equals(o.getController()))
            .map(o -> new OwnerRef(o.getKind(), o.getName(), o.getUid()))
            .findFirst()
            .orElse(null);
    return new PodView(
        meta.getNamespace(),
        meta.getName(),
        meta.getUid(),
        meta.getLabels(),
        owner,
        pod.getSpec().getNodeName(),
        PodPlacement.targetNode(pod),
        time(meta.getCreationTimestamp()),
        time(meta.getDeletionTimestamp()),
        status == null ? null : status.getPhase(),
        status == null ? null : status.getReason(),
        status == null ? null : status.getMessage(),
        conditions,
        List.of(),
        List.of(),
        List.of(),
        List.of());
  }

  static ObjectRef ref(io.fabric8.kubernetes.api.model.HasMetadata o) {
    return new ObjectRef(
        o.getMetadata().getNamespace(), o.getMetadata().getName(), o.getMetadata().getUid());
  }
}
