package dev.stallwatch.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Placement} — each node's pods found through the node index by position — agrees with the
 * grouping it replaced: a map from target node name to that node's pods, oldest first, and the
 * names of targeted nodes the input lacks.
 */
class PlacementTest {
  private static final Instant T = Instant.parse("2026-12-03T10:00:00Z");

  @Test
  void placesEveryPodAsAMapByTargetNodeWould() {
    Random random = new Random(11);
    for (int round = 0; round < 200; round++) {
      int nodeCount = random.nextInt(12);
      List<NodeView> nodes = new ArrayList<>();
      for (int i = 0; i < nodeCount; i++) {
        nodes.add(new NodeView("n" + random.nextInt(15), Map.of(), List.of(), false, null, null));
      }
      List<PodView> pods = new ArrayList<>();
      for (int i = 0, n = random.nextInt(20); i < n; i++) {
        String target = random.nextInt(6) == 0 ? "" : "n" + random.nextInt(18);
        String bound = random.nextBoolean() ? target : "";
        pods.add(pod("p" + i, bound, target, T.minusSeconds(random.nextInt(4))));
      }

      Placement placed = Placement.of(NodeIndex.of(nodes), Views.NEW_TEMPLATE, pods);

      Map<String, List<PodView>> expected = new HashMap<>();
      for (PodView p : pods) {
        if (!p.targetNode().isEmpty()) {
          expected.computeIfAbsent(p.targetNode(), k -> new ArrayList<>()).add(p);
        }
      }
      expected.values().forEach(l -> l.sort(PodAvailability.OLDEST_FIRST));
      NodeIndex index = NodeIndex.of(nodes);
      assertThat(placed.size()).isEqualTo(index.byName().size());
      for (int i = 0; i < placed.size(); i++) {
        NodeView node = placed.node(i);
        assertThat(node).isSameAs(index.byName().get(i));
        List<PodView> want = expected.getOrDefault(node.name(), List.of());
        assertThat(placed.pods(i)).as("pods of %s", node.name()).isEqualTo(want);
        assertThat(placed.podCount(i)).isEqualTo(want.size());
        assertThat(placed.firstPod(i)).isEqualTo(want.isEmpty() ? null : want.get(0));
        assertThat(placed.onlyPod(i)).isEqualTo(want.size() == 1 ? want.get(0) : null);
        assertThat(placed.fit(i)).isEqualTo(NodeEligibility.evaluate(node, Views.NEW_TEMPLATE));
      }
      Map<String, List<PodView>> elsewhere = new HashMap<>(expected);
      elsewhere.keySet().removeAll(index.named().keySet());
      assertThat(placed.elsewhere()).isEqualTo(elsewhere);
    }
  }

  private static PodView pod(String name, String nodeName, String target, Instant created) {
    return new PodView(
        "ns", name, null, null, null, nodeName, target, created, null, "Running", null, null, null,
        null, null, null, null);
  }
}
