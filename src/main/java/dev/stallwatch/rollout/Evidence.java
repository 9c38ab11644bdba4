package dev.stallwatch.rollout;

/**
 * How much of what a verdict depends on the input held. The names are a contract (JSON, CRD).
 * Without {@link #Full} evidence the analyzer never says {@code Complete} from its own recount: it
 * decides from the DaemonSet's {@code .status} and names the objects it missed.
 */
public enum Evidence {
  /** The DaemonSet, its pods and the cluster's nodes. */
  Full,
  /**
   * Nodes were in the input, but not every one the verdict depends on: a node holding a pod of the
   * DaemonSet could not be read or is not in the input (or the input held no pods at all).
   */
  Partial,
  /** No Node at all (a plain {@code kubectl get ds -o json}): only {@code .status} can tell. */
  StatusOnly
}
