package dev.stallwatch.rollout;

import dev.stallwatch.rollout.NodeRow.Revision;
import dev.stallwatch.rollout.NodeRow.Standing;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Decides each node's standing in the rollout — updated, waiting for budget, holding it back
 * (updating, or stuck once longer than stall-after), excluded — and since when it holds it back.
 */
final class NodeAssessor {

  /** A node's row plus the next instant at which its standing changes with time alone. */
  record Assessment(NodeRow row, Instant nextCheck) {}

  private final DaemonSetView ds;
  private final RevisionSplit split;
  private final AnalyzerSettings settings;
  private final StallMemory memory;
  private final Instant now;
  private final Predicate<String> nodeGone;
  private final EventView failedCreate;

  /**
   * @param nodeGone whether a node the input lacks is known to be gone from the cluster (the input
   *     listed the nodes and could read them all), rather than merely unseen
   * @param failedCreate the newest FailedCreate Warning about the DaemonSet since the new revision,
   *     or null
   */
  NodeAssessor(
      DaemonSetView ds,
      RevisionSplit split,
      AnalyzerSettings settings,
      StallMemory memory,
      Instant now,
      Predicate<String> nodeGone,
      EventView failedCreate) {
    this.ds = ds;
    this.split = split;
    this.settings = settings;
    this.memory = memory;
    this.now = now;
    this.nodeGone = nodeGone;
    this.failedCreate = failedCreate;
  }

  /** The node's pods grouped by what the rollout sees in them. */
  private record NodePods(List<PodView> liveNew, List<PodView> liveOld, List<PodView> terminating) {
    boolean isEmpty() {
      return liveNew.isEmpty() && liveOld.isEmpty() && terminating.isEmpty();
    }
  }

  private static final NodePods EMPTY = new NodePods(List.of(), List.of(), List.of());

  private NodePods group(List<PodView> pods) {
    if (pods.isEmpty()) {
      return EMPTY;
    }
    if (pods.size() == 1) { // the usual node: no lists to grow
      PodView pod = pods.get(0);
      List<PodView> one = List.of(pod);
      if (pod.terminating()) {
        return new NodePods(List.of(), List.of(), one);
      }
      return split.isNew(pod)
          ? new NodePods(one, List.of(), List.of())
          : new NodePods(List.of(), one, List.of());
    }
    List<PodView> liveNew = new ArrayList<>();
    List<PodView> liveOld = new ArrayList<>();
    List<PodView> terminating = new ArrayList<>();
    for (PodView pod : pods) {
      if (pod.terminating()) {
        terminating.add(pod);
      } else if (split.isNew(pod)) {
        liveNew.add(pod);
      } else {
        liveOld.add(pod);
      }
    }
    return new NodePods(liveNew, liveOld, terminating);
  }

  /**
   * The row {@link #desired(NodeView, List)} gives a node whose only pod settles it — an available
   * new pod (updated), or an old pod that is not about to become available (waiting) — with no next
   * check; null for every other node. The usual node so gets its row without grouping its pod into
   * lists or wrapping the row in an {@link Assessment}.
   *
   * @param pod the DaemonSet's only pod targeting the node
   */
  NodeRow settled(NodeView node, PodView pod) {
    if (pod.terminating()) {
      return null;
    }
    if (!split.isNew(pod)) {
      return PodAvailability.availableAt(pod, ds.minReadySeconds(), now) == null
              && !(ds.advanced() != null && UpdateScope.preparingDelete(pod))
          ? row(node.name(), pod, Revision.OLD, Standing.WAITING)
          : null;
    }
    return available(pod) ? row(node.name(), pod, Revision.NEW, Standing.UPDATED) : null;
  }

