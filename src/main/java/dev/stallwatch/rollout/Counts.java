package dev.stallwatch.rollout;

/**
 * The DaemonSet status numbers, named as {@code kubectl get ds} shows them: DESIRED, CURRENT,
 * READY, UP-TO-DATE, AVAILABLE, plus unavailable and misscheduled.
 */
public record Counts(
    int desired,
    int current,
    int ready,
    int upToDate,
    int available,
    int unavailable,
    int misscheduled) {}
