package dev.stallwatch.rollout;

import java.util.List;

/**
 * One node of an analysis with what every later step reads of it, decided once: whether the
 * DaemonSet's template should run there, and the DaemonSet's pods targeting it. The status counts
 * and the node assessment both walk these instead of re-evaluating eligibility per node.
 *
 * @param pods the DaemonSet's pods targeting the node, oldest first
 */
record PlacedNode(NodeView node, NodeEligibility.Fit fit, List<PodView> pods) {

  String name() {
    return node.name();
  }

  static PlacedNode of(NodeView node, PodTemplateView template, List<PodView> pods) {
    return new PlacedNode(node, NodeEligibility.evaluate(node, template), pods);
  }
}
