package dev.stallwatch.rollout;

import dev.stallwatch.rollout.NodeAssessor.Assessment;
import dev.stallwatch.rollout.NodeRow.Standing;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The rollout analyzer: from one DaemonSet's snapshot and an evaluation instant to a {@link
 * RolloutVerdict}. Pure: everything it knows comes in through its arguments.
 *
 * <p>It recomputes the status numbers as the upstream controller counts them, builds the per-node
 * generation split, and decides the phase: {@code Stalled} when a node has held the rollout back
 * for longer than stall-after (or was excluded by the new template), {@code Complete} when every
 * desired node runs an available pod of the new revision and the controller has observed the
 * current generation, {@code OnDelete} for that strategy, else {@code Progressing}.
 */
public final class RolloutAnalyzer {
  private static final Comparator<NodeRow> EARLIEST_FIRST =
      Comparator.comparing(NodeRow::since, Comparator.nullsLast(Comparator.naturalOrder()))
          .thenComparing(NodeRow::node);

  private RolloutAnalyzer() {}

  /** Analyzes a snapshot with no remembered history. */
  public static RolloutVerdict analyze(
      RolloutSnapshot snapshot, Instant now, AnalyzerSettings settings) {
    return analyze(snapshot, now, settings, StallMemory.NONE);
  }

  /**
   * Analyzes a snapshot.
   *
   * @param now the evaluation instant (the caller's clock)
   * @param memory since when nodes have held back the rollout, as remembered across snapshots
   */
  public static RolloutVerdict analyze(
      RolloutSnapshot snapshot, Instant now, AnalyzerSettings settings, StallMemory memory) {
    Objects.requireNonNull(now, "now");
    DaemonSetView ds = snapshot.daemonSet();
    List<PodView> pods = new ArrayList<>(snapshot.pods().size());
    for (PodView p : snapshot.pods()) {
      if (Ownership.ownsPod(ds, p) && !(p.terminating() && PodAvailability.isTerminal(p))) {
        pods.add(p);
      }
    }
    List<RevisionView> revisions = new ArrayList<>();
    for (RevisionView r : snapshot.revisions()) {
      if (Ownership.ownsRevision(ds, r)) {
        revisions.add(r);
      }
    }
    // The nodes in name order (so that the rows come out in that order) and looked up by name:
    // the snapshot's node index, made once per node list (the first of two nodes with one name
    // wins, as before). Each node's eligibility and pods are placed once, by the node's position;
    // the status counts and the assessment share them.
    NodeIndex index = snapshot.nodeIndex();
    Map<String, NodeView> nodes = index.named();
    Placement placed = Placement.of(index, ds.template(), pods);
    // An Advanced DaemonSet whose rollout stallwatch cannot follow node by node is judged from
    // .status only, the reason named in the message; never guessed into a stall.
    String notJudged = ds.advanced() == null ? "" : ds.advanced().notJudged();
    Coverage coverage =
        notJudged.isEmpty()
            ? Coverage.of(
                index.isEmpty(),
                snapshot.unreadableNodes(),
                snapshot.podsListed(),
                placed.elsewhere().keySet())
            : Coverage.notJudged(notJudged);
    boolean perNode = snapshot.podsListed() && notJudged.isEmpty();
    RevisionSplit split = RevisionSplit.of(ds, revisions, pods);
    Counts counts = StatusCounts.compute(ds, placed, split, now);
    NodeAssessor assessor =
        new NodeAssessor(
            ds,
            split,
            settings,
            memory,
            now,
            nodeGone(nodes, snapshot),
            failedCreate(ds, split, snapshot.events()));
    // Without pods in the input no node can be judged one by one: every node would look empty.
    // The verdict then follows .status, as it does without nodes.
    UpdateScope scope = perNode ? UpdateScope.of(ds, placed, split, now) : UpdateScope.NONE;
    Rows rows = perNode ? assess(ds, placed, assessor, coverage, counts, scope) : Rows.NONE;
    Pace pace =
        perNode
            ? pace(ds, placed, split, now).pace(counts.desired() - scope.count())
            : new Pace(null, Math.max(0, counts.desired() - counts.upToDate()), null);
    return decide(ds, split, counts, rows, coverage, pace, maintained(nodes), scope);
  }

  /** Whether the node of that name carries a {@link Maintenance} signal. */
  private static java.util.function.Predicate<String> maintained(Map<String, NodeView> nodes) {
    return name -> {
      NodeView n = nodes.get(name);
      return n != null && !n.maintenance().isEmpty();
    };
  }

  /** When each desired node's pod of the new revision became available (Ready minReadySeconds). */
  private static Pace.Tally pace(
      DaemonSetView ds, Placement placed, RevisionSplit split, Instant now) {
    Pace.Tally tally = new Pace.Tally(now);
    long minReady = Math.max(0, ds.minReadySeconds());
    for (int i = 0, n = placed.size(); i < n; i++) {
      if (!placed.fit(i).shouldRun()) {
        continue;
      }
      int pods = placed.podCount(i);
      if (pods == 1) {
        tally.add(availableNewAt(placed.onlyPod(i), split, minReady));
      } else if (pods > 1) {
        for (PodView p : placed.pods(i)) {
          Instant at = availableNewAt(p, split, minReady);
          if (at != null) {
            tally.add(at);
            break;
          }
        }
      }
    }
    return tally;
  }

