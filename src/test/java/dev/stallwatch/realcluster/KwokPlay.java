package dev.stallwatch.realcluster;

import static org.awaitility.Awaitility.await;

import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.sim.Scenario;
import dev.stallwatch.sim.ScenarioActions;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * A simulator scenario played on the real cluster: the scenario's own nodes (as kwok nodes), its
 * pods and its DaemonSet, with images renamed so kwok acts as the scenario's kubelet script does
 * ({@link KwokCues}); then the scenario's events, each through {@link ScenarioActions} — the same
 * code the simulator runs — and after each the real controllers are left to settle. The verdict
 * comes from the production snapshot code and the analyzer, judged {@link
 * SimulatorPlay#JUDGED_AFTER} after the last event as the simulator's play is.
 *
 * <p>Scenarios share node and namespace names, and the cluster is shared by every real-cluster
 * test, so everything is prefixed {@code svr-<scenario>-} and the DaemonSet's template selects the
 * scenario's nodes by the label {@value #LABEL}; names are mapped back for comparison.
 */
final class KwokPlay implements AutoCloseable {

  static final Duration WAIT = dev.stallwatch.realcluster.Scenario.WAIT;
  static final String LABEL = dev.stallwatch.realcluster.Scenario.LABEL;

  static final String NOT_READY_TAINT = "node.kubernetes.io/not-ready";
  static final String UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";

  /**
   * @param updateOrder the scenario's nodes in the order the real controller created pods on them
   *     after the first event
   * @param touchedNodes the nodes the scenario's events act on
   */
  record Result(PlayOutcome outcome, List<String> updateOrder, Set<String> touchedNodes) {}

  private final RealCluster cluster;
  private final KubernetesClient admin;
  private final Scenario scenario;
  private final String prefix;
  private final KwokCues cues;
  private final ClusterStillness stillness;
  private final Set<String> touched = new TreeSet<>();

  KwokPlay(RealCluster cluster, Scenario scenario) {
    this.cluster = cluster;
    this.admin = cluster.admin();
    this.scenario = scenario;
    this.prefix = "svr-" + scenario.name();
    this.cues = new KwokCues(scenario.kubeletScript());
    this.stillness = new ClusterStillness(admin, LABEL + "=" + prefix);
  }

  String realName(String name) {
    return prefix + "-" + name;
  }

  String scenarioName(String real) {
    return real.startsWith(prefix + "-") ? real.substring(prefix.length() + 1) : real;
  }

  Result play() {
    DaemonSet ds = scenario.daemonSets().get(0);
    String ns = realName(ds.getMetadata().getNamespace());
    String name = ds.getMetadata().getName();
    createNamespaces();
    createNodes();
    for (Pod pod : scenario.pods()) {
      pod.getMetadata().setNamespace(realName(pod.getMetadata().getNamespace()));
      pod.getSpec().setNodeName(realName(pod.getSpec().getNodeName()));
      cues.translate(pod.getSpec(), exists(pod.getMetadata().getNamespace()));
      admin.resource(pod).create();
    }
    ds.getMetadata().setNamespace(ns);
    forKwok(ds.getSpec().getTemplate(), ns);
    admin.resource(ds).create();
    awaitRolledOut(ns, name);
    stillness.await(ns);

    Instant lastEvent;
    List<String> created = new ArrayList<>();
    try (Watch ignored = watchCreations(ns, created)) {
      Actions actions = new Actions();
      lastEvent = Instant.now();
      for (Scenario.Event e : scenario.events()) {
        e.action().accept(actions);
        lastEvent = Instant.now();
        stillness.await(ns);
      }
    }
    DaemonSet real = admin.apps().daemonSets().inNamespace(ns).withName(name).get();
    var verdict =
        RolloutAnalyzer.analyze(
            Snapshots.of(
                real,
                admin.pods().inNamespace(ns).list().getItems(),
                admin.nodes().list().getItems(),
                admin.apps().controllerRevisions().inNamespace(ns).list().getItems()),
            lastEvent.plus(SimulatorPlay.JUDGED_AFTER),
            AnalyzerSettings.DEFAULTS);
    List<String> order;
    synchronized (created) {
      order = created.stream().map(this::scenarioName).distinct().toList();
    }
    return new Result(
        PlayOutcome.of(verdict, real, this::scenarioName), order, Set.copyOf(touched));
  }

  private void createNamespaces() {
    Set<String> namespaces = new LinkedHashSet<>();
    scenario.daemonSets().forEach(d -> namespaces.add(realName(d.getMetadata().getNamespace())));
    scenario.pods().forEach(p -> namespaces.add(realName(p.getMetadata().getNamespace())));
    for (String ns : namespaces) {
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
    // Pods are refused until the service-account controller has made the default account.
    await("default ServiceAccounts of " + namespaces)
        .atMost(WAIT)
        .until(
            () ->
                namespaces.stream()
                    .allMatch(
                        ns ->
                            admin.serviceAccounts().inNamespace(ns).withName("default").get()
                                != null));
  }

  private void createNodes() {
    Map<String, Set<String>> taints = new TreeMap<>();
    for (Node node : scenario.nodes()) {
      String real = realName(node.getMetadata().getName());
      node.getMetadata().setName(real);
      node.getMetadata().getLabels().put("kubernetes.io/hostname", real);
      node.getMetadata().getLabels().put(LABEL, prefix);
      node.getMetadata().setAnnotations(Map.of("kwok.x-k8s.io/node", "fake"));
      NodeStatus status = new NodeStatus();
      status.setAllocatable(node.getStatus().getAllocatable());
      status.setCapacity(node.getStatus().getCapacity());
      node.setStatus(status); // conditions are kwok's to post
      taints.put(real, taintKeys(node));
      admin.resource(node).create();
    }
    // Ready, and the node lifecycle controller has lifted its not-ready taint.
    await("nodes of " + prefix + " Ready with only their own taints")
        .atMost(WAIT)
        .until(
            () ->
                taints.entrySet().stream()
                    .allMatch(
                        e -> {
                          Node n = admin.nodes().withName(e.getKey()).get();
                          return n != null && ready(n) && taintKeys(n).equals(e.getValue());
                        }));
  }

  /** The scenario's template as kwok should run it, on the scenario's nodes only. */
  private PodTemplateSpec forKwok(PodTemplateSpec template, String ns) {
    var spec = template.getSpec();
    Map<String, String> selector =
        new TreeMap<>(Optional.ofNullable(spec.getNodeSelector()).orElse(Map.of()));
    selector.put(LABEL, prefix);
    spec.setNodeSelector(selector);
    cues.translate(spec, exists(ns));
    return template;
  }

  /** Whether {@code configmap/NAME} or {@code secret/NAME} exists in {@code ns}. */
  private Predicate<String> exists(String ns) {
    return ref -> {
      String name = ref.substring(ref.indexOf('/') + 1);
      return ref.startsWith("configmap/")
          ? admin.configMaps().inNamespace(ns).withName(name).get() != null
          : admin.secrets().inNamespace(ns).withName(name).get() != null;
    };
  }

  private void awaitRolledOut(String ns, String name) {
    await(ns + "/" + name + " rolled out")
        .atMost(WAIT)
        .until(
            () -> {
              DaemonSet d = admin.apps().daemonSets().inNamespace(ns).withName(name).get();
              var s = PlayOutcome.Status.of(d.getStatus());
              Long observed = d.getStatus() == null ? null : d.getStatus().getObservedGeneration();
              return observed != null
                  && observed >= d.getMetadata().getGeneration()
                  && s.desired() > 0
                  && s.upToDate() == s.desired()
                  && s.available() == s.desired()
                  && s.current() == s.desired();
            });
  }

  /** Records, in order, the node of every pod created in {@code ns} from now on. */
  private Watch watchCreations(String ns, List<String> created) {
    String from = admin.pods().inNamespace(ns).list().getMetadata().getResourceVersion();
    return admin
        .pods()
        .inNamespace(ns)
        .withResourceVersion(from)
        .watch(
            new Watcher<>() {
              @Override
              public void eventReceived(Action action, Pod pod) {
                String node = KubeViews.pod(pod).targetNode();
                if (action == Action.ADDED && !node.isEmpty()) {
                  synchronized (created) {
                    created.add(node);
                  }
                }
              }

              @Override
              public void onClose(WatcherException cause) {
                // The play reads what was recorded; a closed watch only shortens the record.
              }
            });
  }

  static boolean ready(Node n) {
    return n.getStatus() != null
        && n.getStatus().getConditions() != null
        && n.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  static Set<String> taintKeys(Node n) {
    Set<String> keys = new TreeSet<>();
    if (n.getSpec() != null && n.getSpec().getTaints() != null) {
      for (Taint t : n.getSpec().getTaints()) {
        keys.add(t.getKey() + ":" + t.getEffect());
      }
    }
    return keys;
  }

  /** Deletes the scenario's namespaces and nodes; what is left behind only costs kwok time. */
  @Override
  public void close() {
    Set<String> namespaces = new TreeSet<>();
    scenario.daemonSets().forEach(d -> namespaces.add(realName(d.getMetadata().getNamespace())));
    scenario.pods().forEach(p -> namespaces.add(realName(p.getMetadata().getNamespace())));
    namespaces.forEach(ns -> admin.namespaces().withName(ns).delete());
    admin.nodes().withLabel(LABEL, prefix).delete();
  }

  /** The scenario's events on the real cluster, in the scenario's names. */
  private final class Actions implements ScenarioActions {

    @Override
    public void setImage(String namespace, String daemonSet, String container, String image) {
      editTemplate(
          namespace,
          daemonSet,
          t -> {
            t.getSpec().getContainers().stream()
                .filter(c -> c.getName().equals(container))
                .findFirst()
                .orElseThrow()
                .setImage(image);
            return t;
          });
    }

    @Override
    public void editTemplate(
        String namespace, String daemonSet, UnaryOperator<PodTemplateSpec> edit) {
      Conflicts.retry(
          () ->
              admin
                  .apps()
                  .daemonSets()
                  .inNamespace(realName(namespace))
                  .withName(daemonSet)
                  .edit(
                      d -> {
                        PodTemplateSpec t =
                            edit.apply(Serialization.clone(d.getSpec().getTemplate()));
                        d.getSpec().setTemplate(forKwok(t, realName(namespace)));
                        return d;
                      }));
    }

    @Override
    public void rollback(String namespace, String daemonSet) {
      cluster.kubectl("rollout", "undo", "-n", realName(namespace), "daemonset/" + daemonSet).ok();
    }

    @Override
    public void nodeNotReady(String node) {
      touched.add(node);
      label(node, "NotReady");
      awaitNode(node, "False", NOT_READY_TAINT);
    }

    /**
     * As a kubelet that stops: kwok drops a node labelled Unreachable from its watch, so its Lease
     * and status go unrenewed and nobody acts on its pods; after its grace period the node
     * lifecycle controller marks it Unknown and taints it unreachable.
     */
    @Override
    public void nodeUnreachable(String node) {
      touched.add(node);
      label(node, "Unreachable");
      awaitNode(node, "Unknown", UNREACHABLE_TAINT);
    }

    @Override
    public void nodeReady(String node) {
      touched.add(node);
      label(node, null);
      awaitNode(node, "True", null);
    }

    /** Waits for the node's Ready status and, unless null, the lifecycle controller's taint. */
    private void awaitNode(String node, String ready, String taint) {
      String real = realName(node);
      await(real + " Ready=" + ready + (taint == null ? "" : " with taint " + taint))
          .atMost(WAIT)
          .until(
              () -> {
                Node n = admin.nodes().withName(real).get();
                boolean status =
                    n.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && ready.equals(c.getStatus()));
                Set<String> taints = taintKeys(n);
                return status
                    && (taint == null
                        ? taints.stream()
                            .noneMatch(
                                t ->
                                    t.startsWith(NOT_READY_TAINT)
                                        || t.startsWith(UNREACHABLE_TAINT))
                        : taints.contains(taint + ":NoExecute"));
              });
    }

    private void label(String node, String state) {
      Conflicts.retry(
          () ->
              admin
                  .nodes()
                  .withName(realName(node))
                  .edit(
                      n -> {
                        if (state == null) {
                          n.getMetadata().getLabels().remove("stallwatch.dev/kwok-node-state");
                        } else {
                          n.getMetadata().getLabels().put("stallwatch.dev/kwok-node-state", state);
                        }
                        return n;
                      }));
    }
  }
}
