package dev.stallwatch.rollout;

/**
 * Why a node holds a rollout back. The rules are tried in the order of {@code CauseRules} (the
 * first that matches wins): {@link #NodeExcluded} from eligibility first, {@link #Unknown} when
 * none matched. The constants are declared in that order ({@code CauseRulesTest} keeps the two the
 * same), so a cause added here without its rule in the right place fails a test. The names are a
 * contract (JSON, metrics, CRD).
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
  /**
   * The node cannot supply the requested resources: the scheduler finds none ({@code Insufficient
   * …}), the kubelet rejects the pod ({@code OutOf<resource>}) or evicts it under node pressure
   * ({@code Evicted}).
   */
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
