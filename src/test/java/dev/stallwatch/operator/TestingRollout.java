package dev.stallwatch.operator;

import dev.stallwatch.testing.KubeObjects;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes the seed story's objects straight into an API server, as the DaemonSet controller and
 * kubelet would leave them: three GPU nodes, a DaemonSet at revision 2 whose new image cannot be
 * pulled on gpu-node-1, the two others still on revision 1. Used where the simulator is not needed:
 * the objects are what matters, not how they came to be.
 */
final class TestingRollout {
  static final String NS = "gpu-operator";
  static final String DS = "nvidia-container-toolkit";
  static final String OLD_IMAGE = "nvcr.io/nvidia/k8s/container-toolkit:v1.14.3";
  static final String NEW_IMAGE = "nvcr.io/nvidia/k8s/container-toolkit:v1.14.9-typo";
  static final String OLD_HASH = "5d4b9c7f8";
  static final String NEW_HASH = "7f6c8d9b4";
  private static final String GPU_PRESENT = "nvidia.com/gpu.present";
  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private final Instant started;
  private String uid;

  TestingRollout(KubernetesClient client, String namespace, String name, Instant started) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.started = started;
  }

  static void gpuNodes(KubernetesClient client, Instant created) {
    for (int i = 1; i <= 3; i++) {
      Node node = KubeObjects.readyNode("gpu-node-" + i, Map.of(GPU_PRESENT, "true"), created);
      client.nodes().resource(node).create();
    }
  }

  /** Revision 2 rolled out to gpu-node-1, where its image cannot be pulled. */
  TestingRollout stalledOnFirstNode() {
    DaemonSet ds = client.resource(daemonSet(NEW_IMAGE, 2)).create();
    uid = ds.getMetadata().getUid();
    revision(OLD_HASH, 1, OLD_IMAGE);
    revision(NEW_HASH, 2, NEW_IMAGE);
    pod("gpu-node-1", NEW_HASH, 2, NEW_IMAGE, false);
    pod("gpu-node-2", OLD_HASH, 1, OLD_IMAGE, true);
    pod("gpu-node-3", OLD_HASH, 1, OLD_IMAGE, true);
    status(3, 2, 1, 2);
    return this;
  }

  /** Revision 1 rolled out everywhere: each of the three nodes runs a Ready pod of it. */
  TestingRollout settled() {
    DaemonSet ds = client.resource(daemonSet(OLD_IMAGE, 1)).create();
    uid = ds.getMetadata().getUid();
    revision(OLD_HASH, 1, OLD_IMAGE);
    for (int i = 1; i <= 3; i++) {
      pod("gpu-node-" + i, OLD_HASH, 1, OLD_IMAGE, true);
    }
    status(3, 3, 3, 3);
    return this;
  }

  /** Holds a pod being deleted, as a kubelet that has not confirmed the deletion does. */
  static final String HOLD = "stallwatch.dev/test-hold";

  /**
   * The pod on {@code node} being deleted, its {@code deletionTimestamp} at {@code at}; a finalizer
   * keeps it (the mock server removes an object without one at once).
   */
  void podDeleting(String node, Instant at) {
    Pod pod = client.pods().inNamespace(namespace).withName(name + "-" + node).get();
    pod.getMetadata().setFinalizers(new java.util.ArrayList<>(java.util.List.of(HOLD)));
    client.resource(pod).update();
    pod = client.pods().inNamespace(namespace).withName(name + "-" + node).get();
    // PUT, not a patch: the client leaves deletionTimestamp out of the patches it computes.
    pod.getMetadata().setDeletionTimestamp(at.toString());
    client.resource(pod).update();
  }

  /** The pod on {@code node} gone: its finalizer dropped (which removes a pod being deleted). */
  private void podGone(String node) {
    Pod pod = client.pods().inNamespace(namespace).withName(name + "-" + node).get();
    if (pod == null) {
      return;
    }
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      pod.getMetadata().setFinalizers(new java.util.ArrayList<>());
      client.resource(pod).update();
    } else {
      client.pods().inNamespace(namespace).withName(name + "-" + node).withGracePeriod(0).delete();
    }
    org.awaitility.Awaitility.await("pod " + name + "-" + node + " gone")
        .atMost(java.time.Duration.ofSeconds(10))
        .until(
            () -> client.pods().inNamespace(namespace).withName(name + "-" + node).get() == null);
  }

  /**
   * The change behind a deletion of {@link #settled}'s pod: the DaemonSet on revision 2, whose
   * image cannot be pulled; the controller has replaced gpu-node-1's old pod with a new one.
   */
  void changedWithNewPodStuckOnFirstNode() {
    DaemonSet ds = client.apps().daemonSets().inNamespace(namespace).withName(name).get();
    ds.getSpec().setTemplate(template(NEW_IMAGE));
    ds.getMetadata().getAnnotations().put(KubeObjects.TEMPLATE_GENERATION, "2");
    client.resource(ds).update();
    revision(NEW_HASH, 2, NEW_IMAGE);
    podGone("gpu-node-1");
    pod("gpu-node-1", NEW_HASH, 2, NEW_IMAGE, false);
    status(3, 2, 1, 2);
  }

  /** What `kubectl rollout undo` leads to: the old template again, every node on it. */
  void rolledBack() {
    DaemonSet ds = client.apps().daemonSets().inNamespace(namespace).withName(name).get();
    ds.getSpec().setTemplate(template(OLD_IMAGE));
    ds.getMetadata().getAnnotations().put(KubeObjects.TEMPLATE_GENERATION, "3");
    ds.getMetadata().setGeneration(3L);
    client.resource(ds).update();
    ControllerRevision old =
        client
            .apps()
            .controllerRevisions()
            .inNamespace(namespace)
            .withName(name + "-" + OLD_HASH)
            .get();
    old.setRevision(3L);
    client.resource(old).update();
    // The controller replaces the pod at once; writing it in place skips a pod-less instant.
    Pod replaced = podObject("gpu-node-1", OLD_HASH, 3, OLD_IMAGE, true);
    replaced.getMetadata().setResourceVersion(null);
    client.resource(replaced).update();
    status(3, 3, 3, 3);
  }

  /** The controller's back-off: gpu-node-1's failing pod is deleted and created anew, now. */
  void failingPodRecreated() {
    client.pods().inNamespace(namespace).withName(name + "-gpu-node-1").withGracePeriod(0).delete();
    Pod fresh = podObject("gpu-node-1", NEW_HASH, 2, NEW_IMAGE, false);
    fresh.getMetadata().setName(name + "-gpu-node-1-again");
    fresh.getMetadata().setCreationTimestamp(Instant.now().toString());
    client.resource(fresh).create();
  }

  /**
   * After a rollback to the old template: the controller has observed it and replaced gpu-node-1's
   * pod with one of the old revision, which cannot start either (say, the registry is down).
   */
  void restoredRevisionStuckOnFirstNode() {
    DaemonSet ds = client.apps().daemonSets().inNamespace(namespace).withName(name).get();
    long generation =
        ds.getMetadata().getGeneration() == null ? 3 : ds.getMetadata().getGeneration();
    // As upstream, the controller renumbers the re-used revision: it is the newest again.
    ControllerRevision old =
        client
            .apps()
            .controllerRevisions()
            .inNamespace(namespace)
            .withName(name + "-" + OLD_HASH)
            .get();
    old.setRevision(3L);
    client.resource(old).update();
    Pod replaced = podObject("gpu-node-1", OLD_HASH, generation, OLD_IMAGE, false);
    replaced.getMetadata().setResourceVersion(null);
    client.resource(replaced).update();
    status(3, 2, 3, 2);
  }

  private DaemonSet daemonSet(String image, long generation) {
    return KubeObjects.daemonSet(
        namespace, name, generation, started.minusSeconds(3600), template(image));
  }

  /** The pod template this rollout's DaemonSet has with {@code image}. */
  PodTemplateSpec template(String image) {
    return new PodTemplateSpecBuilder(KubeObjects.template(name, image))
        .editSpec()
        .addToNodeSelector(GPU_PRESENT, "true")
        .endSpec()
        .build();
  }

  private void revision(String hash, long number, String image) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("template", JSON.convertValue(template(image), Map.class));
    spec.put("$patch", "replace");
    client
        .resource(
            KubeObjects.revision(
                namespace,
                name,
                hash,
                number,
                number == 1 ? started.minusSeconds(3600) : started,
                Map.of(KubeObjects.REVISION_HASH, hash),
                KubeObjects.controlledBy(name, uid),
                Map.of("spec", spec)))
        .create();
  }

  private void pod(String node, String hash, long generation, String image, boolean running) {
    client.resource(podObject(node, hash, generation, image, running)).create();
  }

  private Pod podObject(String node, String hash, long generation, String image, boolean running) {
    PodBuilder pod =
        new PodBuilder()
            .withMetadata(
                KubeObjects.podMetadata(
                    namespace,
                    name,
                    node,
                    running ? started.minusSeconds(3000) : started,
                    hash,
                    generation,
                    KubeObjects.controlledBy(name, uid)))
            .withNewSpec()
            .withNodeName(node)
            .addNewContainer()
            .withName("toolkit")
            .withImage(image)
            .endContainer()
            .endSpec();
    if (running) {
      String since = started.minusSeconds(2900).toString();
      pod.withNewStatus()
          .withPhase("Running")
          .addNewCondition()
          .withType("Ready")
          .withStatus("True")
          .withLastTransitionTime(since)
          .endCondition()
          .addToContainerStatuses(
              new ContainerStatusBuilder(KubeObjects.running(image, since))
                  .withRestartCount(0)
                  .build())
          .endStatus();
    } else {
      pod.withNewStatus()
          .withPhase("Pending")
          .addNewCondition()
          .withType("Ready")
          .withStatus("False")
          .endCondition()
          .addToContainerStatuses(
              new ContainerStatusBuilder(
                      KubeObjects.waiting(
                          image, "ImagePullBackOff", "Back-off pulling image \"" + image + "\""))
                  .withRestartCount(0)
                  .build())
          .endStatus();
    }
    return pod.build();
  }

  /**
   * The controller's status, having observed the DaemonSet's current spec: {@code
   * observedGeneration} is the generation the server gave it (the embedded server, as a real one,
   * starts at 1 on create and raises it on every spec change, whatever the fixture wrote).
   */
  private void status(int desired, int ready, int updated, int available) {
    DaemonSet ds = client.apps().daemonSets().inNamespace(namespace).withName(name).get();
    long observed = ds.getMetadata().getGeneration() == null ? 1 : ds.getMetadata().getGeneration();
    ds.setStatus(
        new io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder()
            .withDesiredNumberScheduled(desired)
            .withCurrentNumberScheduled(desired)
            .withNumberReady(ready)
            .withUpdatedNumberScheduled(updated)
            .withNumberAvailable(available)
            .withNumberUnavailable(desired - available)
            .withNumberMisscheduled(0)
            .withObservedGeneration(observed)
            .build());
    client.resource(ds).updateStatus();
  }
}