  /**
   * Assesses a node that should run the DaemonSet.
   *
   * @param pods the DaemonSet's pods targeting the node, oldest first
   */
  Assessment desired(NodeView node, List<PodView> pods) {
    NodePods p = group(pods);
    List<PodView> liveNew = p.liveNew();
    for (int i = 0, n = liveNew.size(); i < n; i++) {
      if (available(liveNew.get(i))) {
        return plain(node.name(), liveNew.get(i), Revision.NEW, Standing.UPDATED);
      }
    }
    // A stall needs a rollout: a new pod that was Ready before its node went down is an outage.
    Instant down = p.liveNew().isEmpty() ? null : NodeOutage.downSince(node);
    if (down != null) {
      for (PodView pod : p.liveNew()) {
        if (NodeOutage.readyBefore(pod, down)) {
          return plain(node.name(), pod, Revision.NEW, Standing.UNAVAILABLE);
        }
      }
    }
    // ...nor one the node controller marked not Ready in an outage that no kubelet has reported
    // on since, nor one Ready again since its node's return, counting minReadySeconds from then.
    Instant back = down == null ? NodeOutage.backSince(node) : null;
    for (PodView pod : p.liveNew()) {
      if (NodeOutage.markedByNodeController(pod)
          || (back != null && NodeOutage.readyAgainAfter(pod, back))) {
        return plain(node.name(), pod, Revision.NEW, Standing.UNAVAILABLE);
      }
    }
    if (p.liveNew().isEmpty() && !p.liveOld().isEmpty()) {
      PodView old = p.liveOld().get(0);
      if (ds.advanced() != null && UpdateScope.preparingDelete(old)) {
        return preDeleteHook(node.name(), old, heldSince(node.name(), p));
      }
      return plain(node.name(), old, Revision.OLD, Standing.WAITING);
    }
    return holding(node.name(), node, p);
  }

  /**
   * Blocked at start: a desired node whose only pod is an unavailable old one on a node that is not
   * Ready, while the unavailable budget is used up and no node is updating, holds the rollout back
   * (since the node went down, or the rollout began if later); empty when that is not the case.
   */
  Optional<Assessment> blockedAtStart(NodeView node, List<PodView> pods) {
    NodePods p = group(pods);
    Instant down = NodeOutage.downSince(node);
    if (down == null
        || !p.liveNew().isEmpty()
        || !p.terminating().isEmpty()
        || p.liveOld().isEmpty()
        || anyAvailable(p.liveOld())) {
      return Optional.empty();
    }
    Instant start = split.rolloutStart();
    Instant since = start != null && start.isAfter(down) ? start : down;
    Instant remembered =
        memory.revisionHash().equals(split.newHash()) ? memory.heldSince().get(node.name()) : null;
    if (remembered != null && remembered.isBefore(since)) {
      since = remembered;
    }
    return Optional.of(hold(node.name(), node, p, since == Instant.MIN ? start : since));
  }

  /**
   * Assesses a node outside DESIRED; empty when the node does not concern the rollout.
   *
   * @param workLeft whether some desired node is not yet updated
   */
  Optional<Assessment> notDesired(
      NodeView node, NodeEligibility.Fit fit, List<PodView> pods, boolean workLeft) {
    NodePods p = group(pods);
    PodTemplateView oldTemplate = split.oldTemplate();
    if (oldTemplate != null && NodeEligibility.shouldRun(node, oldTemplate)) {
      return Optional.of(excluded(node, fit, p));
    }
    if (p.isEmpty()) {
      return Optional.empty();
    }
    if (workLeft && holdsUnavailablePod(p)) {
      return Optional.of(holding(node.name(), node, p));
    }
    PodView shown = first(p.liveNew(), p.liveOld(), p.terminating());
    return Optional.of(plain(node.name(), shown, revisionOf(p), Standing.NOT_DESIRED));
  }

