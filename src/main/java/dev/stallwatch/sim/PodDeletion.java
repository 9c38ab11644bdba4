package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.ArrayList;

/**
 * Graceful pod deletion on an API server that has none. The mock server removes an object at once
 * unless it carries a finalizer, so every simulated daemon pod carries {@value #FINALIZER}: the
 * controller "deletes" by writing {@code deletionTimestamp} (now + grace period) and {@code
 * deletionGracePeriodSeconds}, exactly what a real API server shows during graceful deletion; the
 * simulated kubelet removes the finalizer once the containers stopped, and the object goes. On a
 * node whose kubelet is down nobody does, so the pod stays Terminating — as in a real cluster. A
 * pod not yet bound to a node goes at once, as the API server deletes those without a grace period.
 */
final class PodDeletion {

  /** Stands in for the kubelet's part of graceful deletion. */
  static final String FINALIZER = "sim.stallwatch.dev/graceful-deletion";

  static final long DEFAULT_GRACE_SECONDS = 30;

  private final KubernetesClient client;

  PodDeletion(KubernetesClient client) {
    this.client = client;
  }

  /** Starts deleting {@code pod}; false when it was already being deleted. */
  boolean delete(Pod pod, Instant now) {
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    if (pod.getMetadata().getFinalizers() == null
        || !pod.getMetadata().getFinalizers().contains(FINALIZER)) {
      client.resource(pod).delete();
      return true;
    }
    if (pod.getSpec().getNodeName() == null || pod.getSpec().getNodeName().isEmpty()) {
      // As the API server does: a pod no kubelet has is deleted at once.
      pod.getMetadata().getFinalizers().remove(FINALIZER);
      pod.getMetadata().setDeletionTimestamp(now.toString());
      client.resource(pod).update();
      return true;
    }
    long grace =
        pod.getSpec().getTerminationGracePeriodSeconds() == null
            ? DEFAULT_GRACE_SECONDS
            : pod.getSpec().getTerminationGracePeriodSeconds();
    // PUT, not a patch: the client leaves deletionTimestamp out of the patches it computes.
    pod.getMetadata().setDeletionTimestamp(now.plusSeconds(grace).toString());
    pod.getMetadata().setDeletionGracePeriodSeconds(grace);
    client.resource(pod).update();
    return true;
  }

  /** The kubelet's last step: drop the finalizer, which removes the object. */
  void finish(Pod pod) {
    client
        .resource(pod)
        .edit(
            p -> {
              var f = new ArrayList<>(p.getMetadata().getFinalizers());
              f.remove(FINALIZER);
              p.getMetadata().setFinalizers(f);
              return p;
            });
  }

  /** When the deletion was requested: deletionTimestamp minus the grace period. */
  static Instant requestedAt(Pod pod) {
    String raw = pod.getMetadata().getDeletionTimestamp();
    Instant ts = raw == null ? null : Instant.parse(raw);
    Long grace = pod.getMetadata().getDeletionGracePeriodSeconds();
    return ts == null ? null : ts.minusSeconds(grace == null ? 0 : grace);
  }
}
