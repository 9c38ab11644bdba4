package dev.stallwatch.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.kube.dump.Dump;
import java.util.Optional;
import java.util.stream.Collectors;

/** What a dump held, for the footer of a report: the objects read and the kinds skipped. */
final class InputSummary {
  private InputSummary() {}

  static String counts(Dump dump) {
    String read =
        dump.daemonSets().size()
            + " DaemonSets, "
            + dump.podsRead()
            + " Pods, "
            + dump.nodesRead()
            + " Nodes, "
            + dump.revisions().size()
            + " ControllerRevisions";
    int skipped = dump.ignored().values().stream().mapToInt(Integer::intValue).sum();
    return skipped == 0 ? read : read + "; skipped " + skipped + " of other kinds";
  }

  /** A footer line when objects of other kinds were skipped. */
  static Optional<String> line(Dump dump) {
    if (dump.ignored().isEmpty()) {
      return Optional.empty();
    }
    String kinds =
        dump.ignored().entrySet().stream()
            .map(e -> e.getKey() + " " + e.getValue())
            .collect(Collectors.joining(", "));
    return Optional.of("skipped objects of other kinds: " + kinds);
  }

  /**
   * A footer line naming the DaemonSets of another API than apps/v1, which are listed and not
   * judged.
   */
  static Optional<String> unsupportedLine(Dump dump) {
    if (dump.unsupported().isEmpty()) {
      return Optional.empty();
    }
    String listed =
        dump.unsupported().stream()
            .map(u -> u + " (" + u.apiVersion() + ")")
            .collect(Collectors.joining(", "));
    return Optional.of(
        "unsupported, not judged (only apps/v1 and apps.kruise.io/v1beta1, v1alpha1 DaemonSets are): "
            + listed);
  }

  /** {@code [{"apiVersion", "kind", "namespace", "name"}]}: the objects listed as unsupported. */
  static com.fasterxml.jackson.databind.node.ArrayNode unsupportedJson(Dump dump) {
    var list = JsonNodeFactory.instance.arrayNode();
    for (Dump.Unsupported u : dump.unsupported()) {
      ObjectNode o = list.addObject();
      o.put("apiVersion", u.apiVersion());
      o.put("kind", u.kind());
      o.put("namespace", u.namespace());
      o.put("name", u.name());
    }
    return list;
  }

  static ObjectNode json(Dump dump) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("daemonSets", dump.daemonSets().size());
    o.put("pods", dump.podsRead());
    o.put("nodes", dump.nodesRead());
    o.put("controllerRevisions", dump.revisions().size());
    ObjectNode ignored = o.putObject("ignored");
    dump.ignored().forEach(ignored::put);
    return o;
  }
}
