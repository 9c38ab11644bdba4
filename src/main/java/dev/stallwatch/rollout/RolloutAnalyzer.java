package dev.stallwatch.rollout;

import dev.stallwatch.rollout.NodeAssessor.Assessment;
import dev.stallwatch.rollout.NodeRow.Standing;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
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
    List<PodView> pods = new ArrayList<>(snapshot.pods().size());
    for (PodView p : snapshot.pods()) {
      if (Ownership.ownsPod(ds, p) && !(p.terminating() && PodAvailability.isTerminal(p))) {
        pods.add(p);
      }
    }
    List<RevisionView> revisions =
        snapshot.revisions().stream().filter(r -> Ownership.ownsRevision(ds, r)).toList();
    // Hash lookups, one sort by name, and each node's eligibility and pods looked up once: at
    // thousands of nodes, TreeMap lookups and evaluating eligibility twice were a third of the
    // time.
    Map<String, NodeView> nodes = new HashMap<>(capacity(snapshot.nodes().size()));
    for (NodeView node : snapshot.nodes()) {
      nodes.putIfAbsent(node.name(), node);
    }
    Map<String, List<PodView>> nodePods = podsByNode(pods);
    List<PlacedNode> placed = new ArrayList<>(nodes.size());
    for (NodeView node : nodes.values()) {
      placed.add(
          new PlacedNode(
              node,
              NodeEligibility.evaluate(node, ds.template()),
              nodePods.getOrDefault(node.name(), List.of())));
    }
    placed.sort(Comparator.comparing(p -> p.node().name()));
    RevisionSplit split = RevisionSplit.of(ds, revisions, pods);
    Counts counts = StatusCounts.compute(ds, placed, split, now);
    List<Assessment> assessments =
        assess(placed, nodes, nodePods, new NodeAssessor(ds, split, settings, memory, now));
    return decide(ds, split, counts, assessments);
  }

  /** A node with its eligibility and its pods (oldest first), as the analysis reads them. */
  record PlacedNode(NodeView node, NodeEligibility.Fit fit, List<PodView> pods) {}

  private static int capacity(int entries) {
    return entries * 4 / 3 + 1;
  }

  private static Map<String, List<PodView>> podsByNode(List<PodView> pods) {
    Map<String, List<PodView>> byNode = new HashMap<>(capacity(pods.size()));
    for (PodView pod : pods) {
      if (!pod.targetNode().isEmpty()) {
        byNode.computeIfAbsent(pod.targetNode(), n -> new ArrayList<>()).add(pod);
      }
    }
    for (List<PodView> list : byNode.values()) {
      if (list.size() > 1) {
        list.sort(PodAvailability.OLDEST_FIRST);
      }
    }
    return byNode;
  }

  private static List<Assessment> assess(
      List<PlacedNode> placed,
      Map<String, NodeView> nodes,
      Map<String, List<PodView>> nodePods,
      NodeAssessor assessor) {
    Map<String, Assessment> rows = new LinkedHashMap<>(capacity(placed.size()));
    Map<String, NodeEligibility.Fit> outside = new TreeMap<>();
    for (PlacedNode p : placed) {
      if (p.fit().shouldRun()) {
        rows.put(p.node().name(), assessor.desired(p.node(), p.pods()));
      } else {
        outside.put(p.node().name(), p.fit());
      }
    }
    boolean workLeft = false;
    for (Assessment a : rows.values()) {
      if (a.row().standing() != Standing.UPDATED) {
        workLeft = true;
        break;
      }
    }
    TreeSet<String> others = new TreeSet<>(outside.keySet());
    for (String n : nodePods.keySet()) {
      if (!nodes.containsKey(n)) {
        others.add(n);
      }
    }
    for (String name : others) {
      NodeEligibility.Fit fit =
          outside.getOrDefault(
              name,
              new NodeEligibility.Fit(false, false, null, "node " + name + " does not exist"));
      assessor
          .notDesired(name, nodes.get(name), fit, nodePods.getOrDefault(name, List.of()), workLeft)
          .ifPresent(a -> rows.put(name, a));
    }
    List<Assessment> sorted = new ArrayList<>(rows.values());
    sorted.sort(Comparator.comparing(a -> a.row().node()));
    return sorted;
  }

  private static RolloutVerdict decide(
      DaemonSetView ds, RevisionSplit split, Counts counts, List<Assessment> assessments) {
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
    boolean complete =
        observedCurrent
            && stalled.isEmpty()
            && rows.stream()
                .noneMatch(
                    r ->
                        r.standing() == Standing.WAITING
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
        PhaseReport.of(ds, split, counts, rows, stalled, complete, observedCurrent);
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
        nextCheck);
  }
}
