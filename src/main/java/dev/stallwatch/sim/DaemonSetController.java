package dev.stallwatch.sim;

import dev.stallwatch.kube.PodTemplates;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The simulated DaemonSet controller (upstream {@code syncDaemonSet}): revisions, then the manage
 * pass, then the rolling update on the pods as they are after the manage pass (as upstream's own
 * tests see it, where created and deleted pods are observed at once), then history clean-up. The
 * status is written by {@link #syncStatus}, which the control plane runs at the end of a tick so
 * the status always describes the objects as they are after that tick.
 */
public final class DaemonSetController {

  private final KubernetesClient client;
  private final Clock clock;
  private final ControllerRevisions revisions;
  private final DaemonPodManager manager;
  private final RollingUpdatePlanner rolling;
  private final DaemonPodWriter writer;
  private final DaemonSetStatusWriter statusWriter;

  /** A controller acting through {@code client}, stamping times from {@code clock}. */
  public DaemonSetController(KubernetesClient client, Clock clock, long seed) {
    this(client, clock, seed, List.of());
  }

  /**
   * Like {@link #DaemonSetController(KubernetesClient, Clock, long)}, but the rolling update takes
   * the nodes in {@code updateFirst} first, in that order, then the others by name.
   */
  public DaemonSetController(
      KubernetesClient client, Clock clock, long seed, List<String> updateFirst) {
    this.client = client;
    this.rolling = new RollingUpdatePlanner(NodeOrder.preferring(updateFirst));
    this.clock = clock;
    this.revisions = new ControllerRevisions(client);
    this.manager = new DaemonPodManager(new FailedPodBackoff());
    this.writer = new DaemonPodWriter(client, new PodDeletion(client), new Random(seed));
    this.statusWriter = new DaemonSetStatusWriter(client);
  }

  /** Syncs every DaemonSet of the cluster, by namespace and name. */
  public SyncResult syncAll() {
    List<Node> nodes = client.nodes().list().getItems();
    SyncResult total = SyncResult.NONE;
    // One list per namespace: a DaemonSet's sync only writes its own pods, which no other reads.
    Map<String, List<Pod>> podsByNamespace = new HashMap<>();
    for (DaemonSet ds : daemonSets()) {
      List<Pod> pods =
          podsByNamespace.computeIfAbsent(ds.getMetadata().getNamespace(), this::podsIn);
      total = total.plus(sync(ds, nodes, pods));
    }
    return total;
  }

  /** One sync of the named DaemonSet, as upstream's tests count it. */
  public SyncResult sync(String namespace, String name) {
    DaemonSet ds = client.apps().daemonSets().inNamespace(namespace).withName(name).get();
    if (ds == null) {
      throw new IllegalArgumentException("DaemonSet " + namespace + "/" + name + " does not exist");
    }
    return sync(ds, client.nodes().list().getItems(), podsIn(namespace));
  }

  private List<Pod> podsIn(String namespace) {
    return client.pods().inNamespace(namespace).list().getItems();
  }

  private SyncResult sync(DaemonSet ds, List<Node> nodes, List<Pod> pods) {
    if (ds.getMetadata().getDeletionTimestamp() != null) {
      return SyncResult.NONE;
    }
    DaemonSetState state = new DaemonSetState(ds, nodes, pods, clock.instant());
    List<Pod> owned = pods.stream().filter(p -> DaemonSetState.ownedBy(p, ds)).toList();
    ControllerRevisions.History history = revisions.construct(ds, owned);
    if (history == null) {
      return SyncResult.NONE;
    }
    String hash = history.hash();
    SyncPlan managePlan = manager.plan(state, hash);
    SyncResult result = writer.apply(state, managePlan, hash, state.now);
    if (!state.onDelete()) {
      // Upstream runs the rolling update once its expectations for the manage pass are met, on
      // pods as its cache then shows them; our writes are visible at once, so read them back.
      DaemonSetState after =
          managePlan.isEmpty()
              ? state
              : new DaemonSetState(ds, nodes, podsIn(ds.getMetadata().getNamespace()), state.now);
      result = result.plus(writer.apply(after, rolling.plan(after, hash), hash, state.now));
    }
    revisions.cleanup(ds, history.old(), owned);
    return result;
  }

  /** Writes the status of every DaemonSet from the objects as they are now. */
  public void syncStatusAll() {
    List<Node> nodes = client.nodes().list().getItems();
    Map<String, List<Pod>> podsByNamespace = new HashMap<>();
    for (DaemonSet ds : daemonSets()) {
      syncStatus(
          ds,
          nodes,
          podsByNamespace.computeIfAbsent(ds.getMetadata().getNamespace(), this::podsIn));
    }
  }

  private void syncStatus(DaemonSet ds, List<Node> nodes, List<Pod> pods) {
    DaemonSetState state = new DaemonSetState(ds, nodes, pods, clock.instant());
    String hash =
        revisions.owned(ds).stream()
            .filter(r -> PodTemplates.matches(ds.getSpec().getTemplate(), r.getData()))
            .max(Comparator.comparing(r -> r.getRevision()))
            .map(r -> r.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL))
            .orElse("");
    statusWriter.write(state, hash, true);
  }

  private List<DaemonSet> daemonSets() {
    return client.apps().daemonSets().inAnyNamespace().list().getItems().stream()
        .sorted(
            Comparator.comparing((DaemonSet d) -> d.getMetadata().getNamespace())
                .thenComparing(d -> d.getMetadata().getName()))
        .toList();
  }
}
