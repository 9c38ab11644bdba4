package dev.stallwatch.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NodeIndexTest {
  private static NodeView node(String name, String zone) {
    return new NodeView(name, Map.of("zone", zone), List.of(), false, null, null);
  }

  @Test
  void theNodesComeByNameInNameOrderAndTheFirstOfTwoWithOneNameWins() {
    NodeView c = node("c", "1");
    NodeView a = node("a", "1");
    NodeView aAgain = node("a", "2");
    NodeView b = node("b", "1");

    NodeIndex index = NodeIndex.of(List.of(c, a, aAgain, b));

    assertThat(index.nodes()).containsExactly(c, a, aAgain, b);
    assertThat(index.byName()).containsExactly(a, b, c);
    assertThat(index.named()).containsEntry("a", a).hasSize(3);
    assertThat(NodeIndex.of(List.of()).isEmpty()).isTrue();
  }

  @Test
  void aSnapshotKeepsTheIndexItIsGivenAndMakesOneOtherwise() {
    DaemonSetView ds = Views.ds();
    NodeIndex index = NodeIndex.of(List.of(node("b", "1"), node("a", "1")));

    RolloutSnapshot given =
        new RolloutSnapshot(ds, List.of(), index, List.of(), Set.of(), true, List.of());
    RolloutSnapshot made = new RolloutSnapshot(ds, List.of(), index.nodes(), List.of());

    assertThat(given.nodeIndex()).isSameAs(index);
    assertThat(given.nodes()).isSameAs(index.nodes());
    assertThat(given.withEvents(List.of()).nodeIndex()).isSameAs(index);
    assertThat(made.nodeIndex()).isEqualTo(index);
    assertThat(made).isEqualTo(given);
  }

  @Test
  void anIndexOfOtherNodesIsNotTaken() {
    DaemonSetView ds = Views.ds();
    NodeIndex other = NodeIndex.of(List.of(node("x", "1")));
    List<NodeView> nodes = List.of(node("a", "1"));

    RolloutSnapshot snapshot =
        new RolloutSnapshot(ds, List.of(), nodes, List.of(), Set.of(), true, List.of(), other);

    assertThat(snapshot.nodeIndex().byName()).extracting(NodeView::name).containsExactly("a");
  }

  @Test
  void positionsFindEveryNodeInNameOrderAndNoOther() {
    java.util.Random random = new java.util.Random(7);
    for (int size : new int[] {0, 1, 2, 3, 7, 64, 1000}) {
      List<NodeView> nodes = new java.util.ArrayList<>();
      for (int i = 0; i < size; i++) {
        // Names built anew (not shared instances), some colliding in their low hash bits.
        nodes.add(node(new String(("node-" + random.nextInt(size * 3 + 1)).toCharArray()), "1"));
      }
      NodeIndex index = NodeIndex.of(nodes);
      List<NodeView> byName = index.byName();
      for (int i = 0; i < byName.size(); i++) {
        String copy = new String(byName.get(i).name().toCharArray());
        assertThat(index.position(copy)).as("position of %s", copy).isEqualTo(i);
      }
      assertThat(index.position("absent")).isEqualTo(-1);
      assertThat(index.position("")).isEqualTo(-1);
      assertThat(index.position("node-" + (size * 3 + 5))).isEqualTo(-1);
    }
  }
}
