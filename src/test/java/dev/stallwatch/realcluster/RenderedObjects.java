package dev.stallwatch.realcluster;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The chart's rendered objects as plain maps, and the walks the real-tier tests make in them. */
final class RenderedObjects {
  private static final com.fasterxml.jackson.databind.ObjectMapper YAML =
      new com.fasterxml.jackson.databind.ObjectMapper(
          new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());

  private RenderedObjects() {}

  /** The rendered objects by kind (one of each kind: all the tests read). */
  @SuppressWarnings("unchecked")
  static Map<String, Map<String, Object>> byKind(String manifests) throws IOException {
    Map<String, Map<String, Object>> kinds = new LinkedHashMap<>();
    for (String doc : manifests.split("(?m)^---\\s*$")) {
      if (doc.replaceAll("(?m)^#.*$", "").isBlank()) {
        continue;
      }
      Map<String, Object> object = YAML.readValue(doc, Map.class);
      if (object != null && object.get("kind") != null) {
        kinds.putIfAbsent((String) object.get("kind"), object);
      }
    }
    return kinds;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> spec(Map<String, Object> object) {
    return (Map<String, Object>) object.get("spec");
  }

  static Map<String, Object> path(Map<String, Object> object, String... keys) {
    Map<String, Object> m = object;
    for (String k : keys) {
      m = map(m, k);
    }
    return m;
  }

  @SuppressWarnings("unchecked")
  static List<String> strings(Object list) {
    return list == null ? List.of() : ((List<Object>) list).stream().map(String::valueOf).toList();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Map<String, Object> m, String key) {
    Object v = m.get(key);
    return v == null ? Map.of() : (Map<String, Object>) v;
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> list(Map<String, Object> m, String key) {
    Object v = m.get(key);
    return v == null ? List.of() : (List<Map<String, Object>>) v;
  }
}
