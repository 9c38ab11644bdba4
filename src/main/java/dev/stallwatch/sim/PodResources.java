package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Resource arithmetic shared by the scheduler's fit check and the kubelet's admission: a pod's
 * effective request (the larger of the summed containers and the largest init container, per
 * resource) and what a node can give ({@code status.allocatable}, else capacity).
 */
final class PodResources {

  private PodResources() {}

  static Map<String, BigDecimal> requests(Pod pod) {
    Map<String, BigDecimal> sum = new TreeMap<>();
    for (Container c : Optional.ofNullable(pod.getSpec().getContainers()).orElse(List.of())) {
      requestsOf(c).forEach((k, v) -> sum.merge(k, v, BigDecimal::add));
    }
    for (Container c : Optional.ofNullable(pod.getSpec().getInitContainers()).orElse(List.of())) {
      requestsOf(c).forEach((k, v) -> sum.merge(k, v, BigDecimal::max));
    }
    return sum;
  }

  private static Map<String, BigDecimal> requestsOf(Container c) {
    Map<String, BigDecimal> out = new TreeMap<>();
    if (c.getResources() != null && c.getResources().getRequests() != null) {
      c.getResources().getRequests().forEach((k, q) -> out.put(k, Quantity.getAmountInBytes(q)));
    }
    return out;
  }

  static Map<String, BigDecimal> allocatable(Node node) {
    Map<String, Quantity> q =
        node.getStatus() == null
            ? null
            : Optional.ofNullable(node.getStatus().getAllocatable())
                .orElse(node.getStatus().getCapacity());
    Map<String, BigDecimal> out = new TreeMap<>();
    if (q != null) {
      q.forEach((k, v) -> out.put(k, Quantity.getAmountInBytes(v)));
    }
    return out;
  }

  /** Sum of the requests of pods that hold resources: bound and not terminal. */
  static Map<String, BigDecimal> used(List<Pod> podsOnNode) {
    Map<String, BigDecimal> sum = new TreeMap<>();
    for (Pod p : podsOnNode) {
      String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
      if ("Failed".equals(phase) || "Succeeded".equals(phase)) {
        continue;
      }
      requests(p).forEach((k, v) -> sum.merge(k, v, BigDecimal::add));
    }
    return sum;
  }

  /** How the kubelet prints an amount: millicores for cpu, plain integers otherwise. */
  static long display(String resource, BigDecimal amount) {
    if ("cpu".equals(resource)) {
      return amount.multiply(BigDecimal.valueOf(1000)).longValue();
    }
    return amount.longValue();
  }
}
