package dev.stallwatch.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The subset of kubectl JSONPath that printer columns use: field steps ({@code .status.phase}),
 * array indexes ({@code .spec.containers[0].image}) and equality filters ({@code
 * .status.conditions[?(@.type=="Ready")].status}).
 */
final class JsonPathReader {

  private static final Pattern STEP =
      Pattern.compile(
          "\\.([^.\\[]+)|\\[(\\d+)]|\\[\\?\\(@\\.([\\w.-]+)\\s*==\\s*[\"']([^\"']*)[\"']\\)]");

  private sealed interface Step {}

  private record Field(String name) implements Step {}

  private record Index(int index) implements Step {}

  private record Filter(String field, String equals) implements Step {}

  private final List<Step> steps;

  private JsonPathReader(List<Step> steps) {
    this.steps = steps;
  }

  /**
   * Compiles a path such as {@code .status.phase} or {@code {.status.phase}}.
   *
   * @throws IllegalArgumentException naming the path when it uses unsupported syntax
   */
  static JsonPathReader compile(String jsonPath) {
    String p = jsonPath == null ? "" : jsonPath.trim();
    if (p.startsWith("{") && p.endsWith("}")) {
      p = p.substring(1, p.length() - 1);
    }
    if (p.startsWith("$")) {
      p = p.substring(1);
    }
    List<Step> steps = new ArrayList<>();
    Matcher m = STEP.matcher(p);
    int at = 0;
    while (at < p.length()) {
      if (!m.find(at) || m.start() != at) {
        throw new IllegalArgumentException(
            "unsupported printer column JSONPath \"" + jsonPath + "\" at position " + at);
      }
      if (m.group(1) != null) {
        steps.add(new Field(m.group(1)));
      } else if (m.group(2) != null) {
        steps.add(new Index(Integer.parseInt(m.group(2))));
      } else {
        steps.add(new Filter(m.group(3), m.group(4)));
      }
      at = m.end();
    }
    return new JsonPathReader(steps);
  }

  /** The value at this path, or {@code null} when any step finds nothing. */
  JsonNode read(JsonNode root) {
    JsonNode node = root;
    for (Step step : steps) {
      if (step instanceof Field f) {
        node = node.get(f.name());
      } else if (step instanceof Index i) {
        node = node.isArray() ? node.get(i.index()) : null;
      } else {
        node = firstMatching(node, (Filter) step);
      }
      if (node == null) {
        return null;
      }
    }
    return node;
  }

  private static JsonNode firstMatching(JsonNode array, Filter filter) {
    if (!array.isArray()) {
      return null;
    }
    for (JsonNode element : array) {
      JsonNode value = element;
      for (String part : filter.field().split("\\.")) {
        value = value.path(part);
      }
      if (value.isValueNode() && filter.equals().equals(value.asText())) {
        return element;
      }
    }
    return null;
  }
}
