package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The simulated kubelets of all nodes: admit a newly bound pod (or reject it, phase Failed, reason
 * {@code OutOf<resource>}), mount its volumes — a ConfigMap or Secret volume whose object does not
 * exist cannot be mounted, and the pod's containers wait in {@code ContainerCreating} until it does
 * — report its status from the {@link PodTimeline}, and finish graceful deletions once the
 * containers stopped. A kubelet whose node is not Ready does nothing — its pods keep their last
 * status and a deleted pod stays Terminating.
 */
public final class Kubelet {

  private final KubernetesClient client;
  private final Clock clock;
  private final KubeletScript script;
  private final PodDeletion deletion;

  /**
   * The volume manager's memory, as a real kubelet keeps it: pods (by uid) it has seen waiting for
   * a volume, and when their volumes were mounted at last. A pod absent from both had its volumes
   * mounted at admission.
   */
  private final Set<String> waitingForVolumes = new HashSet<>();

  private final Map<String, Instant> mountedAt = new HashMap<>();

  public Kubelet(KubernetesClient client, Clock clock, KubeletScript script) {
    this.client = client;
    this.clock = clock;
    this.script = script;
    this.deletion = new PodDeletion(client);
  }

  /** One pass of every live kubelet over the pods bound to its node. */
  public void syncAll() {
    Instant now = clock.instant();
    Map<String, Node> live = new HashMap<>();
    for (Node n : client.nodes().list().getItems()) {
      if (NodeLifecycle.isReady(n)) {
        live.put(n.getMetadata().getName(), n);
      }
    }
    Map<String, List<Pod>> byNode = new HashMap<>();
    Set<String> present = new HashSet<>();
    for (Pod p : client.pods().inAnyNamespace().list().getItems()) {
      present.add(p.getMetadata().getUid());
      String node = p.getSpec().getNodeName();
      if (node != null && live.containsKey(node)) {
        byNode.computeIfAbsent(node, k -> new ArrayList<>()).add(p);
      }
    }
    waitingForVolumes.retainAll(present);
    mountedAt.keySet().retainAll(present);
    PodVolumes volumes = new PodVolumes(client);
    for (String node : byNode.keySet().stream().sorted().toList()) {
      List<Pod> pods = byNode.get(node);
      pods.sort(
          Comparator.comparing((Pod p) -> p.getMetadata().getCreationTimestamp())
              .thenComparing(p -> p.getMetadata().getName()));
      for (Pod pod : pods) {
        syncPod(live.get(node), pod, pods, volumes, now);
      }
    }
  }

  private void syncPod(Node node, Pod pod, List<Pod> podsOnNode, PodVolumes volumes, Instant now) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    boolean terminal = "Failed".equals(phase) || "Succeeded".equals(phase);
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      Instant requested = PodDeletion.requestedAt(pod);
      Instant stopped = terminal ? requested : requested.plus(script.terminationTime());
      if (!now.isBefore(stopped)
          && pod.getMetadata().getFinalizers() != null
          && pod.getMetadata().getFinalizers().contains(PodDeletion.FINALIZER)) {
        deletion.finish(pod);
      }
      return;
    }
    if (terminal) {
      return;
    }
    PodStatus current = pod.getStatus();
    Instant start =
        current == null || current.getStartTime() == null
            ? null
            : Instant.parse(current.getStartTime());
    PodStatus next;
    if (start == null) {
      next = admit(node, pod, podsOnNode, now);
      if (next == null) {
        next = PodTimeline.statusAt(pod, script, now, mounted(pod, volumes, now, now), now);
      }
    } else {
      next = PodTimeline.statusAt(pod, script, start, mounted(pod, volumes, start, now), now);
    }
    if (!Serialization.asJson(next).equals(Serialization.asJson(current))) {
      pod.setStatus(next);
      client.resource(pod).updateStatus();
    }
  }

  /**
   * When the pod's volumes were mounted: null while one cannot be (its ConfigMap or Secret is
   * missing), else at admission ({@code start}) or, for a pod seen waiting, at the first sync that
   * found them all.
   */
  private Instant mounted(Pod pod, PodVolumes volumes, Instant start, Instant now) {
    String uid = pod.getMetadata().getUid();
    if (!volumes.missing(pod).isEmpty()) {
      waitingForVolumes.add(uid);
      mountedAt.remove(uid);
      return null;
    }
    if (waitingForVolumes.remove(uid)) {
      mountedAt.put(uid, now);
    }
    return mountedAt.getOrDefault(uid, start);
  }

  /**
   * Kubelet admission: the pod's requests must fit beside every admitted pod and hidden usage.
   * Returns the rejected status, or null when the pod is admitted.
   */
  private PodStatus admit(Node node, Pod pod, List<Pod> podsOnNode, Instant now) {
    List<Pod> admitted =
        podsOnNode.stream()
            .filter(p -> p != pod && p.getStatus() != null && p.getStatus().getStartTime() != null)
            .toList();
    Map<String, BigDecimal> used = new HashMap<>(PodResources.used(admitted));
    script
        .hiddenUsage(node.getMetadata().getName())
        .forEach((k, v) -> used.merge(k, v, BigDecimal::add));
    Map<String, BigDecimal> capacity = PodResources.allocatable(node);
    for (var e : PodResources.requests(pod).entrySet()) {
      String resource = e.getKey();
      BigDecimal want = e.getValue();
      BigDecimal have = capacity.getOrDefault(resource, BigDecimal.ZERO);
      BigDecimal taken = used.getOrDefault(resource, BigDecimal.ZERO);
      if (want.signum() > 0 && taken.add(want).compareTo(have) > 0) {
        PodStatus rejected =
            pod.getStatus() == null ? new PodStatus() : Serialization.clone(pod.getStatus());
        rejected.setPhase("Failed");
        rejected.setReason("OutOf" + resource);
        rejected.setMessage(
            "Pod was rejected: Node didn't have enough resource: "
                + resource
                + ", requested: "
                + PodResources.display(resource, want)
                + ", used: "
                + PodResources.display(resource, taken)
                + ", capacity: "
                + PodResources.display(resource, have));
        rejected.setStartTime(now.toString());
        return rejected;
      }
    }
    return null;
  }
}
