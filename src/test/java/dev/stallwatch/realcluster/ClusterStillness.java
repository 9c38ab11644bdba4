package dev.stallwatch.realcluster;

import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.awaitility.Awaitility;

/**
 * Whether the real controllers have settled after a change: nothing the comparison reads, nor
 * anything that leads to it (DaemonSet status, pod phases, conditions and waiting reasons, node
 * readiness and taints), has changed for {@link #QUIET}, and the controller has observed the
 * DaemonSet's generation.
 */
final class ClusterStillness {

  /** How long the real cluster must show no change to count as settled. */
  static final Duration QUIET = Duration.ofSeconds(10);

  private final KubernetesClient admin;
  private final String nodes;

  /**
   * @param nodes a label selector for the nodes to watch
   */
  ClusterStillness(KubernetesClient admin, String nodes) {
    this.admin = admin;
    this.nodes = nodes;
  }

  /** Waits until nothing compared has changed for {@link #QUIET}. */
  void await(String ns) {
    String[] last = {""};
    Instant[] since = {Instant.now()};
    Awaitility.await("the real controllers settle in " + ns)
        .atMost(Scenario.WAIT)
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              String now = fingerprint(ns);
              if (!now.equals(last[0])) {
                last[0] = now;
                since[0] = Instant.now();
                return false;
              }
              return !now.startsWith("unobserved")
                  && Duration.between(since[0], Instant.now()).compareTo(QUIET) >= 0;
            });
  }

  /** What is compared, and what leads to it: any change means the cluster is still moving. */
  private String fingerprint(String ns) {
    StringBuilder sb = new StringBuilder();
    for (DaemonSet d : admin.apps().daemonSets().inNamespace(ns).list().getItems()) {
      Long observed = d.getStatus() == null ? null : d.getStatus().getObservedGeneration();
      if (observed == null || observed < d.getMetadata().getGeneration()) {
        sb.insert(0, "unobserved ");
      }
      sb.append(d.getMetadata().getGeneration()).append(PlayOutcome.Status.of(d.getStatus()));
    }
    admin.pods().inNamespace(ns).list().getItems().stream()
        .map(ClusterStillness::podLine)
        .sorted()
        .forEach(l -> sb.append('\n').append(l));
    admin.nodes().withLabelSelector(nodes).list().getItems().stream()
        .map(n -> n.getMetadata().getName() + " " + KwokPlay.ready(n) + " " + KwokPlay.taintKeys(n))
        .sorted()
        .forEach(l -> sb.append('\n').append(l));
    return sb.toString();
  }

  private static String podLine(Pod p) {
    var v = KubeViews.pod(p);
    StringBuilder sb =
        new StringBuilder(v.name())
            .append(' ')
            .append(v.targetNode())
            .append(' ')
            .append(v.labels().get(MetadataKeys.REVISION_HASH_LABEL))
            .append(' ')
            .append(v.phase())
            .append(v.deletionTimestamp() != null ? " deleting" : "");
    var status = Optional.ofNullable(p.getStatus()).orElseGet(PodStatus::new);
    for (var c : Optional.ofNullable(status.getConditions()).orElse(List.of())) {
      sb.append(' ').append(c.getType()).append('=').append(c.getStatus());
    }
    for (var s : Optional.ofNullable(status.getContainerStatuses()).orElse(List.of())) {
      if (s.getState() != null && s.getState().getWaiting() != null) {
        // ErrImagePull and ImagePullBackOff alternate; both are the same stall.
        sb.append(' ').append(s.getState().getWaiting().getReason().replace("ErrImagePull", "IPB"));
      }
    }
    return sb.toString().replace("ImagePullBackOff", "IPB");
  }
}
