package dev.stallwatch.rollout;

/** Identifies a namespaced object; {@code uid} may be null when the input did not carry it. */
public record ObjectRef(String namespace, String name, String uid) {
  public ObjectRef {
    namespace = namespace == null ? "" : namespace;
    name = name == null ? "" : name;
  }

  @Override
  public String toString() {
    return namespace.isEmpty() ? name : namespace + "/" + name;
  }
}
