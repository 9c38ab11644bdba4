package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Node health as the kubelet and the node lifecycle controller show it: Ready, NotReady ({@code
 * Ready=False}, taints {@code node.kubernetes.io/not-ready} NoSchedule and NoExecute) or
 * unreachable ({@code Ready=Unknown}, taints {@code node.kubernetes.io/unreachable}). While a node
 * is not Ready its kubelet does nothing.
 */
public final class NodeLifecycle {

  static final String NOT_READY_TAINT = "node.kubernetes.io/not-ready";
  static final String UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";

  private final KubernetesClient client;
  private final Clock clock;

  public NodeLifecycle(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  static boolean isReady(Node node) {
    if (node.getStatus() == null || node.getStatus().getConditions() == null) {
      return false;
    }
    return node.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** The kubelet reports Ready again; the lifecycle controller lifts its taints. */
  public void ready(String node) {
    set(node, "True", "KubeletReady", "kubelet is posting ready status", null);
  }

  /** The kubelet reports NotReady (e.g. the container runtime is down). */
  public void notReady(String node) {
    set(node, "False", "KubeletNotReady", "container runtime is down", NOT_READY_TAINT);
    markPodsNotReady(node);
  }

  /** The kubelet stopped posting status: the node is unreachable. */
  public void unreachable(String node) {
    set(
        node,
        "Unknown",
        "NodeStatusUnknown",
        "Kubelet stopped posting node status.",
        UNREACHABLE_TAINT);
    markPodsNotReady(node);
  }

  /** As the node lifecycle controller does: the pods of a lost node are no longer Ready. */
  private void markPodsNotReady(String node) {
    String now = clock.instant().toString();
    for (Pod pod : client.pods().inAnyNamespace().list().getItems()) {
      if (pod.getStatus() == null || !node.equals(pod.getSpec().getNodeName())) {
        continue;
      }
      PodCondition ready = PodConditions.condition(pod.getStatus(), "Ready");
      if (ready == null || !"True".equals(ready.getStatus())) {
        continue;
      }
      pod.getStatus()
          .setConditions(
              PodConditions.replace(
                  pod.getStatus().getConditions(),
                  new PodCondition(null, now, null, null, null, "False", "Ready")));
      client.resource(pod).updateStatus();
    }
  }

  private void set(String name, String status, String reason, String message, String taintKey) {
    String now = clock.instant().toString();
    Node node = client.nodes().withName(name).get();
    if (node == null) {
      throw new IllegalArgumentException("node " + name + " does not exist");
    }
    List<Taint> taints = new ArrayList<>();
    for (Taint t :
        node.getSpec().getTaints() == null ? List.<Taint>of() : node.getSpec().getTaints()) {
      if (!NOT_READY_TAINT.equals(t.getKey()) && !UNREACHABLE_TAINT.equals(t.getKey())) {
        taints.add(t);
      }
    }
    if (taintKey != null) {
      taints.add(new Taint("NoSchedule", taintKey, now, null));
      taints.add(new Taint("NoExecute", taintKey, now, null));
    }
    Node updated =
        client
            .nodes()
            .withName(name)
            .edit(
                n -> {
                  n.getSpec().setTaints(taints);
                  return n;
                });
    List<NodeCondition> conditions = new ArrayList<>();
    for (NodeCondition c : updated.getStatus().getConditions()) {
      if ("Ready".equals(c.getType())) {
        String since = status.equals(c.getStatus()) ? c.getLastTransitionTime() : now;
        conditions.add(new NodeCondition(now, since, message, reason, status, "Ready"));
      } else {
        conditions.add(c);
      }
    }
    updated.getStatus().setConditions(conditions);
    client.resource(updated).updateStatus();
  }
}
