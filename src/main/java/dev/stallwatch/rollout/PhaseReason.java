package dev.stallwatch.rollout;

/**
 * The reason of a verdict in every phase but {@link Phase#Stalled}, whose reason is the stalled
 * node's own (a Kubernetes reason such as {@code ImagePullBackOff}). The names are a contract: they
 * appear in {@code diagnose -o json}, the RolloutStall status and the CLI's tables.
 */
public enum PhaseReason {
  /** Every desired node runs an available pod of the new revision (recounted, or per .status). */
  RolloutComplete,
  /** The OnDelete strategy: old pods are replaced only when someone deletes them. */
  OnDelete,
  /** An Advanced DaemonSet's rollingUpdate.paused is true: its owner holds the rollout. */
  Paused,
  /** The DaemonSet controller has not written a status (or its observedGeneration) yet. */
  StatusNotReported,
  /** The controller has not yet observed the DaemonSet's current generation. */
  GenerationNotObserved,
  /** A node is being updated to the new revision, within stall-after. */
  Updating,
  /** Nodes the rollout already passed are not Ready: an outage, not a stall. */
  NodesUnavailable,
  /** Nodes or pods are missing from the input: .status is reported, not recounted. */
  StatusIncomplete,
  /** Nothing is updating: the controller waits for room in maxUnavailable/maxSurge. */
  WaitingForBudget
}
