package dev.stallwatch.rollout;

/**
 * Why a node holds a rollout back. Declaration order is the rule order: the first that matches
 * wins. The names are a contract (JSON, metrics, CRD).
 */
public enum Cause {
  /** The old revision would run on the node and the new one would not: DESIRED shrank. */
  NodeExcluded,
  /** The node is not Ready, unreachable, or the pod on it is stuck terminating. */
  NodeUnavailable,
  /**
   * No pod on the node, and the controller reports it could not create one (a Warning Event
   * FailedCreate newer than the new revision: quota, an admission webhook, Pod Security).
   */
  FailedCreate,
  /** An image cannot be pulled. */
  ImagePull,
  /** The node cannot supply the requested resources. */
  InsufficientResources,
  /** The scheduler or kubelet admission rejects the pod for another reason. */
  Unschedulable,
  /** A container keeps failing to start. */
  CrashLoop,
  /** The pod runs but never becomes Ready (or not for minReadySeconds). */
  NotReady,
  /** None of the above. */
  Unknown
}
