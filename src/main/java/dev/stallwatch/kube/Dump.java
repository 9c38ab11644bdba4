package dev.stallwatch.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.List;
import java.util.Map;

/**
 * What a saved {@code kubectl get … -o json|yaml} held: the objects the analyzer reads (each with
 * where it was found), how many objects of other kinds were skipped, and the problems found.
 *
 * @param ignored kinds that were skipped, with their counts, in order of first appearance
 * @param errors one line per problem, naming the file (and document or item) and the object
 * @param unreadableNodes names of objects that may be Nodes but could not be read (a Node that
 *     cannot be mapped, a cluster-scoped object without {@code kind}): a pod on one of them makes
 *     the verdict Partial rather than letting the node pass as "not desired"
 * @param unsupported DaemonSets of another API than {@code apps/v1} (e.g. OpenKruise's {@code
 *     apps.kruise.io}): listed, never judged by apps/v1 rules
 * @param events core/v1 Events (what {@code kubectl get events} prints): the analyzer reads the
 *     DaemonSet controller's FailedCreate warnings
 */
public record Dump(
    List<Entry<DaemonSet>> daemonSets,
    List<Entry<Pod>> pods,
    List<Entry<Node>> nodes,
    List<Entry<ControllerRevision>> revisions,
    Map<String, Integer> ignored,
    List<String> errors,
    java.util.Set<String> unreadableNodes,
    List<Unsupported> unsupported,
    List<Entry<io.fabric8.kubernetes.api.model.Event>> events) {

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
  }

  /** A dump whose objects could all be told apart. */
  public Dump(
      List<Entry<DaemonSet>> daemonSets,
      List<Entry<Pod>> pods,
      List<Entry<Node>> nodes,
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
        List.of());
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
