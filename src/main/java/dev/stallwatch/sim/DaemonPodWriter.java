package dev.stallwatch.sim;

import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Carries out a {@link SyncPlan} through the API (upstream {@code syncNodes}): new pods from the
 * template, labelled with the revision hash and template generation, owned by the DaemonSet, pinned
 * to their node and given the default daemon tolerations; deletions as graceful deletions.
 */
final class DaemonPodWriter {

  /** Upstream's random-suffix alphabet. */
  private static final String SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

  private final KubernetesClient client;
  private final PodDeletion deletion;
  private final Random random;

  DaemonPodWriter(KubernetesClient client, PodDeletion deletion, Random random) {
    this.client = client;
    this.deletion = deletion;
    this.random = random;
  }

  /** Creates and deletes; returns how many of each were done. */
  SyncResult apply(DaemonSetState state, SyncPlan plan, String hash, Instant now) {
    for (String node : plan.nodesToCreate()) {
      create(state, node, hash);
    }
    int deleted = 0;
    for (String podName : plan.podsToDelete()) {
      Pod pod = client.pods().inNamespace(state.namespace()).withName(podName).get();
      if (pod != null && deletion.delete(pod, now)) {
        deleted++;
      }
    }
    return new SyncResult(plan.nodesToCreate().size(), deleted);
  }

  private void create(DaemonSetState state, String node, String hash) {
    for (int attempt = 0; ; attempt++) {
      Pod pod = podFor(state, node, hash);
      try {
        client.resource(pod).create();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt >= 5) {
          throw e;
        }
      }
    }
  }

  /** Upstream {@code CreatePodTemplate} plus the node pin. */
  Pod podFor(DaemonSetState state, String node, String hash) {
    var template = state.ds.getSpec().getTemplate();
    PodSpec spec = Serialization.clone(template.getSpec());
    spec.setAffinity(PodPlacement.pinnedTo(spec.getAffinity(), node));
    spec.setTolerations(
        PodPlacement.withDaemonTolerations(
            spec.getTolerations(), Boolean.TRUE.equals(spec.getHostNetwork())));
    Map<String, String> labels = new HashMap<>();
    if (template.getMetadata() != null && template.getMetadata().getLabels() != null) {
      labels.putAll(template.getMetadata().getLabels());
    }
    Long generation = state.templateGeneration();
    if (generation != null) {
      labels.put(MetadataKeys.TEMPLATE_GENERATION_LABEL, generation.toString());
    }
    labels.put(MetadataKeys.REVISION_HASH_LABEL, hash);
    ObjectMeta meta = new ObjectMeta();
    meta.setGenerateName(state.name() + "-");
    meta.setName(state.name() + "-" + suffix());
    meta.setNamespace(state.namespace());
    meta.setLabels(labels);
    if (template.getMetadata() != null && template.getMetadata().getAnnotations() != null) {
      meta.setAnnotations(new HashMap<>(template.getMetadata().getAnnotations()));
    }
    meta.setOwnerReferences(
        List.of(
            new OwnerReferenceBuilder()
                .withApiVersion("apps/v1")
                .withKind("DaemonSet")
                .withName(state.name())
                .withUid(state.ds.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build()));
    meta.setFinalizers(new ArrayList<>(List.of(PodDeletion.FINALIZER)));
    Pod pod = new Pod();
    pod.setMetadata(meta);
    pod.setSpec(spec);
    return pod;
  }

  private String suffix() {
    StringBuilder s = new StringBuilder(5);
    for (int i = 0; i < 5; i++) {
      s.append(SUFFIX_ALPHABET.charAt(random.nextInt(SUFFIX_ALPHABET.length())));
    }
    return s.toString();
  }
}
