package dev.stallwatch.testcluster;

import dev.stallwatch.testing.KubeObjects;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Writes kubectl-shaped objects of one DaemonSet rollout into a test API server: nodes, the
 * DaemonSet, its ControllerRevisions (owned, labelled, storing the template as upstream does) and
 * its pods in any state. Each revision N runs the image {@code toolkit:vN}.
 */
public final class DaemonSetFixture {

  /** When the fixture's nodes, DaemonSet and revision 0 were created. */
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");

  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private String uid;
  private final Map<Integer, String> hashes = new LinkedHashMap<>();

  public DaemonSetFixture(KubernetesClient client, String namespace, String name) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
  }

  public String name() {
    return name;
  }

  public String namespace() {
    return namespace;
  }

  /** The image of revision {@code n}. */
  public static String image(int n) {
    return "registry.example/toolkit:v" + n;
  }

  /** The hash of revision {@code n} (stable, distinct per revision and DaemonSet). */
  public String hash(int n) {
    return hashes.computeIfAbsent(
        n, k -> Integer.toHexString((name + "/" + k).hashCode() & 0x7fffffff).substring(0, 6) + k);
  }

  /** Ready nodes with these names. */
  public DaemonSetFixture nodes(String... names) {
    for (String node : names) {
      client
          .nodes()
          .resource(KubeObjects.readyNode(node, Map.of("kubernetes.io/hostname", node), CREATED))
          .createOr(n -> n.update());
    }
    return this;
  }

  /** The template of revision {@code n}. */
  public PodTemplateSpec template(int n) {
    return new PodTemplateSpecBuilder(KubeObjects.template(name, image(n)))
        .editSpec()
        .addNewToleration()
        .withOperator("Exists")
        .endToleration()
        .endSpec()
        .build();
  }

  /**
   * The DaemonSet at revision {@code current} (generation = observedGeneration = current), with
   * ControllerRevisions 1..{@code current} and a status of {@code desired} nodes.
   */
  public DaemonSet daemonSet(int current, int desired, int updated, int available) {
    DaemonSet ds =
        new DaemonSetBuilder(
                KubeObjects.daemonSet(namespace, name, current, CREATED, template(current)))
            .withStatus(
                new DaemonSetStatusBuilder()
                    .withObservedGeneration((long) current)
                    .withDesiredNumberScheduled(desired)
                    .withCurrentNumberScheduled(desired)
                    .withNumberReady(available)
                    .withUpdatedNumberScheduled(updated)
                    .withNumberAvailable(available)
                    .withNumberUnavailable(desired - available)
                    .build())
            .build();
    DaemonSet stored =
        client.apps().daemonSets().inNamespace(namespace).resource(ds).createOr(d -> d.update());
    // The server assigns the uid; revisions and pods name it in their owner references.
    uid = stored.getMetadata().getUid();
    for (int n = 1; n <= current; n++) {
      revision(n);
    }
    return stored;
  }

  /** Adds annotations to the DaemonSet. */
  public DaemonSet annotate(Map<String, String> annotations) {
    return client
        .apps()
        .daemonSets()
        .inNamespace(namespace)
        .withName(name)
        .edit(
            ds -> {
              ds.getMetadata().getAnnotations().putAll(annotations);
              return ds;
            });
  }

  /** Applies revision {@code n}'s template to the DaemonSet, as {@code kubectl apply} would. */
  public DaemonSet applyTemplate(int n) {
    return client
        .apps()
        .daemonSets()
        .inNamespace(namespace)
        .withName(name)
        .edit(
            ds -> {
              ds.getSpec().setTemplate(template(n));
              return ds;
            });
  }

  /** The ControllerRevision {@code n}, stored as upstream does: a replace patch of the template. */
  public void revision(int n) {
    client
        .apps()
        .controllerRevisions()
        .inNamespace(namespace)
        .resource(
            KubeObjects.revision(
                namespace,
                name,
                hash(n),
                n,
                CREATED.plusSeconds(n * 60L),
                Map.of("app", name, KubeObjects.REVISION_HASH, hash(n)),
                owner(),
                KubeObjects.revisionData(template(n))))
        .createOr(r -> r.update());
  }

  private OwnerReference owner() {
    if (uid == null) {
      throw new IllegalStateException("create the DaemonSet before its revisions and pods");
    }
    return new OwnerReferenceBuilder(KubeObjects.controlledBy(name, uid))
        .withBlockOwnerDeletion(true)
        .build();
  }

  /**
   * A Running, Ready pod of revision {@code n} on {@code node}; {@code created} dates its
   * conditions and container start (the server sets creationTimestamp).
   */
  public Pod readyPod(String node, int n, Instant created) {
    return pod(
        node, n, created, "Running", true, KubeObjects.running(image(n), created.toString()));
  }

  /** A Pending pod of revision {@code n} whose container waits with {@code reason}. */
  public Pod waitingPod(String node, int n, Instant created, String reason, String message) {
    return pod(node, n, created, "Pending", false, KubeObjects.waiting(image(n), reason, message));
  }

  private Pod pod(
      String node, int n, Instant created, String phase, boolean ready, ContainerStatus status) {
    Pod pod =
        new PodBuilder()
            .withMetadata(
                new ObjectMetaBuilder(
                        KubeObjects.podMetadata(
                            namespace, name, node, created, hash(n), n, owner()))
                    .withUid(UUID.randomUUID().toString())
                    .build())
            .withNewSpecLike(template(n).getSpec())
            .withNodeName(node)
            .endSpec()
            .withNewStatus()
            .withPhase(phase)
            .addNewCondition()
            .withType("PodScheduled")
            .withStatus("True")
            .withLastTransitionTime(created.toString())
            .endCondition()
            .addNewCondition()
            .withType("Ready")
            .withStatus(ready ? "True" : "False")
            .withLastTransitionTime(created.toString())
            .endCondition()
            .withContainerStatuses(List.of(status))
            .endStatus()
            .build();
    // The mock server stamps creationTimestamp itself (on create, and keeps it on update), so
    // pod ages start now: tests use a short --stall-after instead of backdating.
    return client.pods().inNamespace(namespace).resource(pod).createOr(p -> p.update());
  }

  /**
   * The operator's Active RolloutStall for revision {@code n}, held by {@code node} since {@code
   * since}, as the operator writes it; returns its name.
   */
  public String operatorStall(int n, String node, String cause, String since) {
    String stallName = name + "-" + hash(n);
    var stall =
        io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
            "{\"apiVersion\": \"stallwatch.dev/v1alpha1\", \"kind\": \"RolloutStall\","
                + " \"metadata\": {\"name\": \""
                + stallName
                + "\", \"namespace\": \""
                + namespace
                + "\"}, \"spec\": {\"daemonSet\": \""
                + name
                + "\", \"revision\": \""
                + hash(n)
                + "\"}, \"status\": {\"phase\": \"Active\", \"node\": \""
                + node
                + "\", \"cause\": \""
                + cause
                + "\", \"stalledSince\": \""
                + since
                + "\", \"nodes\": [{\"name\": \""
                + node
                + "\", \"since\": \""
                + since
                + "\"}]}}",
            dev.stallwatch.crd.RolloutStall.class);
    var stalls = client.resources(dev.stallwatch.crd.RolloutStall.class).inNamespace(namespace);
    stalls.resource(stall).create();
    if (stalls.withName(stallName).get().getStatus() == null) {
      stalls.resource(stall).updateStatus();
    }
    return stallName;
  }
}
