package dev.stallwatch.testing;

import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.sim.ScenarioObjects;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one place tests build the objects of a DaemonSet rollout as the controllers leave them: a
 * Ready node, the DaemonSet, its pod template, the controller owner reference, a
 * ControllerRevision, a pod's metadata and its container's status. {@link DaemonSetFixture}, which
 * writes whole rollouts into an API server, builds its objects here.
 */
public final class KubeObjects {
  /** The container every test template runs. */
  public static final String CONTAINER = "toolkit";

  private KubeObjects() {}

  /**
   * A node as the kubelet reports it ({@link ScenarioObjects#node}: capacity, hostname and os
   * labels, no GPUs) with these labels besides, created and Ready since {@code created}.
   */
  public static Node readyNode(String name, Map<String, String> labels, Instant created) {
    Node node = ScenarioObjects.node(name, 0);
    node.getMetadata().getLabels().putAll(labels);
    node.getMetadata().setCreationTimestamp(created.toString());
    for (NodeCondition condition : node.getStatus().getConditions()) {
      condition.setLastHeartbeatTime(created.toString());
      condition.setLastTransitionTime(created.toString());
    }
    return node;
  }

  /**
   * A node of only its metadata: name, {@code resourceVersion} and creation time, as a cache test
   * puts it in and reads it back (the version tells one state of the node from the next).
   */
  public static Node versionedNode(String name, String resourceVersion, String created) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withResourceVersion(resourceVersion)
        .withCreationTimestamp(created)
        .endMetadata()
        .build();
  }

  /**
   * A pod template labelled {@code app: <app>} with one container {@value #CONTAINER} running
   * {@code image}; callers add their scheduling (node selector, tolerations) with a builder on it.
   */
  public static PodTemplateSpec template(String app, String image) {
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .addToLabels("app", app)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName(CONTAINER)
        .withImage(image)
        .endContainer()
        .endSpec()
        .build();
  }

  /**
   * A RollingUpdate (maxUnavailable 1) DaemonSet selecting {@code app: <name>}, at {@code
   * generation} (also its template-generation annotation), without a status.
   */
  public static DaemonSet daemonSet(
      String namespace, String name, long generation, Instant created, PodTemplateSpec template) {
    return new DaemonSetBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withGeneration(generation)
        .withCreationTimestamp(created.toString())
        .addToAnnotations(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION, String.valueOf(generation))
        .endMetadata()
        .withNewSpec()
        .withNewSelector()
        .addToMatchLabels("app", name)
        .endSelector()
        .withTemplate(template)
        .withNewUpdateStrategy()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        .withNewMaxUnavailable(1)
        .endRollingUpdate()
        .endUpdateStrategy()
        .endSpec()
        .build();
  }

  /** The owner reference the DaemonSet controller puts on its pods and revisions. */
  public static OwnerReference controlledBy(String daemonSet, String uid) {
    return new OwnerReferenceBuilder()
        .withApiVersion("apps/v1")
        .withKind("DaemonSet")
        .withName(daemonSet)
        .withUid(uid)
        .withController(true)
        .build();
  }

  /**
   * The ControllerRevision {@code <daemonSet>-<hash>} number {@code number} holding {@code data}.
   */
  public static ControllerRevision revision(
      String namespace,
      String daemonSet,
      String hash,
      long number,
      Instant created,
      Map<String, String> labels,
      OwnerReference owner,
      Map<String, Object> data) {
    return new ControllerRevisionBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(daemonSet + "-" + hash)
        .withCreationTimestamp(created.toString())
        .withLabels(new LinkedHashMap<>(labels))
        .withOwnerReferences(owner)
        .endMetadata()
        .withRevision(number)
        .withData(data)
        .build();
  }

  /**
   * The metadata the DaemonSet controller gives its pod on {@code node}: named {@code
   * <daemonSet>-<node>}, labelled with the app, revision hash and template generation, owned.
   */
  public static ObjectMeta podMetadata(
      String namespace,
      String daemonSet,
      String node,
      Instant created,
      String hash,
      long generation,
      OwnerReference owner) {
    return new ObjectMetaBuilder()
        .withNamespace(namespace)
        .withName(daemonSet + "-" + node)
        .withCreationTimestamp(created.toString())
        .addToLabels("app", daemonSet)
        .addToLabels(MetadataKeys.REVISION_HASH_LABEL, hash)
        .addToLabels(MetadataKeys.TEMPLATE_GENERATION_LABEL, String.valueOf(generation))
        .withOwnerReferences(owner)
        .build();
  }

  /**
   * The {@value #CONTAINER} container running {@code image}, Ready, started at {@code startedAt}.
   */
  public static ContainerStatus running(String image, String startedAt) {
    return new ContainerStatusBuilder()
        .withName(CONTAINER)
        .withImage(image)
        .withReady(true)
        .withRestartCount(0)
        .withNewState()
        .withNewRunning()
        .withStartedAt(startedAt)
        .endRunning()
        .endState()
        .build();
  }

  /** The {@value #CONTAINER} container of {@code image} waiting with {@code reason}. */
  public static ContainerStatus waiting(String image, String reason, String message) {
    return new ContainerStatusBuilder()
        .withName(CONTAINER)
        .withImage(image)
        .withReady(false)
        .withRestartCount(0)
        .withNewState()
        .withNewWaiting()
        .withReason(reason)
        .withMessage(message)
        .endWaiting()
        .endState()
        .build();
  }
}
