package dev.stallwatch.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the operator last observed of a stalled rollout. Times are RFC 3339 strings, as in every
 * Kubernetes object. Fields this version does not know — written by a later release, read after a
 * rollback to this one — are ignored, not refused (ForwardCompatibilityTest).
 *
 * @param phase {@code Active} while the rollout is stalled, {@code Resolved} afterwards
 * @param node the primary stalled node: the one that stalled first (ties by name)
 * @param nodes every stalled node, earliest first
 * @param stalledNodeCount the size of {@code nodes}, for a printer column
 * @param cause the cause of the primary node (see the analyzer's causes)
 * @param reason the Kubernetes reason behind the cause, e.g. {@code ImagePullBackOff}
 * @param message one sentence: what holds the rollout, where, since when
 * @param evidence {@code Full}, {@code Partial} or {@code StatusOnly}: how much of what the verdict
 *     depends on the operator could read (see the analyzer's evidence)
 * @param suspect {@code NewRevision}, {@code Node} or {@code Unknown}: would rolling back help?
 *     (that of the primary node)
 * @param suspectReason why, finishing "rollback would help: yes, because …"
 * @param ready READY/DESIRED as {@code kubectl get ds} would show it after recounting, e.g. 2/3
 * @param stalledSince when the primary node began holding the rollout back
 * @param lastObserved when the operator last wrote a change of this stall
 * @param resolvedAt when the stall was resolved; null while active
 * @param rollback the rollback away from this stall's revision (by {@code stallwatch undo}, the
 *     operator's auto-rollback or another client); null when there was none. Kept for the life of
 *     the stall: it is also how the operator knows never to roll back twice, nor a rollback.
 * @param rollbackWithheld with auto-rollback on and the DaemonSet opted in: why the operator did
 *     not roll back a stall that was due (the suspect is not the new revision); null otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record RolloutStallStatus(
    String phase,
    String node,
    List<StalledNode> nodes,
    Integer stalledNodeCount,
    String cause,
    String reason,
    String message,
    String evidence,
    String suspect,
    String suspectReason,
    Revision oldRevision,
    Revision newRevision,
    StallCounts counts,
    String ready,
    NodeSplit split,
    String stalledSince,
    String lastObserved,
    String resolvedAt,
    Rollback rollback,
    String rollbackWithheld,
    List<Condition> conditions) {

  public static final String ACTIVE = "Active";
  public static final String RESOLVED = "Resolved";

  /** True while the rollout is stalled. */
  public boolean active() {
    return ACTIVE.equals(phase);
  }

  /** {@code stalledSince} as an instant; empty when absent or not RFC 3339 (hand-edited). */
  public Optional<Instant> stalledSinceTime() {
    return time(stalledSince);
  }

  /** {@code resolvedAt} as an instant; empty while active or when not RFC 3339 (hand-edited). */
  public Optional<Instant> resolvedAtTime() {
    return time(resolvedAt);
  }

  /**
   * A time this status wrote, read back: the one place its RFC 3339 strings become instants. Empty
   * for null or a value someone edited into something else; each caller decides what that means.
   */
  static Optional<Instant> time(String value) {
    if (value == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(value.trim()));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** A copy that differs only in {@code lastObserved}: used to tell real changes apart. */
  public RolloutStallStatus withLastObserved(String value) {
    return toBuilder().lastObserved(value).build();
  }

  /** A copy with {@code rollback} recorded; this very status when it already says so. */
  public RolloutStallStatus withRollback(Rollback value) {
    if (Objects.equals(rollback, value)) {
      return this;
    }
    return toBuilder().rollback(value).build();
  }

  /** A builder of an empty status (no phase, no nodes, no conditions). */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder that starts from this status. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.phase = phase;
    b.node = node;
    b.nodes = nodes;
    b.stalledNodeCount = stalledNodeCount;
    b.cause = cause;
    b.reason = reason;
    b.message = message;
    b.evidence = evidence;
    b.suspect = suspect;
    b.suspectReason = suspectReason;
    b.oldRevision = oldRevision;
    b.newRevision = newRevision;
    b.counts = counts;
    b.ready = ready;
    b.split = split;
    b.stalledSince = stalledSince;
    b.lastObserved = lastObserved;
    b.resolvedAt = resolvedAt;
    b.rollback = rollback;
    b.rollbackWithheld = rollbackWithheld;
    b.conditions = conditions;
    return b;
  }

  /** Builds a status field by field, instead of 21 positions. */
  public static final class Builder {
    private String phase;
    private String node;
    private List<StalledNode> nodes = List.of();
    private Integer stalledNodeCount = 0;
    private String cause;
    private String reason;
    private String message;
    private String evidence;
    private String suspect;
    private String suspectReason;
    private Revision oldRevision;
    private Revision newRevision;
    private StallCounts counts;
    private String ready;
    private NodeSplit split;
    private String stalledSince;
    private String lastObserved;
    private String resolvedAt;
    private Rollback rollback;
    private String rollbackWithheld;
    private List<Condition> conditions = List.of();

    private Builder() {}

    public Builder phase(String value) {
      this.phase = value;
      return this;
    }

    public Builder node(String value) {
      this.node = value;
      return this;
    }

    public Builder nodes(List<StalledNode> value) {
      this.nodes = value;
      return this;
    }

    public Builder stalledNodeCount(Integer value) {
      this.stalledNodeCount = value;
      return this;
    }

    public Builder cause(String value) {
      this.cause = value;
      return this;
    }

    public Builder reason(String value) {
      this.reason = value;
      return this;
    }

    public Builder message(String value) {
      this.message = value;
      return this;
    }

    public Builder evidence(String value) {
      this.evidence = value;
      return this;
    }

    public Builder suspect(String value) {
      this.suspect = value;
      return this;
    }

    public Builder suspectReason(String value) {
      this.suspectReason = value;
      return this;
    }

    public Builder oldRevision(Revision value) {
      this.oldRevision = value;
      return this;
    }

    public Builder newRevision(Revision value) {
      this.newRevision = value;
      return this;
    }

    public Builder counts(StallCounts value) {
      this.counts = value;
      return this;
    }

    public Builder ready(String value) {
      this.ready = value;
      return this;
    }

    public Builder split(NodeSplit value) {
      this.split = value;
      return this;
    }

    public Builder stalledSince(String value) {
      this.stalledSince = value;
      return this;
    }

    public Builder lastObserved(String value) {
      this.lastObserved = value;
      return this;
    }

    public Builder resolvedAt(String value) {
      this.resolvedAt = value;
      return this;
    }

    public Builder rollback(Rollback value) {
      this.rollback = value;
      return this;
    }

    public Builder rollbackWithheld(String value) {
      this.rollbackWithheld = value;
      return this;
    }

    public Builder conditions(List<Condition> value) {
      this.conditions = value;
      return this;
    }

    public RolloutStallStatus build() {
      return new RolloutStallStatus(
          phase,
          node,
          nodes,
          stalledNodeCount,
          cause,
          reason,
          message,
          evidence,
          suspect,
          suspectReason,
          oldRevision,
          newRevision,
          counts,
          ready,
          split,
          stalledSince,
          lastObserved,
          resolvedAt,
          rollback,
          rollbackWithheld,
          conditions);
    }
  }

  /**
   * One node that holds the rollout back.
   *
   * @param pod the DaemonSet's pod on it that tells why (the new one, else the one being deleted,
   *     else the old one); null when the node has none
   * @param suspect whether the new revision or the node is to blame for this node
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record StalledNode(
      String name,
      String pod,
      String cause,
      String reason,
      String message,
      String since,
      String suspect) {

    /** A node known only by its name: the verdict has no row for it. */
    public static StalledNode named(String name) {
      return new StalledNode(name, null, null, null, null, null, null);
    }

    /** {@code since} as an instant; empty when absent or not RFC 3339. */
    public Optional<Instant> sinceTime() {
      return time(since);
    }
  }

  /**
   * A revision of the DaemonSet.
   *
   * @param hash the {@code controller-revision-hash}
   * @param revision the ControllerRevision's {@code .revision}, null when only known from pods
   * @param images the images of its template
   * @param image the images joined by {@code ", "}, for a printer column
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Revision(String hash, Long revision, List<String> images, String image) {}

  /**
   * A rollback of the DaemonSet away from the stalled revision.
   *
   * @param from the hash of the revision rolled back (the stall's revision)
   * @param to the hash of the revision restored
   * @param at when it was rolled back (for another client's rollback: when the operator saw it);
   *     null when the record on the DaemonSet had no readable time
   * @param by {@code stallwatch operator} (auto-rollback) or {@code stallwatch undo}; null for
   *     another client ({@code kubectl rollout undo}, a GitOps revert)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Rollback(String from, String to, String at, String by) {

    /** {@code at} as an instant; empty when absent or not RFC 3339. */
    public Optional<Instant> atTime() {
      return time(at);
    }
  }

  /** The DaemonSet's numbers, recomputed by the analyzer. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record StallCounts(
      int desired,
      int current,
      int ready,
      int upToDate,
      int available,
      int unavailable,
      int misscheduled) {}

  /**
   * Which nodes run each revision, and how many.
   *
   * @param summary e.g. {@code 2 old / 0 new / 1 none}
   * @param oldNodes the nodes running the old revision (at most {@value #MAX_LISTED}; the count is
   *     exact)
   * @param newNodes the nodes running the new revision (at most {@value #MAX_LISTED})
   * @param noneNodes the nodes without a pod of the DaemonSet (at most {@value #MAX_LISTED})
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record NodeSplit(
      @com.fasterxml.jackson.annotation.JsonProperty("old") int oldCount,
      @com.fasterxml.jackson.annotation.JsonProperty("new") int newCount,
      @com.fasterxml.jackson.annotation.JsonProperty("none") int noneCount,
      String summary,
      List<String> oldNodes,
      List<String> newNodes,
      List<String> noneNodes) {
    /** Names listed per revision: a status stays small on a cluster of thousands of nodes. */
    public static final int MAX_LISTED = 100;
  }
}
