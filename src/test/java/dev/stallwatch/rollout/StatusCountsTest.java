package dev.stallwatch.rollout;

import static dev.stallwatch.rollout.Views.NEW;
import static dev.stallwatch.rollout.Views.NOW;
import static dev.stallwatch.rollout.Views.OLD;
import static dev.stallwatch.rollout.Views.ago;
import static dev.stallwatch.rollout.Views.ds;
import static dev.stallwatch.rollout.Views.node;
import static dev.stallwatch.rollout.Views.pod;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Upstream's status arithmetic, one short cluster per row. */
class StatusCountsTest {

  static Stream<Arguments> rows() {
    NodeView n1 = node("n1");
    NodeView n2 = node("n2");
    NodeView windows =
        new NodeView("win", Map.of("kubernetes.io/os", "windows"), List.of(), false, null, null);
    PodTemplateView linuxOnly = Views.template("img:2", Map.of("kubernetes.io/os", "linux"));
    NodeView linux1 =
        new NodeView("n1", Map.of("kubernetes.io/os", "linux"), List.of(), false, null, null);
    return Stream.of(
        // name, template, nodes, pods, desired, current, ready, upToDate, available, misscheduled
        Arguments.of(
            "two nodes, one updated",
            Views.NEW_TEMPLATE,
            List.of(n1, n2),
            List.of(
                pod("n1", "new").ready(ago(30)).build(), pod("n2", "old").ready(ago(600)).build()),
            new Counts(2, 2, 2, 1, 2, 0, 0)),
        Arguments.of(
            "an empty node is desired, not current",
            Views.NEW_TEMPLATE,
            List.of(n1, n2),
            List.of(pod("n1", "new").ready(ago(30)).build()),
            new Counts(2, 1, 1, 1, 1, 1, 0)),
        Arguments.of(
            "a pod on a node the input lacks is not counted",
            Views.NEW_TEMPLATE,
            List.of(n1),
            List.of(
                pod("n1", "new").ready(ago(30)).build(), pod("gone", "new").ready(ago(30)).build()),
            new Counts(1, 1, 1, 1, 1, 0, 0)),
        Arguments.of(
            "a pod where the selector does not reach is misscheduled",
            linuxOnly,
            List.of(linux1, windows),
            List.of(
                pod("n1", "new").ready(ago(30)).build(), pod("win", "new").ready(ago(30)).build()),
            new Counts(1, 1, 1, 1, 1, 0, 1)),
        Arguments.of(
            "the oldest pod is the one counted",
            Views.NEW_TEMPLATE,
            List.of(n1),
            List.of(
                pod("n1", "old").created(ago(600)).ready(ago(600)).build(),
                pod("n1", "new").created(ago(3)).notReady().build()),
            new Counts(1, 1, 1, 0, 1, 0, 0)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void countsAsTheControllerDoes(
      String name,
      PodTemplateView template,
      List<NodeView> nodes,
      List<PodView> pods,
      Counts expected) {
    DaemonSetView ds = ds(template, null);
    Map<String, List<PodView>> byNode = new java.util.TreeMap<>();
    for (PodView p : pods) {
      byNode.computeIfAbsent(p.targetNode(), k -> new java.util.ArrayList<>()).add(p);
    }
    byNode.values().forEach(l -> l.sort(PodAvailability.OLDEST_FIRST));
    RevisionSplit split = RevisionSplit.of(ds, List.of(OLD, NEW), pods);

    assertThat(StatusCounts.compute(ds, nodes, byNode, split, NOW)).isEqualTo(expected);
  }
}
