package dev.stallwatch.embedded;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import java.util.List;

/**
 * One resource type the embedded API server announces in discovery and renders as a table.
 *
 * @param group API group, empty for core
 * @param version served version
 * @param plural plural name used in paths
 * @param singular singular name
 * @param kind object kind
 * @param namespaced whether objects live in namespaces
 * @param shortNames short names such as {@code ds}
 * @param categories categories such as {@code all}
 * @param subresources subresources served, such as {@code status}
 * @param printerColumns a custom resource's additionalPrinterColumns; empty for built-in types
 */
record ServedResource(
    String group,
    String version,
    String plural,
    String singular,
    String kind,
    boolean namespaced,
    List<String> shortNames,
    List<String> categories,
    List<String> subresources,
    List<CustomResourceColumnDefinition> printerColumns) {

  ServedResource {
    shortNames = List.copyOf(shortNames);
    categories = List.copyOf(categories);
    subresources = List.copyOf(subresources);
    printerColumns = List.copyOf(printerColumns);
  }

  /** A built-in type without printer columns of its own. */
  static ServedResource builtin(
      String groupVersion,
      String plural,
      String kind,
      boolean namespaced,
      List<String> shortNames,
      List<String> subresources) {
    int slash = groupVersion.indexOf('/');
    String group = slash < 0 ? "" : groupVersion.substring(0, slash);
    String version = groupVersion.substring(slash + 1);
    List<String> categories =
        List.of("pods", "daemonsets", "deployments", "replicasets", "statefulsets", "services")
                .contains(plural)
            ? List.of("all")
            : List.of();
    return new ServedResource(
        group,
        version,
        plural,
        kind.toLowerCase(java.util.Locale.ROOT),
        kind,
        namespaced,
        shortNames,
        categories,
        subresources,
        List.of());
  }

  String groupVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  boolean matches(ApiPath path) {
    return group.equals(path.group())
        && version.equals(path.version())
        && plural.equals(path.plural());
  }
}
