package dev.stallwatch.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.kube.Dump;
import java.util.Optional;
import java.util.stream.Collectors;

/** What a dump held, for the footer of a report: the objects read and the kinds skipped. */
final class InputSummary {
  private InputSummary() {}

  static String counts(Dump dump) {
    String read =
        dump.daemonSets().size()
            + " DaemonSets, "
            + dump.pods().size()
            + " Pods, "
            + dump.nodes().size()
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

  static ObjectNode json(Dump dump) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("daemonSets", dump.daemonSets().size());
    o.put("pods", dump.pods().size());
    o.put("nodes", dump.nodes().size());
    o.put("controllerRevisions", dump.revisions().size());
    ObjectNode ignored = o.putObject("ignored");
    dump.ignored().forEach(ignored::put);
    return o;
  }
}