  /**
   * Assesses a node the input lacks but a pod of the DaemonSet targets: whether it should run the
   * DaemonSet is unknown, so it is never "not desired". Its pod holds the rollout back as on a node
   * outside DESIRED.
   *
   * @param workLeft whether some desired node is not yet updated, as far as the input tells
   */
  Assessment unseen(String nodeName, List<PodView> pods, boolean workLeft) {
    NodePods p = group(pods);
    // A node known to be deleted holds nothing back: upstream counts only existing nodes.
    if (workLeft && holdsUnavailablePod(p) && !nodeGone.test(nodeName)) {
      return holding(nodeName, null, p);
    }
    PodView shown = first(p.liveNew(), p.liveOld(), p.terminating());
    return plain(nodeName, shown, revisionOf(p), Standing.UNKNOWN);
  }

  private boolean holdsUnavailablePod(NodePods p) {
    return !p.terminating().isEmpty() || !allAvailable(p.liveNew()) || !allAvailable(p.liveOld());
  }

  // Loops rather than streams from here on: each runs for most nodes of every analysis.

  private boolean anyAvailable(List<PodView> pods) {
    for (int i = 0, n = pods.size(); i < n; i++) {
      if (available(pods.get(i))) {
        return true;
      }
    }
    return false;
  }

