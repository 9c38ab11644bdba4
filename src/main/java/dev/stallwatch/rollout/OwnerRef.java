package dev.stallwatch.rollout;

/** The controller owner reference of an object (kind, name and uid as the API gives them). */
public record OwnerRef(String kind, String name, String uid) {
  public OwnerRef {
    // Shared by every pod of a DaemonSet: one instance each, so the analysis's ownership check
    // per pod reads strings already in the cache (and the views hold one copy).
    kind = kind == null ? null : kind.intern();
    name = name == null ? null : name.intern();
    uid = uid == null ? null : uid.intern();
  }
}
