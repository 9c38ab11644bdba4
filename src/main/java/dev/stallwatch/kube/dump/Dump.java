package dev.stallwatch.kube.dump;

import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.PodView;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.List;
import java.util.Map;

/**
 * What a saved {@code kubectl get … -o json|yaml} held: the objects the analyzer reads (each with
 * where it was found), how many objects of other kinds were skipped, and the problems found. Pods
 * and nodes, the bulk of a dump, are held as the analyzer's views, made while reading; the few
 * DaemonSets, ControllerRevisions and Events as fabric8 objects.
 *
 * @param pods the pods whose views could be made
 * @param nodes the nodes whose views could be made
 * @param ignored kinds that were skipped, with their counts, in order of first appearance
 * @param errors one line per problem, naming the file (and document or item) and the object
 * @param unreadableNodes names of objects that may be Nodes but could not be read (a Node that
 *     cannot be mapped or whose fields cannot mean anything, a cluster-scoped object without {@code
 *     kind}): a pod on one of them makes the verdict Partial rather than letting the node pass as
 *     "not desired"
 * @param unsupported DaemonSets of another API than {@code apps/v1} (e.g. OpenKruise's {@code
 *     apps.kruise.io}): listed, never judged by apps/v1 rules
 * @param events core/v1 Events (what {@code kubectl get events} prints): the analyzer reads the
 *     DaemonSet controller's FailedCreate warnings
 * @param invalidPods one error per pod that was read but a field of which cannot mean anything (a
 *     time that is not RFC 3339): {@link DumpSnapshots#group} reports them, with those of the other
 *     kinds
 * @param invalidNodes the same for nodes
 */
public record Dump(
    List<Entry<DaemonSet>> daemonSets,
    List<Entry<PodView>> pods,
    List<Entry<NodeView>> nodes,
    List<Entry<ControllerRevision>> revisions,
    Map<String, Integer> ignored,
    List<String> errors,
    java.util.Set<String> unreadableNodes,
    List<Unsupported> unsupported,
    List<Entry<io.fabric8.kubernetes.api.model.Event>> events,
    List<String> invalidPods,
    List<String> invalidNodes) {

  public Dump {
    events = events == null ? List.of() : List.copyOf(events);
    unsupported = unsupported == null ? List.of() : List.copyOf(unsupported);
    unreadableNodes =
        unreadableNodes == null ? java.util.Set.of() : java.util.Set.copyOf(unreadableNodes);
    daemonSets = List.copyOf(daemonSets);
    pods = List.copyOf(pods);
    nodes = List.copyOf(nodes);
    revisions = List.copyOf(revisions);
    ignored = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(ignored));
    errors = List.copyOf(errors);
    invalidPods = invalidPods == null ? List.of() : List.copyOf(invalidPods);
    invalidNodes = invalidNodes == null ? List.of() : List.copyOf(invalidNodes);
  }

  /** A dump whose objects could all be told apart and read. */
  public Dump(
      List<Entry<DaemonSet>> daemonSets,
      List<Entry<PodView>> pods,
      List<Entry<NodeView>> nodes,
      List<Entry<ControllerRevision>> revisions,
      Map<String, Integer> ignored,
      List<String> errors) {
    this(
        daemonSets,
        pods,
        nodes,
        revisions,
        ignored,
        errors,
        java.util.Set.of(),
        List.of(),
        List.of(),
        List.of(),
        List.of());
  }

  /** How many Pod objects were read, those with an unusable field included. */
  public int podsRead() {
    return pods.size() + invalidPods.size();
  }

  /** How many Node objects were read, those with an unusable field included. */
  public int nodesRead() {
    return nodes.size() + invalidNodes.size();
  }

  /** This dump with only these unsupported objects (what a selection leaves). */
  public Dump withUnsupported(List<Unsupported> kept) {
    return new Dump(
        daemonSets,
        pods,
        nodes,
        revisions,
        ignored,
        errors,
        unreadableNodes,
        kept,
        events,
        invalidPods,
        invalidNodes);
  }

  /**
   * An object of a kind stallwatch reads, but of an API it does not judge.
   *
   * @param origin where it was read
   */
  public record Unsupported(
      String apiVersion, String kind, String namespace, String name, String origin) {
    /** {@code DaemonSet.apps.kruise.io gpu-operator/toolkit}, as kubectl names a resource. */
    @Override
    public String toString() {
      int slash = apiVersion.indexOf('/');
      String group = slash < 0 ? "" : "." + apiVersion.substring(0, slash);
      return kind + group + " " + (namespace.isEmpty() ? name : namespace + "/" + name);
    }
  }

  /** An object and where it was read: {@code dump.json items[3]}, {@code all.yaml document 2}. */
  public record Entry<T>(T object, String origin) {}
}