  private boolean allAvailable(List<PodView> pods) {
    for (int i = 0, n = pods.size(); i < n; i++) {
      if (!available(pods.get(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean anyNotTerminal(List<PodView> pods) {
    for (int i = 0, n = pods.size(); i < n; i++) {
      if (!PodAvailability.isTerminal(pods.get(i))) {
        return true;
      }
    }
    return false;
  }

  private static Instant earlier(Instant a, Instant b) {
    return a == null || (b != null && b.isBefore(a)) ? b : a;
  }

  private Assessment excluded(NodeView node, NodeEligibility.Fit fit, NodePods p) {
    PodView shown = first(p.liveOld(), p.liveNew(), p.terminating());
    String reason = fit.mismatch() == null ? "NodeExcluded" : fit.mismatch().name();
    String message =
        "revision "
            + PhaseReport.describe(split.newSummary())
            + " no longer runs on node "
            + node.name()
            + " ("
            + fit.reason()
            + "); revision "
            + PhaseReport.describe(split.oldSummary())
            + " did";
    Instant since = split.rolloutStart();
    SuspectRules.Suspicion suspicion = SuspectRules.excluded(node.name());
    NodeRow row =
        new NodeRow(
            node.name(),
            revisionOf(p),
            shown == null ? null : shown.name(),
            shown == null ? List.of() : shown.images(),
            PodState.of(shown),
            Standing.EXCLUDED,
            Cause.NodeExcluded,
            reason,
            message,
            since,
            suspicion.suspect(),
            suspicion.because());
    return new Assessment(row, null);
  }

  private Assessment holding(String nodeName, NodeView node, NodePods p) {
    return hold(nodeName, node, p, heldSince(nodeName, p));
  }

  private Assessment hold(String nodeName, NodeView node, NodePods p, Instant since) {
    PodView shown = first(p.liveNew(), p.terminating(), p.liveOld());
    // A new pod that is Ready only waits out minReadySeconds and becomes available on its own: it
    // is stuck once Ready for stall-after (a minReadySeconds longer than that), not before. Ready
    // again after a blip of its container, kubelet or node long after its creation is no stall.
    Instant stuckFrom = since;
    Instant readySince = p.liveNew().isEmpty() ? null : p.liveNew().get(0).derived().readySince();
    if (stuckFrom != null && readySince != null && readySince.isAfter(stuckFrom)) {
      stuckFrom = readySince;
    }
    boolean stuck = stuckFrom != null && !now.isBefore(stuckFrom.plus(settings.stallAfter()));
    CauseRules.Finding finding =
        CauseRules.explain(
            new CauseRules.Facts(
                nodeName,
                node,
                shown,
                p.terminating(),
                ds.minReadySeconds(),
                now,
                settings.stallAfter(),
                node == null && nodeGone.test(nodeName),
                failedCreate));
    SuspectRules.Suspicion suspicion =
        SuspectRules.judge(
            new SuspectRules.Clues(
                nodeName,
                finding.cause(),
                finding.reason(),
                finding.message(),
                node,
                newPod(p),
                !p.liveNew().isEmpty() && anyNotTerminal(p.liveOld()),
                ds.template(),
                split.oldTemplate(),
                split.nothingEarlier()));
    NodeRow row =
        new NodeRow(
            nodeName,
            revisionOf(p),
            shown == null ? null : shown.name(),
            shown == null ? List.of() : shown.images(),
            PodState.of(shown),
            stuck ? Standing.STUCK : Standing.UPDATING,
            finding.cause(),
            finding.reason(),
            finding.message(),
            since,
            suspicion.suspect(),
            suspicion.because());
    return new Assessment(row, nextCheck(stuckFrom, stuck, p));
  }

  /**
   * Since when the node holds the rollout back: remembered by the caller for this revision, else
   * the creation of its oldest new-revision pod, else the deletion of its old pod, else the start
   * of the rollout (the new revision's creation; after a rollback, the newest revision's). A
   * watching caller that saw the node's pod at its last look without the node holding back dates
   * the hold from the pod's last Ready transition instead (else from that look).
   */
  private Instant heldSince(String nodeName, NodePods p) {
    // A new-revision pod being deleted holds the node from its deletion on, not from its
    // creation: a settled pod deleted a moment ago (seen before the DaemonSet's change, in the
    // order watches deliver) is no stall of its revision. Earlier holds are remembered.
    Instant evidence = null;
    for (PodView pod : p.liveNew()) {
      evidence = earlier(evidence, inPlaceStart(pod));
    }
    for (PodView pod : p.terminating()) {
      if (split.isNew(pod)) {
        evidence = earlier(evidence, pod.deletionTimestamp());
      }
    }
    if (evidence == null) {
      for (PodView pod : p.terminating()) {
        if (!split.isNew(pod)) {
          evidence = earlier(evidence, pod.deletionTimestamp());
        }
      }
    }
    boolean sameRevision = memory.revisionHash().equals(split.newHash());
    Instant remembered = sameRevision ? memory.heldSince().get(nodeName) : null;
    if (remembered != null && !remembered.isAfter(now)) {
      // The caller saw the hold begin: across the controller's re-creations of the pod (earlier
      // than the newest pod's creation), and after the pod had been available (later than it).
      return remembered;
    }
    // A hold remembered from the future came from a graceful deletion's deadline (a pod's
    // deletionTimestamp is when its grace period ends): the evidence at hand is better.
    Instant observed = memory.observedAt();
    if (evidence != null
        && remembered == null
        && sameRevision
        && observed != null
        && evidence.isBefore(observed)
        && !p.liveNew().isEmpty()) {
      // A watching caller saw this pod at its last look and the node not holding back: the pod
      // was available then and has turned unavailable since (a crash, a probe, its kubelet
      // restarting), which its Ready condition's last transition dates.
      Instant changed =
          p.liveNew().get(0).condition("Ready").map(PodView.Condition::lastTransition).orElse(null);
      return changed != null && changed.isAfter(evidence) ? changed : observed;
    }
    if (evidence != null) {
      return evidence;
    }
    // Only the rollout's start is known. A caller that has been watching (it looked at observedAt
    // and did not see this node holding back this revision) sees the hold begin now — unless this
    // rollout started after that look. Its last look itself may be long past in a quiet stall: a
    // rollback right after it would make an empty node look stuck at once.
    Instant start = split.rolloutStart();
    if (observed != null && (start == null || !start.isAfter(observed))) {
      return now;
    }
    return start;
  }

  /**
   * An old pod an Advanced DaemonSet's pre-delete hook holds ({@code PreparingDelete}): the user's
   * hook, not the new revision nor the node, keeps the rollout from replacing it.
   */
  private Assessment preDeleteHook(String nodeName, PodView old, Instant since) {
    boolean stuck = since != null && !now.isBefore(since.plus(settings.stallAfter()));
    NodeRow row =
        new NodeRow(
            nodeName,
            Revision.OLD,
            old.name(),
            old.images(),
            PodState.of(old),
            stuck ? Standing.STUCK : Standing.UPDATING,
            Cause.Unknown,
            "PreDeleteHook",
            "old pod "
                + old.name()
                + " waits in the DaemonSet's pre-delete hook ("
                + AdvancedStrategy.LIFECYCLE_STATE_LABEL
                + "="
                + AdvancedStrategy.PREPARING_DELETE
                + "): whatever the hook waits for has not released it",
            since,
            Suspect.Unknown,
            "the pre-delete hook is released by whoever set it, not by the new revision or the node");
    return new Assessment(row, stuck || since == null ? null : since.plus(settings.stallAfter()));
  }

  /**
   * When a new-revision pod began to run the new revision: its creation, or — for a pod an Advanced
   * DaemonSet updated in place, whose {@code InPlaceUpdateReady} condition is not True — when that
   * condition last changed (the in-place update's start).
   */
  private static Instant inPlaceStart(PodView pod) {
    Instant created = pod.created();
    for (PodView.Condition c : pod.conditions()) {
      if (AdvancedStrategy.IN_PLACE_UPDATE_READY.equals(c.type())
          && !"True".equals(c.status())
          && c.lastTransition() != null
          && (created == null || c.lastTransition().isAfter(created))) {
        return c.lastTransition();
      }
    }
    return created;
  }

  /** The node's oldest pod of the new revision, live or being deleted. */
  private PodView newPod(NodePods p) {
    if (!p.liveNew().isEmpty()) {
      return p.liveNew().get(0);
    }
    for (PodView pod : p.terminating()) {
      if (split.isNew(pod)) {
        return pod;
      }
    }
    return null;
  }

  private Instant nextCheck(Instant since, boolean stuck, NodePods p) {
    // The earliest candidate after now.
    Instant next = null;
    if (since != null && !stuck) {
      next = laterThanNow(next, since.plus(settings.stallAfter()));
    }
    for (PodView pod : p.liveNew()) {
      Instant at = PodAvailability.availableAt(pod, ds.minReadySeconds(), now);
      if (at != null) {
        next = laterThanNow(next, at);
      }
    }
    for (PodView pod : p.terminating()) {
      next = laterThanNow(next, pod.deletionTimestamp().plus(settings.stallAfter()));
    }
    return next;
  }

  private Instant laterThanNow(Instant best, Instant candidate) {
    return now.isBefore(candidate) ? earlier(best, candidate) : best;
  }

  private Assessment plain(String nodeName, PodView pod, Revision revision, Standing standing) {
    Instant next =
        standing == Standing.UPDATED || pod == null
            ? null
            : PodAvailability.availableAt(pod, ds.minReadySeconds(), now);
    return new Assessment(row(nodeName, pod, revision, standing), next);
  }

  private static NodeRow row(String nodeName, PodView pod, Revision revision, Standing standing) {
    return new NodeRow(
        nodeName,
        revision,
        pod == null ? null : pod.name(),
        pod == null ? List.of() : pod.images(),
        PodState.of(pod),
        standing,
        null,
        null,
        null,
        null);
  }

  /**
   * The revision a node effectively runs: new when a new pod is Ready, old while an old pod still
   * runs, none when the node is empty (old pod gone or going, new pod not running).
   */
  private Revision revisionOf(NodePods p) {
    List<PodView> liveNew = p.liveNew();
    for (int i = 0, n = liveNew.size(); i < n; i++) {
      if (PodAvailability.isReady(liveNew.get(i))) {
        return Revision.NEW;
      }
    }
    if (anyNotTerminal(p.liveOld())) {
      return Revision.OLD;
    }
    return Revision.NONE;
  }

  private boolean available(PodView pod) {
    return PodAvailability.isAvailable(pod, ds.minReadySeconds(), now);
  }

  @SafeVarargs
  private static PodView first(List<PodView>... lists) {
    for (List<PodView> list : lists) {
      if (!list.isEmpty()) {
        return list.get(0);
      }
    }
    return null;
  }
}
