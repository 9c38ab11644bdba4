package dev.stallwatch.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * How the operator, the CLI and the auto-rollback name one object in lines, maps and indexes:
 * {@code namespace/name}, the name alone for an object without a namespace.
 */
public final class Keys {
  private Keys() {}

  /** The key of {@code o}. */
  public static String of(HasMetadata o) {
    return of(o.getMetadata().getNamespace(), o.getMetadata().getName());
  }

  /** The key of the object {@code name} in {@code namespace} (null or empty: none). */
  public static String of(String namespace, String name) {
    return namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
  }
}
