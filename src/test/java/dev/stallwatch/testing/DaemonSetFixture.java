package dev.stallwatch.testing;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.kube.PodTemplates;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.awaitility.Awaitility;

/**
 * The one test fixture that writes a DaemonSet rollout into an API server as the DaemonSet
 * controller and the kubelet leave it: nodes, the DaemonSet, its ControllerRevisions (owned,
 * labelled, storing the template as upstream's {@code getPatch} does) and its pods in any state.
 * The objects themselves come from {@link KubeObjects}.
 *
 * <p>Two looks: {@link #DaemonSetFixture(KubernetesClient, String, String) the plain one}, where
 * revision N runs {@code registry.example/toolkit:vN} on any node (it tolerates every taint), and
 * {@link #seed the seed story's}, where revision 1 runs {@link Seed#OLD_IMAGE}, revision 2 {@link
 * Seed#NEW_IMAGE} (which cannot be pulled) on the {@link Seed#NODES GPU nodes}; the seed story's
 * steps ({@link #stalledOnFirstNode}, {@link #rolledBack}, …) are written with the same methods.
 */
public final class DaemonSetFixture {

  /** The seed story: the NVIDIA container toolkit whose new image cannot be pulled. */
  public static final class Seed {
    public static final String NS = "gpu-operator";
    public static final String DS = "nvidia-container-toolkit";
    public static final String OLD_IMAGE = "nvcr.io/nvidia/k8s/container-toolkit:v1.14.3";
    public static final String NEW_IMAGE = "nvcr.io/nvidia/k8s/container-toolkit:v1.14.9-typo";
    public static final String OLD_HASH = "5d4b9c7f8";
    public static final String NEW_HASH = "7f6c8d9b4";

    /** The nodes the seed story runs on; its template selects them. */
    public static final String[] NODES = {"gpu-node-1", "gpu-node-2", "gpu-node-3"};

    static final String GPU_PRESENT = "nvidia.com/gpu.present";

    private Seed() {}
  }

  /** Holds a pod being deleted, as a kubelet that has not confirmed the deletion does. */
  public static final String HOLD = "stallwatch.dev/test-hold";

  private static final Toleration TOLERATE_ALL =
      new TolerationBuilder().withOperator("Exists").build();

  /** When a plain fixture's DaemonSet was created. */
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");

  private final KubernetesClient client;
  private final String namespace;
  private final String name;
  private final Instant created;
  private final IntFunction<String> images;
  private final IntFunction<String> hashes;
  private Map<String, String> nodeSelector = Map.of();
  private List<Toleration> tolerations = List.of(TOLERATE_ALL);
  private Map<String, String> nodeLabels = Map.of();
  private String uid;

  /** A plain fixture: revision N runs {@code registry.example/toolkit:vN} on any node. */
  public DaemonSetFixture(KubernetesClient client, String namespace, String name) {
    this(client, namespace, name, CREATED, DaemonSetFixture::plainImage, n -> plainHash(name, n));
  }

