package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.List;

/**
 * The analyzer's answer for one DaemonSet.
 *
 * @param cause the cause of the earliest stalled node; null unless {@link Phase#Stalled}
 * @param reason a short CamelCase reason for the phase (the Kubernetes reason when stalled)
 * @param message one human sentence: what holds the rollout, where, since when
 * @param stalledNodes stuck and (unallowed) excluded nodes, earliest first
 * @param stalledSince when the earliest stalled node began holding the rollout back
 * @param oldRevision null when every pod runs the new revision and no earlier revision is known
 * @param newRevision null only when the DaemonSet has neither revisions nor a template generation
 * @param counts recomputed with the upstream controller's definitions
 * @param reported the DaemonSet's own {@code .status}, or null when it has none
 * @param maxUnavailable the resolved budget (after percent rounding and the both-zero rule)
 * @param maxSurge the resolved surge budget
 * @param nodes the generation split: every node that should run the DaemonSet or holds its pod
 * @param nextCheck the earliest instant at which the verdict changes with time alone (a node
 *     crossing stall-after, a pod crossing minReadySeconds); null when nothing is pending
 * @param evidence how much of what the verdict depends on the input held
 * @param missing what the input lacked, one phrase each ({@code "node gpu-node-2 could not be
 *     read"}); empty with {@link Evidence#Full}
 * @param suspect would rolling back help? That of the earliest stalled node; null unless stalled
 * @param suspectReason why, finishing "rollback would help: yes, because …"; null unless stalled
 * @param pace nodes left, and while the rollout is {@link Phase#Progressing} its pace and time left
 * @param apiVersion the DaemonSet's API version: {@code apps/v1}, or an OpenKruise Advanced
 *     DaemonSet's ({@code apps.kruise.io/v1beta1}, {@code apps.kruise.io/v1alpha1})
 */
public record RolloutVerdict(
    ObjectRef daemonSet,
    Phase phase,
    Cause cause,
    String reason,
    String message,
    List<String> stalledNodes,
    Instant stalledSince,
    RevisionSummary oldRevision,
    RevisionSummary newRevision,
    Counts counts,
    Counts reported,
    Long observedGeneration,
    long generation,
    int maxUnavailable,
    int maxSurge,
    List<NodeRow> nodes,
    Instant nextCheck,
    Evidence evidence,
    List<String> missing,
    Suspect suspect,
    String suspectReason,
    Pace pace,
    String apiVersion) {

  /** The verdict on an {@code apps/v1} DaemonSet. */
  public RolloutVerdict(
      ObjectRef daemonSet,
      Phase phase,
      Cause cause,
      String reason,
      String message,
      List<String> stalledNodes,
      Instant stalledSince,
      RevisionSummary oldRevision,
      RevisionSummary newRevision,
      Counts counts,
      Counts reported,
      Long observedGeneration,
      long generation,
      int maxUnavailable,
      int maxSurge,
      List<NodeRow> nodes,
      Instant nextCheck,
      Evidence evidence,
      List<String> missing,
      Suspect suspect,
      String suspectReason,
      Pace pace) {
    this(
        daemonSet,
        phase,
        cause,
        reason,
        message,
        stalledNodes,
        stalledSince,
        oldRevision,
        newRevision,
        counts,
        reported,
        observedGeneration,
        generation,
        maxUnavailable,
        maxSurge,
        nodes,
        nextCheck,
        evidence,
        missing,
        suspect,
        suspectReason,
        pace,
        APPS_V1);
  }

  /** The API version of the Kubernetes DaemonSet. */
  public static final String APPS_V1 = "apps/v1";

  public RolloutVerdict {
    apiVersion = apiVersion == null || apiVersion.isBlank() ? APPS_V1 : apiVersion;
    pace = pace == null ? Pace.UNKNOWN : pace;
    stalledNodes = stalledNodes == null ? List.of() : List.copyOf(stalledNodes);
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
    evidence = evidence == null ? Evidence.Full : evidence;
    missing = missing == null ? List.of() : List.copyOf(missing);
  }

  /** A verdict without pace (built by hand: tests, fixtures). */
  public RolloutVerdict(
      ObjectRef daemonSet,
      Phase phase,
      Cause cause,
      String reason,
      String message,
      List<String> stalledNodes,
      Instant stalledSince,
      RevisionSummary oldRevision,
      RevisionSummary newRevision,
      Counts counts,
      Counts reported,
      Long observedGeneration,
      long generation,
      int maxUnavailable,
      int maxSurge,
      List<NodeRow> nodes,
      Instant nextCheck,
      Evidence evidence,
      List<String> missing,
      Suspect suspect,
      String suspectReason) {
    this(
        daemonSet,
        phase,
        cause,
        reason,
        message,
        stalledNodes,
        stalledSince,
        oldRevision,
        newRevision,
        counts,
        reported,
        observedGeneration,
        generation,
        maxUnavailable,
        maxSurge,
        nodes,
        nextCheck,
        evidence,
        missing,
        suspect,
        suspectReason,
        Pace.UNKNOWN);
  }

  /** A verdict on full evidence. */
  public RolloutVerdict(
      ObjectRef daemonSet,
      Phase phase,
      Cause cause,
      String reason,
      String message,
      List<String> stalledNodes,
      Instant stalledSince,
      RevisionSummary oldRevision,
      RevisionSummary newRevision,
      Counts counts,
      Counts reported,
      Long observedGeneration,
      long generation,
      int maxUnavailable,
      int maxSurge,
      List<NodeRow> nodes,
      Instant nextCheck) {
    this(
        daemonSet,
        phase,
        cause,
        reason,
        message,
        stalledNodes,
        stalledSince,
        oldRevision,
        newRevision,
        counts,
        reported,
        observedGeneration,
        generation,
        maxUnavailable,
        maxSurge,
        nodes,
        nextCheck,
        Evidence.Full,
        List.of(),
        null,
        null);
  }

  public boolean stalled() {
    return phase == Phase.Stalled;
  }

  /** The new revision's hash; "" when it is not known. */
  public String newHash() {
    return newRevision == null ? "" : newRevision.hash();
  }

  /** The cause, {@link Cause#Unknown} when none was found. */
  public Cause causeOrUnknown() {
    return cause == null ? Cause.Unknown : cause;
  }

  /** Which nodes run which revision, in the order of {@link #nodes}. */
  public RevisionNodes split() {
    return RevisionNodes.of(nodes);
  }
}
