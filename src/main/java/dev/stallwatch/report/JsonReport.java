package dev.stallwatch.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.rollout.Counts;
import dev.stallwatch.rollout.NodeRow;
import dev.stallwatch.rollout.RevisionSummary;
import dev.stallwatch.rollout.RolloutVerdict;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;

/**
 * The machine report: {@code {"evaluatedAt", "daemonSets": [...]}} with one object per verdict.
 * Times are RFC 3339 in UTC; absent values are JSON {@code null}, never missing keys.
 */
public final class JsonReport {

  private static final ObjectMapper MAPPER = JsonMapper.builder().build();

  /** Two-space indentation, {@code "key": value}, one array element per line (as jq prints). */
  private static final DefaultPrettyPrinter PRETTY =
      new DefaultPrettyPrinter(
              Separators.createDefaultInstance()
                  .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                  .withArrayEmptySeparator("")
                  .withObjectEmptySeparator(""))
          .withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE);

  private JsonReport() {}

  /** The report as pretty-printed JSON, ending with a newline. */
  public static String render(Instant evaluatedAt, List<RolloutVerdict> verdicts) {
    return render(tree(evaluatedAt, verdicts));
  }

  /** A report tree (from {@link #tree}, perhaps with extra keys) as pretty-printed JSON. */
  public static String render(ObjectNode tree) {
    try {
      return MAPPER.writer(PRETTY).writeValueAsString(tree) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e); // a tree of plain nodes always serializes
    }
  }

  /** The report as a JSON tree. */
  public static ObjectNode tree(Instant evaluatedAt, List<RolloutVerdict> verdicts) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("evaluatedAt", time(evaluatedAt));
    ArrayNode list = root.putArray("daemonSets");
    verdicts.forEach(v -> list.add(daemonSet(v)));
    return root;
  }

  private static ObjectNode daemonSet(RolloutVerdict v) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("apiVersion", v.apiVersion());
    o.put("namespace", v.daemonSet().namespace());
    o.put("name", v.daemonSet().name());
    o.put("phase", v.phase().name());
    o.put("cause", v.cause() == null ? null : v.cause().name());
    o.put("reason", v.reason());
    o.put("message", v.message());
    o.put("suspect", v.suspect() == null ? null : v.suspect().name());
    o.put("suspectReason", v.suspectReason());
    o.put("evidence", v.evidence().name());
    ArrayNode missing = o.putArray("missing");
    v.missing().forEach(missing::add);
    ArrayNode stalled = o.putArray("stalledNodes");
    v.stalledNodes().forEach(stalled::add);
    o.put("stalledSince", time(v.stalledSince()));
    o.set("oldRevision", revision(v.oldRevision()));
    o.set("newRevision", revision(v.newRevision()));
    o.set("counts", counts(v.counts()));
    o.set("reported", v.reported() == null ? null : counts(v.reported()));
    o.put("observedGeneration", v.observedGeneration());
    o.put("generation", v.generation());
    o.put("maxUnavailable", v.maxUnavailable());
    o.put("maxSurge", v.maxSurge());
    var split = v.split();
    ObjectNode splitNode = o.putObject("split");
    for (NodeRow.Revision r : NodeRow.Revision.values()) {
      splitNode.put(r.label(), split.count(r));
    }
    o.put("nextCheck", time(v.nextCheck()));
    // Nodes per minute over the last 10 minutes, nodes left, seconds left: null when unknown.
    var pace = v.pace();
    o.put("pace", pace.perMinute() == null ? null : Math.round(pace.perMinute() * 100) / 100.0);
    o.put("remaining", pace.remaining());
    o.put("eta", pace.eta() == null ? null : pace.eta().toSeconds());
    ArrayNode nodes = o.putArray("nodes");
    v.nodes().forEach(row -> nodes.add(node(row)));
    return o;
  }

  private static ObjectNode node(NodeRow row) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("node", row.node());
    o.put("revision", row.revision().label());
    o.put("pod", row.pod());
    o.put("state", row.state());
    o.put("cause", row.cause() == null ? null : row.cause().name());
    o.put("reason", blankToNull(row.reason()));
    o.put("message", blankToNull(row.message()));
    o.put("since", time(row.since()));
    o.put("suspect", row.suspect() == null ? null : row.suspect().name());
    o.put("suspectReason", row.suspectReason());
    o.put("standing", standing(row.standing()));
    ArrayNode images = o.putArray("images");
    row.images().forEach(images::add);
    return o;
  }

  /** {@code updated}, {@code waiting}, {@code updating}, {@code stuck}, {@code excluded}, … */
  static String standing(NodeRow.Standing s) {
    return switch (s) {
      case NOT_DESIRED -> "notDesired";
      default -> s.name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  private static ObjectNode revision(RevisionSummary r) {
    if (r == null) {
      return null;
    }
    ObjectNode o = MAPPER.createObjectNode();
    o.put("hash", r.hash());
    o.put("revision", r.revision());
    o.put("templateGeneration", r.templateGeneration());
    ArrayNode images = o.putArray("images");
    r.images().forEach(images::add);
    return o;
  }

  private static ObjectNode counts(Counts c) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("desired", c.desired());
    o.put("current", c.current());
    o.put("ready", c.ready());
    o.put("upToDate", c.upToDate());
    o.put("available", c.available());
    o.put("unavailable", c.unavailable());
    o.put("misscheduled", c.misscheduled());
    return o;
  }

  private static String time(Instant t) {
    return t == null ? null : t.toString();
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
