package dev.stallwatch.realcluster;

import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * One story on the real cluster: a namespace and nodes of its own (labelled {@code
 * stallwatch.dev/scenario=NAME}), so DaemonSets of different tests never meet.
 */
public final class Scenario {
  static final String LABEL = "stallwatch.dev/scenario";

  /**
   * Image prefix kwok never "pulls": its Stages keep such pods in ErrImagePull/ImagePullBackOff.
   */
  public static final String UNPULLABLE = "registry.invalid/";

  /** Generous: the real controllers react within seconds, but CI machines are slow. */
  public static final Duration WAIT = Duration.ofMinutes(3);

  final RealCluster cluster;
  final String name;
  final List<String> nodes;

  private Scenario(RealCluster cluster, String name, List<String> nodes) {
    this.cluster = cluster;
    this.name = name;
    this.nodes = nodes;
  }

  /** A namespace {@code name} and {@code nodes} Ready kwok nodes {@code name-0}, … */
  public static Scenario create(RealCluster cluster, String name, int nodes, int gpusPerNode) {
    createOnce(
        cluster, new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build());
    List<String> names = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      String node = name + "-" + i;
      names.add(node);
      Map<String, Quantity> resources = new LinkedHashMap<>();
      resources.put("cpu", new Quantity("8"));
      resources.put("memory", new Quantity("32Gi"));
      resources.put("pods", new Quantity("110"));
      if (gpusPerNode > 0) {
        resources.put("nvidia.com/gpu", new Quantity(String.valueOf(gpusPerNode)));
      }
      createOnce(
          cluster,
          new NodeBuilder()
              .withNewMetadata()
              .withName(node)
              .addToLabels(LABEL, name)
              .addToLabels("kubernetes.io/hostname", node)
              .addToLabels("kubernetes.io/os", "linux")
              .addToLabels("type", "kwok")
              .addToAnnotations("kwok.x-k8s.io/node", "fake")
              .endMetadata()
              .withNewStatus()
              .withAllocatable(resources)
              .withCapacity(resources)
              .endStatus()
              .build());
    }
    Scenario scenario = new Scenario(cluster, name, List.copyOf(names));
    await("nodes of " + name + " Ready")
        .atMost(WAIT)
        .until(() -> scenario.nodes.stream().allMatch(scenario::nodeReady));
    return scenario;
  }

  public String namespace() {
    return name;
  }

  public List<String> nodes() {
    return nodes;
  }

  /** The status of {@code node}'s condition of {@code type}, or null when it has none. */
  String conditionStatus(String node, String type) {
    var n = cluster.admin().nodes().withName(node).get();
    return n.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .map(io.fabric8.kubernetes.api.model.NodeCondition::getStatus)
        .findFirst()
        .orElse(null);
  }

  boolean nodeReady(String node) {
    Node n = cluster.admin().nodes().withName(node).get();
    return n != null
        && n.getStatus() != null
        && n.getStatus().getConditions() != null
        && n.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /**
   * A RollingUpdate DaemonSet (maxUnavailable 1) of one container {@code image} on this scenario's
   * nodes, not yet created.
   */
  public DaemonSetBuilder newDaemonSet(String ds, String image) {
    return new DaemonSetBuilder()
        .withNewMetadata()
        .withName(ds)
        .withNamespace(name)
        .endMetadata()
        .withNewSpec()
        .withNewSelector()
        .addToMatchLabels("app", ds)
        .endSelector()
        .withNewUpdateStrategy()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        .withNewMaxUnavailable(1)
        .endRollingUpdate()
        .endUpdateStrategy()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", ds)
        .endMetadata()
        .withNewSpec()
        .addToNodeSelector(LABEL, name)
        .addNewContainer()
        .withName(ds)
        .withImage(image)
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec();
  }

  /**
   * A RollingUpdate DaemonSet (maxUnavailable 1) of one container {@code image} on this scenario's
   * nodes, changed by {@code edit}; created, then awaited until every node runs it.
   */
  public DaemonSet rollOut(String ds, String image, UnaryOperator<DaemonSetBuilder> edit) {
    DaemonSetBuilder builder = newDaemonSet(ds, image);
    createOnce(cluster, edit.apply(builder).build());
    awaitComplete(ds);
    return daemonSet(ds);
  }

  public DaemonSet daemonSet(String ds) {
    return cluster.admin().apps().daemonSets().inNamespace(name).withName(ds).get();
  }

  /** Waits until the real controller reports every node updated and available. */
  public void awaitComplete(String ds) {
    await(ds + " rolled out on " + nodes.size() + " nodes")
        .atMost(WAIT)
        .until(
            () -> {
              DaemonSet d = daemonSet(ds);
              var s = d.getStatus();
              return s != null
                  && s.getObservedGeneration() != null
                  && s.getObservedGeneration() >= d.getMetadata().getGeneration()
                  && s.getDesiredNumberScheduled() == nodes.size()
                  && n(s.getUpdatedNumberScheduled()) == nodes.size()
                  && n(s.getNumberAvailable()) == nodes.size();
            });
  }

  private static int n(Integer i) {
    return i == null ? 0 : i;
  }

  /** The DaemonSet's pods, as the real cluster has them. */
  public List<Pod> pods(String ds) {
    return cluster.admin().pods().inNamespace(name).withLabel("app", ds).list().getItems();
  }

  public List<RolloutStall> stalls() {
    return cluster.admin().resources(RolloutStall.class).inNamespace(name).list().getItems();
  }

  /** Waits for the one Active RolloutStall of this namespace. */
  public RolloutStall awaitActiveStall() {
    return await("an Active RolloutStall in " + name)
        .atMost(WAIT)
        .until(
            () ->
                stalls().stream()
                    .filter(s -> s.getStatus() != null && s.getStatus().active())
                    .findFirst()
                    .orElse(null),
            s -> s != null);
  }

  /** Waits until no RolloutStall of this namespace is Active (and at least one exists). */
  public List<RolloutStall> awaitResolved() {
    return await("every RolloutStall in " + name + " Resolved")
        .atMost(WAIT)
        .until(
            this::stalls,
            all ->
                !all.isEmpty()
                    && all.stream()
                        .allMatch(s -> s.getStatus() != null && !s.getStatus().active()));
  }

  /** Events with {@code reason} about {@code object} in this namespace. */
  public List<Event> events(String object, String reason) {
    return cluster.admin().v1().events().inNamespace(name).list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .filter(e -> object.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  /** Taints a node as an administrator would ({@code kubectl taint}). */
  public void taint(String node, String key, String value, String effect) {
    Conflicts.retry(
        () ->
            cluster
                .admin()
                .nodes()
                .withName(node)
                .edit(
                    n -> {
                      List<Taint> taints =
                          new ArrayList<>(
                              n.getSpec().getTaints() == null
                                  ? List.of()
                                  : n.getSpec().getTaints());
                      taints.add(new Taint(effect, key, null, value));
                      n.getSpec().setTaints(taints);
                      return n;
                    }));
  }

  /** Labels a node; with kwok's Stages, {@code stallwatch.dev/kwok-node-state} steers it. */
  public void label(String node, String key, String value) {
    labels(node, Map.of(key, value));
  }

  /** Adds {@code labels} to a node in one edit ({@code kubectl label}). */
  public void labels(String node, Map<String, String> labels) {
    Conflicts.retry(
        () ->
            cluster
                .admin()
                .nodes()
                .withName(node)
                .edit(
                    n -> {
                      n.getMetadata().getLabels().putAll(labels);
                      return n;
                    }));
  }

  /**
   * Creates {@code object}, or finds it already there: a create whose answer was lost (a GOAWAY, a
   * reset connection) is retried by the client and then meets the object its first try made.
   */
  static <T extends io.fabric8.kubernetes.api.model.HasMetadata> T createOnce(
      RealCluster cluster, T object) {
    try {
      return cluster.admin().resource(object).create();
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      return cluster.admin().resource(object).get();
    }
  }
}
