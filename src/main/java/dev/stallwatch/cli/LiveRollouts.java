package dev.stallwatch.cli;

import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.RolloutSnapshot;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the analyzer's snapshots from a live cluster: the selected DaemonSets with the pods and
 * ControllerRevisions of their namespaces and every node, as {@code diagnose} reads them from a
 * dump.
 *
 * <p>Only pods labelled {@value MetadataKeys#TEMPLATE_GENERATION_LABEL} are listed — the DaemonSet
 * controller puts it on every pod it creates — as the operator does, so that {@code status -A -w}
 * and {@code wait}, which read every couple of seconds, do not fetch every pod of the cluster.
 * Nodes, which the analyzer needs all of, are listed from the API server's cache ({@code
 * resourceVersion=0}) instead of a quorum read of etcd.
 */
final class LiveRollouts {

  /** Any recent version, served from the API server's watch cache: cheap to poll. */
  private static final ListOptions FROM_CACHE =
      new ListOptionsBuilder().withResourceVersion("0").build();

  private final KubernetesClient client;

  LiveRollouts(KubernetesClient client) {
    this.client = client;
  }

  /**
   * What was read: one snapshot per readable DaemonSet (sorted by namespace, name) and a message
   * per object that could not be read.
   */
  record Selection(List<RolloutSnapshot> snapshots, List<String> errors) {}

  /** One DaemonSet; an empty selection when it does not exist. */
  Selection one(String namespace, String name) {
    DaemonSet ds = client.apps().daemonSets().inNamespace(namespace).withName(name).get();
    if (ds == null) {
      return new Selection(List.of(), List.of());
    }
    Map<String, String> matchLabels =
        ds.getSpec() == null || ds.getSpec().getSelector() == null
            ? null
            : ds.getSpec().getSelector().getMatchLabels();
    // The selector's labels narrow the lists; the analyzer still checks ownership.
    List<Pod> pods =
        matchLabels == null || matchLabels.isEmpty()
            ? client
                .pods()
                .inNamespace(namespace)
                .withLabel(MetadataKeys.TEMPLATE_GENERATION_LABEL)
                .list()
                .getItems()
            : client
                .pods()
                .inNamespace(namespace)
                .withLabels(matchLabels)
                .withLabel(MetadataKeys.TEMPLATE_GENERATION_LABEL)
                .list()
                .getItems();
    // Revisions by namespace, not selector: ownership decides (as in RevisionRestorer).
    List<ControllerRevision> revisions =
        client.apps().controllerRevisions().inNamespace(namespace).list().getItems();
    return snapshots(List.of(ds), pods, revisions);
  }

  /** Every DaemonSet of {@code namespace}, or of all namespaces when it is null. */
  Selection all(String namespace) {
    List<DaemonSet> daemonSets;
    List<Pod> pods;
    List<ControllerRevision> revisions;
    if (namespace == null) {
      daemonSets = client.apps().daemonSets().inAnyNamespace().list().getItems();
      pods =
          daemonSets.isEmpty()
              ? List.of()
              : client
                  .pods()
                  .inAnyNamespace()
                  .withLabel(MetadataKeys.TEMPLATE_GENERATION_LABEL)
                  .list()
                  .getItems();
      revisions =
          daemonSets.isEmpty()
              ? List.of()
              : client.apps().controllerRevisions().inAnyNamespace().list().getItems();
    } else {
      daemonSets = client.apps().daemonSets().inNamespace(namespace).list().getItems();
      pods =
          daemonSets.isEmpty()
              ? List.of()
              : client
                  .pods()
                  .inNamespace(namespace)
                  .withLabel(MetadataKeys.TEMPLATE_GENERATION_LABEL)
                  .list()
                  .getItems();
      revisions =
          daemonSets.isEmpty()
              ? List.of()
              : client.apps().controllerRevisions().inNamespace(namespace).list().getItems();
    }
    return snapshots(daemonSets, pods, revisions);
  }

  private Selection snapshots(
      List<DaemonSet> daemonSets, List<Pod> pods, List<ControllerRevision> revisions) {
    if (daemonSets.isEmpty()) {
      return new Selection(List.of(), List.of());
    }
    List<Node> nodes = client.nodes().list(FROM_CACHE).getItems();
    List<RolloutSnapshot> snapshots = new ArrayList<>();
    // A bad node or revision is named once, not once per DaemonSet that reads it.
    Set<String> errors = new LinkedHashSet<>();
    for (DaemonSet ds : daemonSets) {
      try {
        Snapshots.Live live = Snapshots.live(ds, pods, nodes, revisions, Snapshots.Views.FRESH);
        snapshots.add(live.snapshot());
        errors.addAll(live.errors());
      } catch (InvalidObjectException e) {
        // One unreadable DaemonSet must not hide the other DaemonSets' verdicts.
        errors.add(e.getMessage());
      }
    }
    snapshots.sort(
        Comparator.comparing((RolloutSnapshot s) -> s.daemonSet().namespace())
            .thenComparing(s -> s.daemonSet().name()));
    return new Selection(List.copyOf(snapshots), List.copyOf(errors));
  }
}
