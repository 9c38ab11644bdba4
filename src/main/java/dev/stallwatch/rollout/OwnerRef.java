package dev.stallwatch.rollout;

/** The controller owner reference of an object (kind, name and uid as the API gives them). */
public record OwnerRef(String kind, String name, String uid) {}
