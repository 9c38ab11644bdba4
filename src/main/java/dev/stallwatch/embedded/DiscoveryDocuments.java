package dev.stallwatch.embedded;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.APIVersionsBuilder;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.ServerAddressByClientCIDR;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The legacy (non-aggregated) discovery documents kubectl and fabric8 read to map a name such as
 * {@code ds}, {@code rolloutstalls} or the category {@code stallwatch} to a REST path.
 */
final class DiscoveryDocuments {

  private static final List<String> OBJECT_VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");
  private static final List<String> SUBRESOURCE_VERBS = List.of("get", "patch", "update");

  private final ResourceCatalog catalog;
  private final Supplier<String> serverAddress;

  DiscoveryDocuments(ResourceCatalog catalog, Supplier<String> serverAddress) {
    this.catalog = catalog;
    this.serverAddress = serverAddress;
  }

  /** The document for a discovery path, or empty when the path names no served group/version. */
  Optional<KubernetesResource> forPath(ApiPath path) {
    boolean core = path.rawPath().startsWith("/api/") || path.rawPath().equals("/api");
    if (core && path.version().isEmpty()) {
      return Optional.of(apiVersions());
    }
    if (!core && path.group().isEmpty()) {
      return Optional.of(
          new APIGroupListBuilder()
              .withApiVersion("v1")
              .withKind("APIGroupList")
              .withGroups(namedGroups())
              .build());
    }
    Map<String, List<String>> groups = catalog.groupVersions();
    List<String> versions = groups.get(path.group());
    if (versions == null) {
      return Optional.empty();
    }
    if (path.version().isEmpty()) {
      return Optional.of(group(path.group(), versions));
    }
    if (!versions.contains(path.version())) {
      return Optional.empty();
    }
    return Optional.of(resourceList(path.group(), path.version()));
  }

  private KubernetesResource apiVersions() {
    return new APIVersionsBuilder()
        .withKind("APIVersions")
        .withVersions("v1")
        .withServerAddressByClientCIDRs(
            new ServerAddressByClientCIDR("0.0.0.0/0", serverAddress.get()))
        .build();
  }

  private List<APIGroup> namedGroups() {
    return catalog.groupVersions().entrySet().stream()
        .filter(e -> !e.getKey().isEmpty())
        .map(e -> group(e.getKey(), e.getValue()))
        .toList();
  }

  private static APIGroup group(String name, List<String> versions) {
    List<GroupVersionForDiscovery> gvs =
        versions.stream().map(v -> new GroupVersionForDiscovery(name + "/" + v, v)).toList();
    return new APIGroupBuilder()
        .withApiVersion("v1")
        .withKind("APIGroup")
        .withName(name)
        .withVersions(gvs)
        .withPreferredVersion(gvs.get(0))
        .build();
  }

  private KubernetesResource resourceList(String group, String version) {
    APIResourceListBuilder list =
        new APIResourceListBuilder()
            .withApiVersion("v1")
            .withKind("APIResourceList")
            .withGroupVersion(group.isEmpty() ? version : group + "/" + version);
    for (ServedResource r : catalog.all()) {
      if (!r.group().equals(group) || !r.version().equals(version)) {
        continue;
      }
      list.addToResources(
          new APIResourceBuilder()
              .withName(r.plural())
              .withSingularName(r.singular())
              .withKind(r.kind())
              .withNamespaced(r.namespaced())
              .withVerbs(OBJECT_VERBS)
              .withShortNames(r.shortNames().isEmpty() ? null : r.shortNames())
              .withCategories(r.categories().isEmpty() ? null : r.categories())
              .build());
      for (String sub : r.subresources()) {
        list.addToResources(
            new APIResourceBuilder()
                .withName(r.plural() + "/" + sub)
                .withSingularName("")
                .withKind(r.kind())
                .withNamespaced(r.namespaced())
                .withVerbs(SUBRESOURCE_VERBS)
                .build());
      }
    }
    return list.build();
  }
}
