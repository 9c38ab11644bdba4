package dev.stallwatch.rollout;

/**
 * Every label and annotation name stallwatch reads or writes, spelled once: Kubernetes' own (the
 * DaemonSet controller's) and stallwatch's ({@value #STALLWATCH_PREFIX}…).
 */
public final class MetadataKeys {
  private MetadataKeys() {}

  /** Label the DaemonSet controller puts on each pod and ControllerRevision: the revision hash. */
  public static final String REVISION_HASH_LABEL = "controller-revision-hash";

  /**
   * Label the DaemonSet controller puts on each pod: the DaemonSet's template generation when it
   * was created. Only daemon pods carry it, so it also selects them.
   */
  public static final String TEMPLATE_GENERATION_LABEL = "pod-template-generation";

  /** Annotation the API server keeps on a DaemonSet: its template generation. */
  public static final String TEMPLATE_GENERATION_ANNOTATION =
      "deprecated.daemonset.template.generation";

  /** Every stallwatch annotation and label starts with this. */
  public static final String STALLWATCH_PREFIX = "stallwatch.dev/";

  /** DaemonSet annotation: {@code "true"} lets a stall narrow the rollout to fewer nodes. */
  public static final String ALLOW_NODE_EXCLUSION = STALLWATCH_PREFIX + "allow-node-exclusion";

  /** DaemonSet annotation: {@code "true"} opts into the operator's auto-rollback. */
  public static final String AUTO_ROLLBACK = STALLWATCH_PREFIX + "auto-rollback";

  /** RolloutStall annotation: {@code "true"} accepts a NodeExcluded stall. */
  public static final String ACKNOWLEDGED = STALLWATCH_PREFIX + "acknowledged";

  /** RolloutStall label: the name of the DaemonSet the stall is about. */
  public static final String DAEMONSET_LABEL = STALLWATCH_PREFIX + "daemonset";

  /** DaemonSet annotation of a rollback: the revision hash rolled back from. */
  public static final String ROLLED_BACK_FROM = STALLWATCH_PREFIX + "rolled-back-from";

  /** DaemonSet annotation of a rollback: the revision hash rolled back to. */
  public static final String ROLLED_BACK_TO = STALLWATCH_PREFIX + "rolled-back-to";

  /** DaemonSet annotation of a rollback: when (RFC 3339). */
  public static final String ROLLED_BACK_AT = STALLWATCH_PREFIX + "rolled-back-at";

  /** DaemonSet annotation of a rollback: who ({@code stallwatch undo}, the operator, …). */
  public static final String ROLLED_BACK_BY = STALLWATCH_PREFIX + "rolled-back-by";
}