  /** When {@code p}, a pod of the new revision, became available; null when it is not one. */
  private static Instant availableNewAt(PodView p, RevisionSplit split, long minReady) {
    Instant readySince = p.derived().readySince();
    if (!p.derived().ready() || readySince == null || p.terminating() || !split.isNew(p)) {
      return null;
    }
    return minReady == 0 ? readySince : readySince.plusSeconds(minReady);
  }

  /**
   * The newest Warning FailedCreate about this DaemonSet since its new revision was created: the
   * controller's only word on pods it could not create.
   */
  private static EventView failedCreate(
      DaemonSetView ds, RevisionSplit split, List<EventView> events) {
    Instant since = split.rolloutStart();
    return events.stream()
        .filter(EventView::failedCreate)
        .filter(e -> e.involvedKind().equals("DaemonSet") && e.involvedName().equals(ds.name()))
        .filter(
            e ->
                e.involvedUid().isEmpty()
                    || ds.ref().uid() == null
                    || e.involvedUid().equals(ds.ref().uid()))
        .filter(e -> e.last() != null && (since == null || e.last().isAfter(since)))
        .max(Comparator.comparing(EventView::last))
        .orElse(null);
  }

  /** A node missing from a readable node list is gone; else its absence tells nothing. */
  private static java.util.function.Predicate<String> nodeGone(
      Map<String, NodeView> nodes, RolloutSnapshot snapshot) {
    return name ->
        !nodes.isEmpty() && !nodes.containsKey(name) && !snapshot.unreadableNodes().contains(name);
  }

  /**
   * The rows of the assessed nodes in node name order, and the earliest instant at which one of
   * them changes with time alone (null when none does).
   */
  private record Rows(List<NodeRow> rows, Instant nextCheck) {
    static final Rows NONE = new Rows(List.of(), null);
  }

  private static Rows assess(
      DaemonSetView ds,
      Placement placed,
      NodeAssessor assessor,
      Coverage coverage,
      Counts counts,
      UpdateScope scope) {
    // Indexed like placed; null where a node has no row (yet). The usual node (one pod, updated
    // or waiting, nothing to check later) gets its row without an Assessment around it.
    NodeRow[] rows = new NodeRow[placed.size()];
    Instant[] nextChecks = new Instant[rows.length];
    for (int i = 0; i < rows.length; i++) {
      if (placed.fit(i).shouldRun()) {
        NodeRow settled =
            placed.podCount(i) == 1 ? assessor.settled(placed.node(i), placed.onlyPod(i)) : null;
        if (settled != null) {
          rows[i] = settled;
        } else {
          set(rows, nextChecks, i, assessor.desired(placed.node(i), placed.pods(i)));
        }
      }
    }
    for (int i = 0; i < rows.length; i++) {
      if (scope.held(i) && rows[i] != null) {
        rows[i] = held(rows[i]);
        nextChecks[i] = null;
      }
    }
    blockedAtStart(ds, placed, assessor, counts, scope.unavailable(), rows, nextChecks);
    boolean workLeft = false;
    for (NodeRow r : rows) {
      if (r != null && r.standing() != Standing.UPDATED && r.standing() != Standing.UNAVAILABLE) {
        workLeft = true;
        break;
      }
    }
    for (int i = 0; i < rows.length; i++) {
      NodeEligibility.Fit fit = placed.fit(i);
      if (!fit.shouldRun()) {
        Optional<Assessment> a = assessor.notDesired(placed.node(i), fit, placed.pods(i), workLeft);
        if (a.isPresent()) {
          set(rows, nextChecks, i, a.get());
        }
      }
    }
    List<NodeRow> sorted = new ArrayList<>(rows.length);
    Instant nextCheck = null;
    for (int i = 0; i < rows.length; i++) {
      if (rows[i] != null) {
        sorted.add(rows[i]);
      }
      nextCheck = earlier(nextCheck, nextChecks[i]);
    }
    // Nodes the input lacks: whether they should run the DaemonSet is unknown. Without a full
    // recount, .status tells whether some desired node still has to be updated.
    boolean workLeftAnywhere = workLeft || !(coverage.full() || reportsComplete(ds));
    Map<String, List<PodView>> elsewhere = placed.elsewhere();
    if (!elsewhere.isEmpty()) {
      for (Map.Entry<String, List<PodView>> e : elsewhere.entrySet()) {
        Assessment a = assessor.unseen(e.getKey(), e.getValue(), workLeftAnywhere);
        sorted.add(a.row());
        nextCheck = earlier(nextCheck, a.nextCheck());
      }
      sorted.sort(BY_NODE);
    }
    return new Rows(sorted, nextCheck);
  }

