package dev.stallwatch.kube;

import dev.stallwatch.rollout.DaemonSetView;
import dev.stallwatch.rollout.NodeIndex;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.PodView;
import dev.stallwatch.rollout.RevisionView;
import dev.stallwatch.rollout.RolloutSnapshot;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Builds the analyzer's snapshots from fabric8 objects: one DaemonSet with the pods and revisions
 * of its namespace and every node. Ownership is decided by the analyzer.
 */
public final class Snapshots {

  private Snapshots() {}

  /**
   * How a face turns each object into the analyzer's view: {@link #FRESH} converts it, the operator
   * reuses the view it keeps per cached object.
   */
  public record Views(
      Function<Pod, PodView> pod,
      Function<Node, NodeView> node,
      Function<ControllerRevision, RevisionView> revision) {
    public static final Views FRESH =
        new Views(KubeViews::pod, KubeViews::node, KubeViews::revision);
  }

  /** The snapshot of one live DaemonSet and a message per object left out of it. */
  public record Live(RolloutSnapshot snapshot, List<String> errors) {
    public Live {
      errors = List.copyOf(errors);
    }
  }

  /**
   * The snapshot of one DaemonSet from listed or cached objects, as every live face builds it
   * ({@code status}, {@code wait}, the demo, the operator): the pods and revisions of its namespace
   * and every node. A pod, node or revision that cannot be read is left out and reported in {@link
   * Live#errors()} — never failing the snapshot; an unreadable node is still known by name to the
   * analyzer ({@link RolloutSnapshot#unreadableNodes()}), as a dump's grouping does.
   *
   * @throws InvalidObjectException when the DaemonSet itself cannot be read
   */
  public static Live live(
      DaemonSet ds,
      Collection<Pod> pods,
      Collection<Node> nodes,
      Collection<ControllerRevision> revisions,
      Views views) {
    return live(ds, pods, nodes(nodes, views.node()), revisions, views);
  }

  /**
   * {@link #live} over nodes converted beforehand ({@link #nodes}): the operator keeps them per
   * version of its node cache, as every DaemonSet is analyzed against the same nodes.
   *
   * @throws InvalidObjectException when the DaemonSet itself cannot be read
   */
  public static Live live(
      DaemonSet ds,
      Collection<Pod> pods,
      NodeViews nodes,
      Collection<ControllerRevision> revisions,
      Views views) {
    DaemonSetView view = KubeViews.daemonSet(ds);
    List<String> errors = new ArrayList<>();
    List<PodView> podViews = convert(pods, view.namespace(), views.pod(), errors);
    errors.addAll(nodes.errors());
    List<RevisionView> revisionViews =
        convert(revisions, view.namespace(), views.revision(), errors);
    return new Live(
        new RolloutSnapshot(
            view, podViews, nodes.index(), revisionViews, nodes.unreadable(), true, List.of()),
        errors);
  }

  /**
   * Every node of a cluster as the analyzer reads them: the readable ones indexed, the names of
   * those that cannot be read, and a message per unreadable node.
   */
  public record NodeViews(NodeIndex index, Set<String> unreadable, List<String> errors) {
    public NodeViews {
      unreadable = Set.copyOf(unreadable);
      errors = List.copyOf(errors);
    }
  }

  /** The views of {@code nodes}; a node that cannot be read is left out and reported. */
  public static NodeViews nodes(Collection<Node> nodes, Function<Node, NodeView> toView) {
    List<String> errors = new ArrayList<>();
    List<NodeView> nodeViews = new ArrayList<>(nodes.size());
    Set<String> unreadableNodes = new TreeSet<>();
    for (Node node : nodes) {
      if (node == null) {
        continue;
      }
      try {
        nodeViews.add(toView.apply(node));
      } catch (InvalidObjectException e) {
        errors.add(e.getMessage());
        if (node.getMetadata() != null && node.getMetadata().getName() != null) {
          unreadableNodes.add(node.getMetadata().getName());
        }
      }
    }
    return new NodeViews(NodeIndex.of(nodeViews), unreadableNodes, errors);
  }

  /**
   * {@link #live} with fresh views, for callers that report no skipped objects (the demo, tests).
   *
   * @throws InvalidObjectException when the DaemonSet itself cannot be read
   */
  public static RolloutSnapshot of(
      DaemonSet ds,
      Collection<Pod> pods,
      Collection<Node> nodes,
      Collection<ControllerRevision> revisions) {
    return live(ds, pods, nodes, revisions, Views.FRESH).snapshot();
  }

  /** The views of the objects in namespace {@code ns}; one loop, no intermediate list. */
  private static <T extends HasMetadata, V> List<V> convert(
      Collection<T> objects, String ns, Function<T, V> toView, List<String> errors) {
    List<V> views = new ArrayList<>(objects.size());
    for (T object : objects) {
      if (object == null
          || object.getMetadata() == null
          || !ns.equals(Objects.toString(object.getMetadata().getNamespace(), ""))) {
        continue;
      }
      try {
        views.add(toView.apply(object));
      } catch (InvalidObjectException e) {
        errors.add(e.getMessage());
      }
    }
    return views;
  }
}
