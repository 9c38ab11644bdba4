package dev.stallwatch.rollout;

import dev.stallwatch.rollout.NodeAssessor.Assessment;
import dev.stallwatch.rollout.NodeRow.Standing;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

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
    List<PodView> pods =
        snapshot.pods().stream()
            .filter(p -> Ownership.ownsPod(ds, p))
            .filter(p -> !(p.terminating() && PodAvailability.isTerminal(p)))
            .toList();
    List<RevisionView> revisions =
        snapshot.revisions().stream().filter(r -> Ownership.ownsRevision(ds, r)).toList();
    Map<String, NodeView> nodes = new TreeMap<>();
    for (NodeView node : snapshot.nodes()) {
      nodes.putIfAbsent(node.name(), node);
    }
    Map<String, List<PodView>> nodePods = podsByNode(pods);
    Coverage coverage =
        Coverage.of(nodes, snapshot.unreadableNodes(), snapshot.podsListed(), nodePods);
    RevisionSplit split = RevisionSplit.of(ds, revisions, pods);
    Counts counts = StatusCounts.compute(ds, List.copyOf(nodes.values()), nodePods, split, now);
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
    List<Assessment> assessments =
        snapshot.podsListed() ? assess(ds, nodes, nodePods, assessor, coverage, counts) : List.of();
    return decide(ds, split, counts, assessments, coverage);
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

  private static Map<String, List<PodView>> podsByNode(List<PodView> pods) {
    Map<String, List<PodView>> byNode = new TreeMap<>();
    for (PodView pod : pods) {
      if (!pod.targetNode().isEmpty()) {
        byNode.computeIfAbsent(pod.targetNode(), n -> new ArrayList<>()).add(pod);
      }
    }
    byNode.values().forEach(list -> list.sort(PodAvailability.OLDEST_FIRST));
    return byNode;
  }

  private static List<Assessment> assess(
      DaemonSetView ds,
      Map<String, NodeView> nodes,
      Map<String, List<PodView>> nodePods,
      NodeAssessor assessor,
      Coverage coverage,
      Counts counts) {
    Map<String, Assessment> rows = new LinkedHashMap<>();
    Map<String, NodeEligibility.Fit> outside = new TreeMap<>();
    for (NodeView node : nodes.values()) {
      NodeEligibility.Fit fit = NodeEligibility.evaluate(node, ds.template());
      if (fit.shouldRun()) {
        rows.put(
            node.name(), assessor.desired(node, nodePods.getOrDefault(node.name(), List.of())));
      } else {
        outside.put(node.name(), fit);
      }
    }
    blockedAtStart(ds, nodes, nodePods, assessor, counts, rows);
    boolean workLeft =
        rows.values().stream()
            .anyMatch(
                a ->
                    a.row().standing() != Standing.UPDATED
                        && a.row().standing() != Standing.UNAVAILABLE);
    for (Map.Entry<String, NodeEligibility.Fit> out : outside.entrySet()) {
      String name = out.getKey();
      assessor
          .notDesired(
              nodes.get(name), out.getValue(), nodePods.getOrDefault(name, List.of()), workLeft)
          .ifPresent(a -> rows.put(name, a));
    }
    // Nodes the input lacks: whether they should run the DaemonSet is unknown. Without a full
    // recount, .status tells whether some desired node still has to be updated.
    boolean workLeftAnywhere = workLeft || !(coverage.full() || reportsComplete(ds));
    TreeSet<String> unseen = new TreeSet<>(nodePods.keySet());
    unseen.removeAll(nodes.keySet());
    for (String name : unseen) {
      rows.put(name, assessor.unseen(name, nodePods.get(name), workLeftAnywhere));
    }
    List<Assessment> sorted = new ArrayList<>(rows.values());
    sorted.sort(Comparator.comparing(a -> a.row().node()));
    return sorted;
  }

  /**
   * Blocked at start: with the unavailable budget used up by nodes that are down and no node
   * updating, the controller cannot start anywhere, so a down node still on an unavailable old pod
   * holds the rollout back (surge budgets replace such pods at once, so only without surge).
   */
  private static void blockedAtStart(
      DaemonSetView ds,
      Map<String, NodeView> nodes,
      Map<String, List<PodView>> nodePods,
      NodeAssessor assessor,
      Counts counts,
      Map<String, Assessment> rows) {
    RolloutBudget budget = RolloutBudget.of(ds.strategy(), counts.desired());
    if (ds.strategy().onDelete()
        || budget.maxSurge() > 0
        || counts.unavailable() < budget.maxUnavailable()
        || rows.values().stream().anyMatch(Assessment::holding)) {
      return;
    }
    for (Map.Entry<String, Assessment> e : rows.entrySet()) {
      if (e.getValue().row().standing() == Standing.WAITING) {
        String name = e.getKey();
        assessor
            .blockedAtStart(nodes.get(name), nodePods.getOrDefault(name, List.of()))
            .ifPresent(e::setValue);
      }
    }
  }

  private static boolean reportsComplete(DaemonSetView ds) {
    return ds.status() != null && ds.status().reportsComplete(ds.generation());
  }

  private static RolloutVerdict decide(
      DaemonSetView ds,
      RevisionSplit split,
      Counts counts,
      List<Assessment> assessments,
      Coverage coverage) {
    List<NodeRow> rows = assessments.stream().map(Assessment::row).toList();
    List<NodeRow> stalled =
        rows.stream()
            .filter(
                r ->
                    r.standing() == Standing.STUCK
                        || (r.standing() == Standing.EXCLUDED && !ds.allowsNodeExclusion()))
            .sorted(EARLIEST_FIRST)
            .toList();
    Long observed = ds.status() == null ? null : ds.status().observedGeneration();
    boolean observedCurrent = observed != null && observed >= ds.generation();
    // Without full evidence the recount cannot prove completeness: .status must say so itself.
    boolean complete =
        observedCurrent
            && (coverage.full() || reportsComplete(ds))
            && stalled.isEmpty()
            && rows.stream()
                .noneMatch(
                    r ->
                        r.standing() == Standing.WAITING
                            || r.standing() == Standing.UNAVAILABLE
                            || r.standing() == Standing.UPDATING
                            || r.standing() == Standing.STUCK);
    RolloutBudget budget = RolloutBudget.of(ds.strategy(), counts.desired());
    Instant nextCheck =
        assessments.stream()
            .map(Assessment::nextCheck)
            .filter(Objects::nonNull)
            .min(Comparator.naturalOrder())
            .orElse(null);
    PhaseReport report =
        PhaseReport.of(ds, split, counts, rows, stalled, complete, observedCurrent, coverage);
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
        isStalled ? stalled.get(0).suspectReason() : null);
  }
}
