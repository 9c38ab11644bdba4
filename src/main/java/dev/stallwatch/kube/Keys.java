package dev.stallwatch.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** How the operator and the CLI name one object in lines and maps: {@code namespace/name}. */
public final class Keys {
  private Keys() {}

  /** {@code namespace/name}; the name alone for an object without a namespace. */
  public static String of(HasMetadata o) {
    String ns = o.getMetadata().getNamespace();
    return ns == null || ns.isEmpty()
        ? o.getMetadata().getName()
        : ns + "/" + o.getMetadata().getName();
  }
}
