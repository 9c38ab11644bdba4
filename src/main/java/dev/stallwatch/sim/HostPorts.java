package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The scheduler's host-port check (upstream {@code plugins/nodeports} with {@code HostPortInfo}): a
 * pod does not fit on a node when one of its containers asks for a host port that a pod already
 * there holds — same protocol and port, and the same host IP or either one the wildcard {@code
 * 0.0.0.0}. An empty host IP is the wildcard, an empty protocol TCP; with {@code hostNetwork} a
 * container port without a host port is its own host port (the API server's defaulting, which the
 * mock does not do). Pods that are Succeeded or Failed hold no ports (the scheduler does not cache
 * them).
 */
final class HostPorts {

  private static final String ANY_IP = "0.0.0.0";

  /** One requested host port. */
  record HostPort(String ip, String protocol, int port) {
    boolean conflictsWith(HostPort other) {
      return port == other.port
          && protocol.equals(other.protocol)
          && (ip.equals(other.ip) || ANY_IP.equals(ip) || ANY_IP.equals(other.ip));
    }
  }

  private HostPorts() {}

  /** Whether {@code pod} asks for a host port one of the non-terminal {@code podsOnNode} holds. */
  static boolean conflict(Pod pod, List<Pod> podsOnNode) {
    List<HostPort> wanted = of(pod);
    if (wanted.isEmpty()) {
      return false;
    }
    for (Pod other : podsOnNode) {
      String phase = other.getStatus() == null ? null : other.getStatus().getPhase();
      if (other == pod || "Failed".equals(phase) || "Succeeded".equals(phase)) {
        continue;
      }
      for (HostPort held : of(other)) {
        if (wanted.stream().anyMatch(w -> w.conflictsWith(held))) {
          return true;
        }
      }
    }
    return false;
  }

  /** The host ports {@code pod}'s containers ask for (upstream counts main containers only). */
  static List<HostPort> of(Pod pod) {
    boolean hostNetwork = Boolean.TRUE.equals(pod.getSpec().getHostNetwork());
    List<HostPort> out = new ArrayList<>();
    for (Container c : Optional.ofNullable(pod.getSpec().getContainers()).orElse(List.of())) {
      for (ContainerPort p : Optional.ofNullable(c.getPorts()).orElse(List.of())) {
        Integer port = p.getHostPort();
        if ((port == null || port == 0) && hostNetwork) {
          port = p.getContainerPort();
        }
        if (port == null || port <= 0) {
          continue;
        }
        String ip = p.getHostIP() == null || p.getHostIP().isEmpty() ? ANY_IP : p.getHostIP();
        String protocol =
            p.getProtocol() == null || p.getProtocol().isEmpty() ? "TCP" : p.getProtocol();
        out.add(new HostPort(ip, protocol, port));
      }
    }
    return out;
  }
}