  private DaemonSetFixture(
      KubernetesClient client,
      String namespace,
      String name,
      Instant created,
      IntFunction<String> images,
      IntFunction<String> hashes) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
    this.created = created;
    this.images = images;
    this.hashes = hashes;
  }

  /**
   * The seed story's fixture for {@code namespace/name}: its rollout to revision 2 began at {@code
   * started} (the DaemonSet and revision 1 are an hour older).
   */
  public static DaemonSetFixture seed(
      KubernetesClient client, String namespace, String name, Instant started) {
    Map<String, String> gpu = Map.of(Seed.GPU_PRESENT, "true");
    return new DaemonSetFixture(
            client,
            namespace,
            name,
            started.minus(Duration.ofHours(1)),
            DaemonSetFixture::seedImage,
            DaemonSetFixture::seedHash)
        .scheduling(gpu, List.of())
        .nodeLabels(gpu);
  }

  /**
   * This fixture's templates select nodes by {@code nodeSelector} and tolerate {@code tolerations}
   * (instead of any node and every taint); call before writing the DaemonSet.
   */
  public DaemonSetFixture scheduling(
      Map<String, String> nodeSelector, List<Toleration> tolerations) {
    this.nodeSelector = Map.copyOf(nodeSelector);
    this.tolerations = List.copyOf(tolerations);
    return this;
  }

  /** This fixture's {@link #nodes} carry {@code labels} besides their hostname. */
  public DaemonSetFixture nodeLabels(Map<String, String> labels) {
    this.nodeLabels = Map.copyOf(labels);
    return this;
  }

  private static String plainImage(int n) {
    return "registry.example/toolkit:v" + n;
  }

  private static String plainHash(String name, int n) {
    return Integer.toHexString((name + "/" + n).hashCode() & 0x7fffffff).substring(0, 6) + n;
  }

  private static String seedImage(int n) {
    return switch (n) {
      case 1 -> Seed.OLD_IMAGE;
      case 2 -> Seed.NEW_IMAGE;
      default -> throw new IllegalArgumentException("the seed story has revisions 1 and 2: " + n);
    };
  }

  private static String seedHash(int n) {
    return switch (n) {
      case 1 -> Seed.OLD_HASH;
      case 2 -> Seed.NEW_HASH;
      default -> throw new IllegalArgumentException("the seed story has revisions 1 and 2: " + n);
    };
  }

  public String name() {
    return name;
  }

  public String namespace() {
    return namespace;
  }

  /** The image revision {@code n} runs. */
  public String image(int n) {
    return images.apply(n);
  }

  /** The hash of revision {@code n} (stable, distinct per revision and DaemonSet). */
  public String hash(int n) {
    return hashes.apply(n);
  }

  /**
   * Ready nodes with these names, labelled with their hostname and the {@link #nodeLabels} (in the
   * seed story, as GPU nodes), Ready since a day before the DaemonSet.
   */
  public DaemonSetFixture nodes(String... names) {
    for (String node : names) {
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put("kubernetes.io/hostname", node);
      labels.putAll(nodeLabels);
      client
          .nodes()
          .resource(KubeObjects.readyNode(node, labels, created.minus(Duration.ofDays(1))))
          .createOr(n -> n.update());
    }
    return this;
  }

  /**
   * The template of revision {@code n}, with this fixture's {@link #scheduling}: the plain one
   * tolerates every taint, the seed story's selects the GPU nodes.
   */
  public PodTemplateSpec template(int n) {
    PodTemplateSpecBuilder template =
        new PodTemplateSpecBuilder(KubeObjects.template(name, image(n)));
    if (!nodeSelector.isEmpty()) {
      template.editSpec().addToNodeSelector(nodeSelector).endSpec();
    }
    if (!tolerations.isEmpty()) {
      template.editSpec().addAllToTolerations(tolerations).endSpec();
    }
    return template.build();
  }

  /**
   * The DaemonSet at revision {@code current} (template generation {@code current}), with
   * ControllerRevisions 1..{@code current} and a {@link #status} of {@code desired} nodes.
   */
  public DaemonSet daemonSet(int current, int desired, int updated, int available) {
    DaemonSet stored =
        client
            .apps()
            .daemonSets()
            .inNamespace(namespace)
            .resource(KubeObjects.daemonSet(namespace, name, current, created, template(current)))
            .createOr(d -> d.update());
    // The server assigns the uid; revisions and pods name it in their owner references.
    uid = stored.getMetadata().getUid();
    for (int n = 1; n <= current; n++) {
      revision(n);
    }
    return status(desired, updated, available);
  }

  /**
   * The controller's status, having observed the DaemonSet's current spec: {@code
   * observedGeneration} is the generation the server gave it (an API server starts at 1 on create
   * and raises it on every spec change, whatever the fixture wrote); ready = available. Its
   * conditions are kept, as the controller keeps them (it writes a copy of the object it read).
   */
  public DaemonSet status(int desired, int updated, int available) {
    DaemonSet ds = read();
    long observed = ds.getMetadata().getGeneration() == null ? 1 : ds.getMetadata().getGeneration();
    var conditions = ds.getStatus() == null ? null : ds.getStatus().getConditions();
    ds.setStatus(
        new DaemonSetStatusBuilder()
            .withObservedGeneration(observed)
            .withDesiredNumberScheduled(desired)
            .withCurrentNumberScheduled(desired)
            .withNumberReady(available)
            .withUpdatedNumberScheduled(updated)
            .withNumberAvailable(available)
            .withNumberUnavailable(desired - available)
            .withNumberMisscheduled(0)
            .withConditions(conditions)
            .build());
    return client.resource(ds).updateStatus();
  }

  /**
   * {@code spec.minReadySeconds} set, and the controller's status of {@code desired} nodes, all
   * updated and available, having observed it.
   */
  public DaemonSet minReadySeconds(int seconds, int desired) {
    edit(ds -> ds.getSpec().setMinReadySeconds(seconds));
    return status(desired, desired, desired);
  }

  /**
   * The pod on {@code node} turning Ready, or not, at {@code at}, as its kubelet reports a probe, a
   * crashed container or its own restart: the Ready condition and every container's ready flag.
   */
  public Pod podReady(String node, boolean ready, Instant at) {
    Pod pod = client.pods().inNamespace(namespace).withName(podName(node)).get();
    for (var condition : pod.getStatus().getConditions()) {
      if ("Ready".equals(condition.getType())) {
        condition.setStatus(ready ? "True" : "False");
        condition.setReason(ready ? null : "ContainersNotReady");
        condition.setLastTransitionTime(at.toString());
      }
    }
    pod.getStatus().getContainerStatuses().forEach(c -> c.setReady(ready));
    return client.resource(pod).updateStatus();
  }

  /** Adds annotations to the DaemonSet. */
  public DaemonSet annotate(Map<String, String> annotations) {
    return edit(ds -> ds.getMetadata().getAnnotations().putAll(annotations));
  }

  /**
   * Applies revision {@code n}'s template to the DaemonSet, as {@code kubectl apply} would (the
   * server raises the template generation).
   */
  public DaemonSet applyTemplate(int n) {
    return edit(ds -> ds.getSpec().setTemplate(template(n)));
  }

  private DaemonSet edit(Consumer<DaemonSet> change) {
    return client
        .apps()
        .daemonSets()
        .inNamespace(namespace)
        .withName(name)
        .edit(
            ds -> {
              change.accept(ds);
              return ds;
            });
  }

  /**
   * The ControllerRevision of revision {@code n}, as the controller writes it: labelled with the
   * template's labels and the hash, owned, its data a replace patch of the template.
   */
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
                created.plus(Duration.ofMinutes(n - 1L)),
                Map.of("app", name, MetadataKeys.REVISION_HASH_LABEL, hash(n)),
                owner(),
                PodTemplates.revisionData(template(n))))
        .createOr(r -> r.update());
  }

  /**
   * Revision {@code n} renumbered {@code number}, as the controller does when the DaemonSet's
   * template is an old revision's again: that revision is the newest again.
   */
  public void renumber(int n, long number) {
    ControllerRevision revision =
        client
            .apps()
            .controllerRevisions()
            .inNamespace(namespace)
            .withName(name + "-" + hash(n))
            .get();
    revision.setRevision(number);
    client.resource(revision).update();
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
   * A Running pod of revision {@code n} on {@code node}, Ready since {@code since} (the server sets
   * its creationTimestamp); it replaces the pod on that node.
   */
  public Pod readyPod(String node, int n, Instant since) {
    return write(
        pod(node, n, since, "Running", true, KubeObjects.running(image(n), since.toString())));
  }

  /** A Pending pod of revision {@code n} whose container waits with {@code reason}. */
  public Pod waitingPod(String node, int n, Instant since, String reason, String message) {
    return write(
        pod(node, n, since, "Pending", false, KubeObjects.waiting(image(n), reason, message)));
  }

  /** A pod of revision {@code n} that cannot pull its image, as the kubelet reports it. */
  public Pod pullBackOffPod(String node, int n, Instant since) {
    return write(pullBackOff(node, n, since));
  }

  private Pod pullBackOff(String node, int n, Instant since) {
    String message = "Back-off pulling image \"" + image(n) + "\"";
    return pod(
        node,
        n,
        since,
        "Pending",
        false,
        KubeObjects.waiting(image(n), "ImagePullBackOff", message));
  }

  private Pod write(Pod pod) {
    return client.pods().inNamespace(namespace).resource(pod).createOr(p -> p.update());
  }

  private Pod pod(
      String node, int n, Instant since, String phase, boolean ready, ContainerStatus status) {
    return new PodBuilder()
        .withMetadata(
            new ObjectMetaBuilder(
                    KubeObjects.podMetadata(
                        namespace, name, node, since, hash(n), templateGeneration(n), owner()))
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

  /**
   * The {@code pod-template-generation} the controller gives a pod of revision {@code n}: the
   * DaemonSet's template generation when revision {@code n} is its template now (a pod created now,
   * also after a rollback), else {@code n} (a pod created when revision n was new).
   */
  private long templateGeneration(int n) {
    DaemonSet ds = read();
    if (ds != null
        && PodTemplates.sameTemplate(ds.getSpec().getTemplate(), template(n))
        && ds.getMetadata().getAnnotations() != null) {
      String value =
          ds.getMetadata().getAnnotations().get(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION);
      if (value != null) {
        return Long.parseLong(value);
      }
    }
    return n;
  }

  private DaemonSet read() {
    return client.apps().daemonSets().inNamespace(namespace).withName(name).get();
  }

  private String podName(String node) {
    return name + "-" + node;
  }

  /**
   * The pod on {@code node} being deleted, its {@code deletionTimestamp} at {@code at}; a finalizer
   * ({@link #HOLD}) keeps it (the mock server removes an object without one at once).
   */
  public void podDeleting(String node, Instant at) {
    Pod pod = client.pods().inNamespace(namespace).withName(podName(node)).get();
    pod.getMetadata().setFinalizers(new ArrayList<>(List.of(HOLD)));
    client.resource(pod).update();
    pod = client.pods().inNamespace(namespace).withName(podName(node)).get();
    // PUT, not a patch: the client leaves deletionTimestamp out of the patches it computes.
    pod.getMetadata().setDeletionTimestamp(at.toString());
    client.resource(pod).update();
  }

  /** The pod on {@code node} gone: deleted, or its finalizer dropped if it is being deleted. */
  public void podGone(String node) {
    Pod pod = client.pods().inNamespace(namespace).withName(podName(node)).get();
    if (pod == null) {
      return;
    }
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      pod.getMetadata().setFinalizers(new ArrayList<>());
      client.resource(pod).update();
    } else {
      client.pods().inNamespace(namespace).withName(podName(node)).withGracePeriod(0).delete();
    }
    Awaitility.await("pod " + podName(node) + " gone")
        .atMost(Duration.ofSeconds(10))
        .until(() -> client.pods().inNamespace(namespace).withName(podName(node)).get() == null);
  }

  // The seed story, on the seed fixture's nodes (Seed.NODES), from `started`.

  private Instant started() {
    return created.plus(Duration.ofHours(1));
  }

  /** Ready since long before the rollout began (pods of revision 1). */
  private Instant readyLongAgo() {
    return started().minusSeconds(2900);
  }

  /** Revision 2 rolled out to gpu-node-1, where its image cannot be pulled. */
  public DaemonSetFixture stalledOnFirstNode() {
    daemonSet(2, 3, 1, 2);
    pullBackOffPod(Seed.NODES[0], 2, started());
    readyPod(Seed.NODES[1], 1, readyLongAgo());
    readyPod(Seed.NODES[2], 1, readyLongAgo());
    return this;
  }

  /** Revision 1 rolled out everywhere: each of the three nodes runs a Ready pod of it. */
  public DaemonSetFixture settled() {
    daemonSet(1, 3, 3, 3);
    for (String node : Seed.NODES) {
      readyPod(node, 1, readyLongAgo());
    }
    return this;
  }

  /**
   * The change behind a deletion of {@link #settled}'s pod: the DaemonSet on revision 2, whose
   * image cannot be pulled; the controller has replaced gpu-node-1's old pod with a new one.
   */
  public void changedWithNewPodStuckOnFirstNode() {
    applyTemplate(2);
    revision(2);
    podGone(Seed.NODES[0]);
    pullBackOffPod(Seed.NODES[0], 2, started());
    status(3, 1, 2);
  }

  /** What `kubectl rollout undo` leads to: the old template again, every node on it. */
  public void rolledBack() {
    applyTemplate(1);
    renumber(1, 3);
    // The controller replaces the pod at once; writing it in place skips a pod-less instant.
    readyPod(Seed.NODES[0], 1, readyLongAgo());
    status(3, 3, 3);
  }

  /** The controller's back-off: gpu-node-1's failing pod is deleted and created anew. */
  public void failingPodRecreated() {
    client
        .pods()
        .inNamespace(namespace)
        .withName(podName(Seed.NODES[0]))
        .withGracePeriod(0)
        .delete();
    Pod fresh = pullBackOff(Seed.NODES[0], 2, started());
    fresh.getMetadata().setName(podName(Seed.NODES[0]) + "-again");
    client.resource(fresh).create();
  }

  /**
   * After a rollback to the old template: the controller has observed it and replaced gpu-node-1's
   * pod with one of the old revision, which cannot start either (say, the registry is down).
   */
  public void restoredRevisionStuckOnFirstNode() {
    renumber(1, 3);
    pullBackOffPod(Seed.NODES[0], 1, started());
    status(3, 3, 2);
  }

  /**
   * The operator's Active RolloutStall for revision {@code n}, held by {@code node} since {@code
   * since}, as the operator writes it; returns its name.
   */
  public String operatorStall(int n, String node, String cause, String since) {
    String stallName = name + "-" + hash(n);
    RolloutStall stall =
        Serialization.unmarshal(
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
            RolloutStall.class);
    var stalls = client.resources(RolloutStall.class).inNamespace(namespace);
    stalls.resource(stall).create();
    if (stalls.withName(stallName).get().getStatus() == null) {
      stalls.resource(stall).updateStatus();
    }
    return stallName;
  }
}
