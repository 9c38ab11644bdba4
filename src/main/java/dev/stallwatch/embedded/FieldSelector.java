package dev.stallwatch.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A list request's {@code fieldSelector} ({@code spec.nodeName=n1,status.phase!=Running}) applied
 * to the listed objects. The mock only knows {@code metadata.name} and {@code metadata.namespace};
 * any other field would match nothing, so lists are filtered here instead ({@code kubectl describe}
 * finds a Pod's events by {@code involvedObject.*}).
 */
final class FieldSelector {

  static final FieldSelector NONE = new FieldSelector(List.of());

  private record Requirement(String field, String value, boolean equal) {
    boolean test(JsonNode object) {
      JsonNode node = object;
      for (String part : field.split("\\.")) {
        node = node.path(part);
      }
      String actual = node.isValueNode() ? node.asText() : "";
      return equal == actual.equals(value);
    }
  }

  private final List<Requirement> requirements;

  private FieldSelector(List<Requirement> requirements) {
    this.requirements = requirements;
  }

  /**
   * Parses a selector.
   *
   * @throws IllegalArgumentException naming the requirement that is not {@code f=v}, {@code f==v}
   *     or {@code f!=v}
   */
  static FieldSelector parse(String selector) {
    List<Requirement> requirements = new ArrayList<>();
    for (String term : selector.split(",")) {
      if (term.isBlank()) {
        continue;
      }
      int ne = term.indexOf("!=");
      int eq = term.indexOf('=');
      if (ne > 0) {
        requirements.add(new Requirement(term.substring(0, ne), term.substring(ne + 2), false));
      } else if (eq > 0) {
        String value = term.substring(term.startsWith("=", eq + 1) ? eq + 2 : eq + 1);
        requirements.add(new Requirement(term.substring(0, eq), value, true));
      } else {
        throw new IllegalArgumentException("invalid field selector requirement \"" + term + "\"");
      }
    }
    return new FieldSelector(List.copyOf(requirements));
  }

  boolean isEmpty() {
    return requirements.isEmpty();
  }

  boolean matches(JsonNode object) {
    return requirements.stream().allMatch(r -> r.test(object));
  }

  /** Removes the items of a list body that do not match. */
  void filterItems(ObjectNode list) {
    if (isEmpty() || !(list.get("items") instanceof ArrayNode items)) {
      return;
    }
    for (Iterator<JsonNode> it = items.elements(); it.hasNext(); ) {
      if (!matches(it.next())) {
        it.remove();
      }
    }
  }

  /** The request target without its fieldSelector parameter, for the store to list everything. */
  static String targetWithout(ApiPath path) {
    String query =
        path.query().entrySet().stream()
            .filter(e -> !e.getKey().equals("fieldSelector"))
            .map(FieldSelector::encode)
            .collect(Collectors.joining("&"));
    return query.isEmpty() ? path.rawPath() : path.rawPath() + "?" + query;
  }

  private static String encode(Map.Entry<String, String> e) {
    return URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)
        + "="
        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8);
  }
}
