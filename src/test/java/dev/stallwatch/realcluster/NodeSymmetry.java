package dev.stallwatch.realcluster;

import dev.stallwatch.sim.Scenario;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which of a scenario's nodes are interchangeable: defined alike but for their names, holding alike
 * pods of the scenario's own, untouched by its events and by per-node kubelet scripting. Upstream
 * picks the next node to update from a Go map, so which of several such nodes stalls first is
 * chance; two plays that differ only by a renaming within these classes tell the same story.
 */
final class NodeSymmetry {

  private final Map<String, List<String>> classOf = new TreeMap<>();

  private NodeSymmetry(Map<String, List<String>> classes) {
    classes.values().forEach(c -> c.forEach(n -> classOf.put(n, c)));
  }

  /**
   * The classes of {@code scenario}'s nodes; {@code apart} are nodes each in a class of its own.
   */
  static NodeSymmetry of(Scenario scenario, Set<String> apart) {
    Set<String> alone = new TreeSet<>(apart);
    alone.addAll(scenario.kubeletScript().nodesTreatedApart());
    Map<String, List<String>> classes = new TreeMap<>();
    for (Node node : scenario.nodes()) {
      String name = node.getMetadata().getName();
      String key = alone.contains(name) ? name : definition(node, scenario.pods());
      classes.computeIfAbsent(key, k -> new ArrayList<>()).add(name);
    }
    classes.values().forEach(c -> c.sort(null));
    return new NodeSymmetry(classes);
  }

  /** The node and the scenario's pods bound to it as defined, without what names them. */
  private static String definition(Node node, List<Pod> pods) {
    String name = node.getMetadata().getName();
    Node n = Serialization.clone(node);
    n.getMetadata().setName(null);
    n.getMetadata().getLabels().remove("kubernetes.io/hostname");
    List<String> bound = new ArrayList<>();
    for (Pod pod : pods) {
      if (name.equals(pod.getSpec().getNodeName())) {
        Pod p = Serialization.clone(pod);
        p.getMetadata().setName(null);
        p.getSpec().setNodeName(null);
        bound.add(Serialization.asJson(p));
      }
    }
    bound.sort(null);
    return "=" + Serialization.asJson(n) + bound;
  }

  /**
   * A renaming of {@code real}'s nodes, each within its class, under which it is {@code sim}'s
   * outcome; empty when there is none.
   */
  Optional<Map<String, String>> renaming(PlayOutcome real, PlayOutcome sim) {
    Map<String, String> rename = new TreeMap<>();
    Set<String> taken = new TreeSet<>();
    for (var entry : classOf.entrySet()) {
      String simNode = entry.getKey();
      String match = null;
      for (String candidate : entry.getValue()) {
        if (!taken.contains(candidate) && real.profile(candidate).equals(sim.profile(simNode))) {
          match = candidate;
          break;
        }
      }
      if (match == null) {
        return Optional.empty();
      }
      taken.add(match);
      rename.put(match, simNode);
    }
    return real.renamed(rename).sameAs(sim) ? Optional.of(rename) : Optional.empty();
  }
}