  /** The row of a node the Advanced DaemonSet keeps out of its rollout on purpose. */
  private static NodeRow held(NodeRow r) {
    return new NodeRow(
        r.node(),
        r.revision(),
        r.pod(),
        r.images(),
        r.state(),
        Standing.HELD,
        null,
        null,
        null,
        null);
  }

  private static void set(NodeRow[] rows, Instant[] nextChecks, int i, Assessment a) {
    rows[i] = a.row();
    nextChecks[i] = a.nextCheck();
  }

  private static Instant earlier(Instant a, Instant b) {
    return a == null || (b != null && b.isBefore(a)) ? b : a;
  }

  private static final Comparator<NodeRow> BY_NODE = Comparator.comparing(NodeRow::node);

  /**
   * Blocked at start: with the unavailable budget used up by nodes that are down and no node
   * updating, the controller cannot start anywhere, so a down node still on an unavailable old pod
   * holds the rollout back (surge budgets replace such pods at once, so only without surge).
   *
   * @param heldUnavailable unavailable nodes an Advanced DaemonSet holds out of its rollout
   */
  private static void blockedAtStart(
      DaemonSetView ds,
      Placement placed,
      NodeAssessor assessor,
      Counts counts,
      int heldUnavailable,
      NodeRow[] rows,
      Instant[] nextChecks) {
    RolloutBudget budget = RolloutBudget.of(ds.strategy(), counts.desired());
    // Kruise counts the budget only among the nodes it may update.
    if (ds.strategy().onDelete()
        || budget.maxSurge() > 0
        || counts.unavailable() - heldUnavailable < budget.maxUnavailable()) {
      return;
    }
    for (NodeRow r : rows) {
      if (r != null && (r.standing() == Standing.UPDATING || r.standing() == Standing.STUCK)) {
        return;
      }
    }
    for (int i = 0; i < rows.length; i++) {
      if (rows[i] != null && rows[i].standing() == Standing.WAITING) {
        Optional<Assessment> blocked = assessor.blockedAtStart(placed.node(i), placed.pods(i));
        if (blocked.isPresent()) {
          set(rows, nextChecks, i, blocked.get());
        }
      }
    }
  }

  private static boolean reportsComplete(DaemonSetView ds) {
    return ds.status() != null && ds.status().reportsComplete(ds.generation(), ds.heldPerStatus());
  }

  private static RolloutVerdict decide(
      DaemonSetView ds,
      RevisionSplit split,
      Counts counts,
      Rows assessed,
      Coverage coverage,
      Pace pace,
      java.util.function.Predicate<String> maintained,
      UpdateScope scope) {
    // One walk over the rows (5,000 at 5,000 nodes) for what the verdict needs of them.
    List<NodeRow> rows = assessed.rows();
    List<NodeRow> stalledRows = new ArrayList<>();
    boolean unfinished = false;
    Instant nextCheck = assessed.nextCheck();
    for (int i = 0, n = rows.size(); i < n; i++) {
      NodeRow r = rows.get(i);
      Standing standing = r.standing();
      if (standing == Standing.STUCK
          || (standing == Standing.EXCLUDED && !ds.allowsNodeExclusion())) {
        stalledRows.add(r);
      }
      if (standing == Standing.WAITING
          || standing == Standing.UNAVAILABLE
          || standing == Standing.UPDATING
          || standing == Standing.STUCK) {
        unfinished = true;
      }
    }
    stalledRows.sort(EARLIEST_FIRST);
    List<NodeRow> stalled = stalledRows;
    Long observed = ds.status() == null ? null : ds.status().observedGeneration();
    boolean observedCurrent = observed != null && observed >= ds.generation();
    // Without full evidence the recount cannot prove completeness: .status must say so itself.
    boolean complete =
        observedCurrent
            && (coverage.full() || reportsComplete(ds))
            && stalled.isEmpty()
            && !unfinished;
    RolloutBudget budget = RolloutBudget.of(ds.strategy(), counts.desired());
    PhaseReport report =
        PhaseReport.of(
            ds,
            split,
            counts,
            rows,
            stalled,
            complete,
            observedCurrent,
            coverage,
            maintained,
            scope);
    boolean isStalled = report.phase() == Phase.Stalled;
    return new RolloutVerdict(
        ds.ref(),
        report.phase(),
        isStalled ? stalled.get(0).cause() : null,
        report.reason(),
        report.message(),
        isStalled ? stalled.stream().map(NodeRow::node).toList() : List.of(),
        isStalled ? stalled.get(0).since() : null,
        split.oldSummary(),
        split.newSummary(),
        counts,
        ds.status() == null ? null : ds.status().counts(),
        observed,
        ds.generation(),
        budget.maxUnavailable(),
        budget.maxSurge(),
        rows,
        nextCheck,
        coverage.evidence(),
        coverage.missing(),
        isStalled ? stalled.get(0).suspect() : null,
        isStalled ? stalled.get(0).suspectReason() : null,
        report.phase() == Phase.Progressing ? pace : pace.remainingOnly(),
        ds.apiVersion());
  }
}
