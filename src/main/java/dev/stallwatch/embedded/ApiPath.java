package dev.stallwatch.embedded;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A request path of the Kubernetes REST API taken apart: {@code
 * /api/v1/namespaces/ns/pods/p/status?x=y} becomes group "", version v1, namespace ns, plural pods,
 * name p, subresource status and the query parameters.
 *
 * @param group API group, empty for the core group
 * @param version API version, empty for {@code /api} or {@code /apis[/group]}
 * @param namespace namespace segment, empty when absent
 * @param plural resource plural, empty for discovery paths
 * @param name object name, empty for collections
 * @param subresource subresource such as {@code status}, empty when absent
 * @param rawPath the path without query string
 * @param query decoded query parameters (first value wins)
 */
record ApiPath(
    String group,
    String version,
    String namespace,
    String plural,
    String name,
    String subresource,
    String rawPath,
    Map<String, String> query) {

  /** Parses the request target (path plus optional query string). */
  static ApiPath parse(String target) {
    int q = target.indexOf('?');
    String path = q < 0 ? target : target.substring(0, q);
    Map<String, String> query = q < 0 ? Map.of() : parseQuery(target.substring(q + 1));
    List<String> segments = List.of(path.split("/")).stream().filter(s -> !s.isEmpty()).toList();
    int i;
    String group;
    String version = "";
    if (!segments.isEmpty() && segments.get(0).equals("api")) {
      group = "";
      i = 1;
    } else if (!segments.isEmpty() && segments.get(0).equals("apis")) {
      group = segments.size() > 1 ? segments.get(1) : "";
      i = 2;
    } else {
      return new ApiPath("", "", "", "", "", "", path, query);
    }
    if (segments.size() > i) {
      version = segments.get(i++);
    }
    String namespace = "";
    if (segments.size() > i + 1 && segments.get(i).equals("namespaces")) {
      namespace = segments.get(i + 1);
      i += 2;
    }
    String plural = segments.size() > i ? segments.get(i++) : "";
    if (plural.isEmpty() && !namespace.isEmpty()) {
      // "/api/v1/namespaces/ns" is the namespace object itself.
      return new ApiPath(group, version, "", "namespaces", namespace, "", path, query);
    }
    String name = segments.size() > i ? segments.get(i++) : "";
    String subresource =
        segments.size() > i ? String.join("/", segments.subList(i, segments.size())) : "";
    return new ApiPath(group, version, namespace, plural, name, subresource, path, query);
  }

  private static Map<String, String> parseQuery(String queryString) {
    Map<String, String> params = new LinkedHashMap<>();
    for (String pair : queryString.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      params.putIfAbsent(key, value);
    }
    return Map.copyOf(params);
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  /**
   * True for {@code /api}, {@code /apis}, {@code /api/v1}, {@code /apis/g} and {@code /apis/g/v}.
   */
  boolean isDiscovery() {
    return plural.isEmpty() && (rawPath.startsWith("/api"));
  }

  /** True when this addresses a whole collection (list or watch), not one object. */
  boolean isCollection() {
    return !plural.isEmpty() && name.isEmpty();
  }

  Optional<String> param(String key) {
    return Optional.ofNullable(query.get(key));
  }

  /** The group/version string as used in {@code apiVersion}. */
  String groupVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }
}
