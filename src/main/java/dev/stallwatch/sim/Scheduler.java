package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The simulated scheduler: binds each pending pod to the node its required affinity pins it to when
 * that node's taints, selector, free host ports and free cpu, memory and extended resources allow;
 * otherwise marks it {@code PodScheduled=False}, reason {@code Unschedulable}, with the message
 * kube-scheduler v1.36 writes ({@code 0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2
 * node(s) didn't satisfy plugin(s) [NodeAffinity]. no new claims to deallocate, preemption: …}).
 * Nodes a pod's required affinity rules out by name are dropped before filtering, as NodeAffinity's
 * PreFilter does; the others are filtered in upstream's order — taints, affinity/selector, host
 * ports, resources — and the first failure names the node's reason.
 */
public final class Scheduler {

  static final String AFFINITY_MISMATCH = "node(s) didn't match Pod's node affinity/selector";

  /**
   * The reason of the nodes NodeAffinity's PreFilter leaves out (upstream {@code schedule_one.go}):
   * a DaemonSet pod names its node in {@code matchFields metadata.name}, so every other node gets
   * this, unfiltered.
   */
  static final String PREFILTERED_OUT = "node(s) didn't satisfy plugin(s) [NodeAffinity]";

  /**
   * DynamicResources' PostFilter for a pod without resource claims; it runs before preemption and
   * its reason leads the post-filter part of the message (enabled by default since v1.34).
   */
  static final String NO_CLAIMS_TO_DEALLOCATE = "no new claims to deallocate";

  /** Upstream NodePorts' reason ({@code ErrReason} of {@code plugins/nodeports}). */
  static final String PORTS_IN_USE = "node(s) didn't have free ports for the requested pod ports";

  private final KubernetesClient client;
  private final Clock clock;

  public Scheduler(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** One scheduling pass over every pending pod; returns how many were bound. */
  public int schedulePending() {
    List<Node> nodes =
        client.nodes().list().getItems().stream()
            .sorted(Comparator.comparing(n -> n.getMetadata().getName()))
            .toList();
    List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
    Map<String, List<Pod>> bound = new HashMap<>();
    List<Pod> pending = new ArrayList<>();
    for (Pod p : pods) {
      String node = p.getSpec().getNodeName();
      if (node != null && !node.isEmpty()) {
        bound.computeIfAbsent(node, k -> new ArrayList<>()).add(p);
      } else if (p.getMetadata().getDeletionTimestamp() == null) {
        pending.add(p);
      }
    }
    pending.sort(
        Comparator.comparing((Pod p) -> p.getMetadata().getNamespace())
            .thenComparing(p -> p.getMetadata().getName()));
    int count = 0;
    for (Pod pod : pending) {
      Map<String, List<String>> failures = new TreeMap<>();
      Node chosen = null;
      Set<String> named = namedByAffinity(pod);
      for (Node node : nodes) {
        if (named != null && !named.contains(node.getMetadata().getName())) {
          failures.put(node.getMetadata().getName(), List.of(PREFILTERED_OUT));
          continue;
        }
        List<String> why =
            filter(pod, node, bound.getOrDefault(node.getMetadata().getName(), List.of()));
        if (why.isEmpty()) {
          chosen = node;
          break;
        }
        failures.put(node.getMetadata().getName(), why);
      }
      if (chosen != null) {
        bind(pod, chosen);
        bound.computeIfAbsent(chosen.getMetadata().getName(), k -> new ArrayList<>()).add(pod);
        count++;
      } else {
        markUnschedulable(pod, message(nodes.size(), failures));
      }
    }
    return count;
  }

  /**
   * The nodes NodeAffinity's PreFilter restricts {@code pod} to: when every required term names
   * nodes by {@code metadata.name} (In), the union over terms of each term's intersection; null
   * when some term does not, or there is no required affinity (every node is filtered).
   */
  static Set<String> namedByAffinity(Pod pod) {
    var affinity = pod.getSpec().getAffinity();
    if (affinity == null
        || affinity.getNodeAffinity() == null
        || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
      return null;
    }
    var terms =
        affinity
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms();
    if (terms == null || terms.isEmpty()) {
      return null;
    }
    Set<String> names = new TreeSet<>();
    for (NodeSelectorTerm term : terms) {
      Set<String> termNames = null;
      for (NodeSelectorRequirement r :
          term.getMatchFields() == null
              ? List.<NodeSelectorRequirement>of()
              : term.getMatchFields()) {
        if ("metadata.name".equals(r.getKey()) && "In".equals(r.getOperator())) {
          Set<String> values = new TreeSet<>(r.getValues() == null ? List.of() : r.getValues());
          if (termNames == null) {
            termNames = values;
          } else {
            termNames.retainAll(values);
          }
        }
      }
      if (termNames == null) {
        return null;
      }
      names.addAll(termNames);
    }
    return names;
  }

  /** The reasons {@code node} cannot take {@code pod}; empty when it fits. */
  static List<String> filter(Pod pod, Node node, List<Pod> podsOnNode) {
    PodSpec spec = pod.getSpec() == null ? new PodSpec() : pod.getSpec();
    Taint untolerated =
        DaemonNodeFit.untolerated(
            DaemonNodeFit.taints(node),
            spec.getTolerations() == null ? List.of() : spec.getTolerations(),
            Set.of("NoSchedule", "NoExecute"));
    if (untolerated != null) {
      return List.of(
          "node(s) had untolerated taint {"
              + untolerated.getKey()
              + ": "
              + (untolerated.getValue() == null ? "" : untolerated.getValue())
              + "}");
    }
    boolean boundElsewhere =
        spec.getNodeName() != null
            && !spec.getNodeName().isEmpty()
            && !spec.getNodeName().equals(node.getMetadata().getName());
    if (boundElsewhere || !DaemonNodeFit.placementFits(node, spec)) {
      return List.of(AFFINITY_MISMATCH);
    }
    if (HostPorts.conflict(pod, podsOnNode)) {
      return List.of(PORTS_IN_USE);
    }
    Map<String, BigDecimal> free = PodResources.allocatable(node);
    Map<String, BigDecimal> used = PodResources.used(podsOnNode);
    List<String> insufficient = new ArrayList<>();
    PodResources.requests(pod)
        .forEach(
            (resource, want) -> {
              if (want.signum() <= 0) {
                return;
              }
              BigDecimal have = free.getOrDefault(resource, BigDecimal.ZERO);
              BigDecimal taken = used.getOrDefault(resource, BigDecimal.ZERO);
              if (taken.add(want).compareTo(have) > 0) {
                insufficient.add("Insufficient " + resource);
              }
            });
    return insufficient;
  }

  /**
   * Upstream's FitError text: reasons counted over nodes, sorted, then the post-filter reasons —
   * DynamicResources' (no claims) and the preemption note. A node rejected only for resources or
   * host ports is one where preemption is tried (those filters return {@code Unschedulable}, not
   * {@code UnschedulableAndUnresolvable}); as every simulated pod has priority 0, no lower-priority
   * victim is found there.
   */
  static String message(int nodeCount, Map<String, List<String>> failures) {
    Map<String, Integer> counts = new TreeMap<>();
    int helpful = 0;
    for (List<String> why : failures.values()) {
      why.forEach(r -> counts.merge(r, 1, Integer::sum));
      if (why.stream().allMatch(r -> r.startsWith("Insufficient ") || PORTS_IN_USE.equals(r))) {
        helpful++;
      }
    }
    List<String> parts = new ArrayList<>();
    counts.forEach((reason, n) -> parts.add(n + " " + reason));
    parts.sort(Comparator.naturalOrder());
    StringBuilder s =
        new StringBuilder()
            .append(0)
            .append('/')
            .append(nodeCount)
            .append(" nodes are available: ")
            .append(String.join(", ", parts))
            .append(". ")
            .append(NO_CLAIMS_TO_DEALLOCATE)
            .append(", preemption: 0/")
            .append(nodeCount)
            .append(" nodes are available: ");
    List<String> pre = new ArrayList<>();
    if (helpful > 0) {
      pre.add(helpful + " No preemption victims found for incoming pod");
    }
    int unhelpful = failures.size() - helpful;
    if (unhelpful > 0) {
      pre.add(unhelpful + " Preemption is not helpful for scheduling");
    }
    return s.append(String.join(", ", pre)).append('.').toString();
  }

  private void bind(Pod pod, Node node) {
    String now = clock.instant().toString();
    pod.getSpec().setNodeName(node.getMetadata().getName());
    Pod bound = client.resource(pod).update();
    bound.setStatus(withScheduled(bound.getStatus(), "True", null, null, now));
    client.resource(bound).updateStatus();
  }

  private void markUnschedulable(Pod pod, String message) {
    PodStatus before = pod.getStatus();
    PodCondition current = PodConditions.condition(before, "PodScheduled");
    if (current != null
        && "False".equals(current.getStatus())
        && "Unschedulable".equals(current.getReason())
        && message.equals(current.getMessage())) {
      return;
    }
    pod.setStatus(
        withScheduled(before, "False", "Unschedulable", message, clock.instant().toString()));
    if (pod.getStatus().getPhase() == null) {
      pod.getStatus().setPhase("Pending");
    }
    client.resource(pod).updateStatus();
  }

  private static PodStatus withScheduled(
      PodStatus before, String status, String reason, String message, String now) {
    PodStatus s = before == null ? new PodStatus() : before;
    PodCondition old = PodConditions.condition(s, "PodScheduled");
    String since =
        old != null && status.equals(old.getStatus()) ? old.getLastTransitionTime() : now;
    PodCondition c = new PodCondition(null, since, message, null, reason, status, "PodScheduled");
    s.setConditions(PodConditions.replace(s.getConditions(), c));
    if (s.getPhase() == null) {
      s.setPhase("Pending");
    }
    return s;
  }
}
