package dev.stallwatch.embedded;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionNames;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What the server serves right now: the built-in types plus every served version of every
 * CustomResourceDefinition currently stored in the mock. Reading the CRDs from the store on each
 * request keeps discovery right after anyone (a test, the operator, kubectl) creates or deletes
 * one.
 */
final class ResourceCatalog {

  private final Supplier<List<CustomResourceDefinition>> storedCrds;

  ResourceCatalog(Supplier<List<CustomResourceDefinition>> storedCrds) {
    this.storedCrds = storedCrds;
  }

  /** Every served resource, built-ins first, in a stable order. */
  List<ServedResource> all() {
    List<ServedResource> all = new ArrayList<>(BuiltinResources.ALL);
    for (CustomResourceDefinition crd : storedCrds.get()) {
      all.addAll(fromCrd(crd));
    }
    return all;
  }

  /** The resource a path addresses, if the server announces it. */
  Optional<ServedResource> find(ApiPath path) {
    return all().stream().filter(r -> r.matches(path)).findFirst();
  }

  /** Group name → served versions, preferred (storage) version first; the core group is "". */
  Map<String, List<String>> groupVersions() {
    Map<String, List<String>> groups = new LinkedHashMap<>();
    for (ServedResource r : all()) {
      List<String> versions = groups.computeIfAbsent(r.group(), g -> new ArrayList<>());
      if (!versions.contains(r.version())) {
        versions.add(r.version());
      }
    }
    for (CustomResourceDefinition crd : storedCrds.get()) {
      List<String> versions = groups.get(crd.getSpec().getGroup());
      crd.getSpec().getVersions().stream()
          .filter(v -> Boolean.TRUE.equals(v.getStorage()))
          .map(CustomResourceDefinitionVersion::getName)
          .filter(versions::remove)
          .forEach(storage -> versions.add(0, storage));
    }
    return groups;
  }

  /** The served versions of a CRD as resources; a CRD without spec or names serves nothing. */
  static List<ServedResource> fromCrd(CustomResourceDefinition crd) {
    if (crd.getSpec() == null || crd.getSpec().getNames() == null) {
      return List.of();
    }
    CustomResourceDefinitionNames names = crd.getSpec().getNames();
    List<ServedResource> served = new ArrayList<>();
    for (CustomResourceDefinitionVersion v : crd.getSpec().getVersions()) {
      if (!Boolean.TRUE.equals(v.getServed())) {
        continue;
      }
      List<String> subresources = new ArrayList<>();
      if (v.getSubresources() != null && v.getSubresources().getStatus() != null) {
        subresources.add("status");
      }
      if (v.getSubresources() != null && v.getSubresources().getScale() != null) {
        subresources.add("scale");
      }
      served.add(
          new ServedResource(
              crd.getSpec().getGroup(),
              v.getName(),
              names.getPlural(),
              Objects.requireNonNullElse(
                  names.getSingular(), names.getKind().toLowerCase(java.util.Locale.ROOT)),
              names.getKind(),
              "Namespaced".equals(crd.getSpec().getScope()),
              orEmpty(names.getShortNames()),
              orEmpty(names.getCategories()),
              subresources,
              orEmpty(v.getAdditionalPrinterColumns())));
    }
    return served;
  }

  private static <T> List<T> orEmpty(Collection<T> values) {
    return values == null ? List.of() : List.copyOf(values);
  }
}
