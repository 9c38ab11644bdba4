package dev.stallwatch.cli;

import dev.stallwatch.kube.AdvancedDaemonSet;
import dev.stallwatch.kube.PodTemplates;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.testing.KubeObjects;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSetSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Writes an OpenKruise Advanced DaemonSet rollout into an API server as kruise's controller and the
 * kubelet leave it: the {@code apps.kruise.io/v1beta1} DaemonSet (its kruise fields in {@code
 * rollingUpdate}), its ControllerRevisions (ordinary {@code apps/v1} ones, owned by it, labelled
 * {@code controller-revision-hash}, storing the template as kruise's {@code getPatch} does), its
 * status ({@code status.updateRevision}) and its pods — labelled {@code controller-revision-hash}
 * but, unlike an {@code apps/v1} DaemonSet's, not {@code pod-template-generation}.
 *
 * <p>Revision N runs {@code registry.example/agent:vN} on any node. The embedded cluster serves the
 * kind once {@link #serveCrd} has loaded the structural CRD in {@value #CRD} (served v1beta1, the
 * storage version, and v1alpha1; spec and status kept whole).
 */
public final class AdvancedDaemonSetFixture {

  /** The CRD of {@code daemonsets.apps.kruise.io}, a test resource. */
  public static final String CRD = "kruise/daemonsets.apps.kruise.io.yml";

  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");

  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private final Map<String, Object> rolling = new LinkedHashMap<>();
  private String uid;

  public AdvancedDaemonSetFixture(KubernetesClient client, String namespace, String name) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    rolling.put("rollingUpdateType", "Standard");
  }

  /** Makes the server serve {@code daemonsets.apps.kruise.io}, as a cluster with kruise does. */
  public static void serveCrd(KubernetesClient client) {
    try (InputStream in =
        AdvancedDaemonSetFixture.class.getClassLoader().getResourceAsStream(CRD)) {
      if (in == null) {
        throw new IllegalStateException("test resource " + CRD + " is missing");
      }
      CustomResourceDefinition crd = Serialization.unmarshal(in, CustomResourceDefinition.class);
      client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sets a kruise field of {@code spec.updateStrategy.rollingUpdate} (partition, paused, …). */
  public AdvancedDaemonSetFixture rolling(String field, Object value) {
    rolling.put(field, value);
    return this;
  }

  public String name() {
    return name;
  }

  public String namespace() {
    return namespace;
  }

  public String uid() {
    return uid;
  }

  public String image(int n) {
    return "registry.example/" + name + ":v" + n;
  }

  /** kruise's hash of revision {@code n}: stable, distinct per revision and DaemonSet. */
  public String hash(int n) {
    return "k" + Integer.toHexString((name + "/kruise/" + n).hashCode() & 0x7fffffff) + n;
  }

  public PodTemplateSpec template(int n) {
    return new PodTemplateSpecBuilder(KubeObjects.template(name, image(n))).build();
  }

  private MixedOperation<AdvancedDaemonSet, ?, Resource<AdvancedDaemonSet>> resources() {
    return client.resources(AdvancedDaemonSet.class);
  }

  public AdvancedDaemonSet read() {
    return resources().inNamespace(namespace).withName(name).get();
  }

  /**
   * The Advanced DaemonSet at revision {@code current}, with ControllerRevisions 1..{@code current}
   * and a {@link #status} of {@code desired} nodes.
   */
  public AdvancedDaemonSet daemonSet(int current, int desired, int updated, int available) {
    RollingUpdateDaemonSet rollingUpdate = new RollingUpdateDaemonSet();
    rollingUpdate.setMaxUnavailable(new io.fabric8.kubernetes.api.model.IntOrString(1));
    rolling.forEach(rollingUpdate::setAdditionalProperty);
    AdvancedDaemonSet ds = new AdvancedDaemonSet();
    ds.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace(namespace)
            .withName(name)
            .withCreationTimestamp(CREATED.toString())
            .build());
    ds.setSpec(
        new DaemonSetSpecBuilder()
            .withNewSelector()
            .addToMatchLabels("app", name)
            .endSelector()
            .withTemplate(template(current))
            .withNewUpdateStrategy()
            .withType("RollingUpdate")
            .withRollingUpdate(rollingUpdate)
            .endUpdateStrategy()
            .build());
    AdvancedDaemonSet stored = resources().inNamespace(namespace).resource(ds).create();
    uid = stored.getMetadata().getUid();
    for (int n = 1; n <= current; n++) {
      revision(n);
    }
    return status(current, desired, updated, available);
  }

  /**
   * kruise's status, having observed the current spec, with {@code status.updateRevision} the hash
   * of revision {@code current}; ready = available.
   */
  public AdvancedDaemonSet status(int current, int desired, int updated, int available) {
    AdvancedDaemonSet ds = read();
    long observed = ds.getMetadata().getGeneration() == null ? 1 : ds.getMetadata().getGeneration();
    DaemonSetStatus status =
        new DaemonSetStatusBuilder()
            .withObservedGeneration(observed)
            .withDesiredNumberScheduled(desired)
            .withCurrentNumberScheduled(desired)
            .withNumberReady(available)
            .withUpdatedNumberScheduled(updated)
            .withNumberAvailable(available)
            .withNumberUnavailable(desired - available)
            .withNumberMisscheduled(0)
            .build();
    status.setAdditionalProperty("updateRevision", hash(current));
    ds.setStatus(status);
    return resources().inNamespace(namespace).resource(ds).updateStatus();
  }

  /** Edits the stored Advanced DaemonSet (its spec), as {@code kubectl apply} would. */
  public AdvancedDaemonSet edit(Consumer<AdvancedDaemonSet> change) {
    return resources()
        .inNamespace(namespace)
        .withName(name)
        .edit(
            ds -> {
              change.accept(ds);
              return ds;
            });
  }

  /** The ControllerRevision of revision {@code n}, as kruise's controller writes it. */
  public ControllerRevision revision(int n) {
    return client
        .apps()
        .controllerRevisions()
        .inNamespace(namespace)
        .resource(
            KubeObjects.revision(
                namespace,
                name,
                hash(n),
                n,
                CREATED.plus(Duration.ofMinutes(n - 1L)),
                Map.of("app", name, MetadataKeys.REVISION_HASH_LABEL, hash(n)),
                owner(),
                PodTemplates.revisionData(template(n))))
        .createOr(r -> r.update());
  }

  /** The ControllerRevision of revision {@code n} as stored. */
  public ControllerRevision storedRevision(int n) {
    return client
        .apps()
        .controllerRevisions()
        .inNamespace(namespace)
        .withName(name + "-" + hash(n))
        .get();
  }

  private OwnerReference owner() {
    if (uid == null) {
      throw new IllegalStateException(
          "create the Advanced DaemonSet before its revisions and pods");
    }
    return new OwnerReferenceBuilder()
        .withApiVersion(AdvancedDaemonSet.API_VERSION)
        .withKind("DaemonSet")
        .withName(name)
        .withUid(uid)
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  /** A Running pod of revision {@code n} on {@code node}, Ready since {@code since}. */
  public Pod readyPod(String node, int n, Instant since) {
    return write(
        pod(node, n, since, "Running", true, KubeObjects.running(image(n), since.toString())));
  }

  /** A pod of revision {@code n} that cannot pull its image, as the kubelet reports it. */
  public Pod pullBackOffPod(String node, int n, Instant since) {
    String message = "Back-off pulling image \"" + image(n) + "\"";
    return write(
        pod(
            node,
            n,
            since,
            "Pending",
            false,
            KubeObjects.waiting(image(n), "ImagePullBackOff", message)));
  }

  private Pod write(Pod pod) {
    return client.pods().inNamespace(namespace).resource(pod).createOr(p -> p.update());
  }

  private Pod pod(
      String node, int n, Instant since, String phase, boolean ready, ContainerStatus status) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        // kruise names its pods <daemonset>-<random>; "ads" keeps them apart from the pods of an
        // apps/v1 DaemonSet of the same name written by DaemonSetFixture
        .withName(name + "-ads-" + node)
        .withUid(UUID.randomUUID().toString())
        .withCreationTimestamp(since.toString())
        // kruise labels its pods with the revision hash only: no pod-template-generation
        .addToLabels("app", name)
        .addToLabels(MetadataKeys.REVISION_HASH_LABEL, hash(n))
        .withOwnerReferences(owner())
        .endMetadata()
        .withNewSpecLike(template(n).getSpec())
        .withNodeName(node)
        .endSpec()
        .withNewStatus()
        .withPhase(phase)
        .addNewCondition()
        .withType("PodScheduled")
        .withStatus("True")
        .withLastTransitionTime(since.toString())
        .endCondition()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .withLastTransitionTime(since.toString())
        .endCondition()
        .withContainerStatuses(List.of(status))
        .endStatus()
        .build();
  }
}
