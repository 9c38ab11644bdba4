package dev.stallwatch.operator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.testing.KubeObjects;
import io.fabric8.kubernetes.api.model.Node;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** {@code Stores.nodeViews}: every node's view, indexed once per version of the node cache. */
class NodeViewsCacheTest {
  private final RolloutEventSources.Stores stores = new RolloutEventSources.Stores();
  private final AtomicInteger listed = new AtomicInteger();
  private final Supplier<Collection<Node>> list =
      () -> {
        listed.incrementAndGet();
        return stores.nodes.values().toList();
      };

  private static Node node(String name, String resourceVersion, String created) {
    return KubeObjects.versionedNode(name, resourceVersion, created);
  }

  private void informerPuts(Node node) {
    stores.nodes.put(stores.nodes.getKey(node), node);
  }

  @Test
  void theNodeViewsAreMadeOnceWhileNoNodeChanges() {
    informerPuts(node("b", "1", "2026-12-01T00:00:00Z"));
    informerPuts(node("a", "1", "2026-12-01T00:00:00Z"));

    Snapshots.NodeViews first = stores.nodeViews(list);
    Snapshots.NodeViews second = stores.nodeViews(list);

    assertThat(second).isSameAs(first);
    assertThat(listed).hasValue(1);
    assertThat(first.index().nodes())
        .extracting(NodeView::name)
        .containsExactlyInAnyOrder("a", "b");
  }

  @Test
  void aChangedNodeOrANewOneOrARemovedOneMakesThemAnew() {
    informerPuts(node("a", "1", "2026-12-01T00:00:00Z"));
    stores.nodeViews(list);

    informerPuts(node("c", "1", "2026-12-01T00:00:00Z"));
    assertThat(stores.nodeViews(list).index().nodes())
        .extracting(NodeView::name)
        .containsExactlyInAnyOrder("a", "c");

    Node changed = node("a", "2", "2026-12-01T00:00:00Z");
    changed.getMetadata().setLabels(java.util.Map.of("zone", "b"));
    informerPuts(changed);
    assertThat(stores.nodeViews(list).index().nodes())
        .filteredOn(n -> n.name().equals("a"))
        .singleElement()
        .satisfies(n -> assertThat(n.labels()).containsEntry("zone", "b"));

    stores.nodes.remove("c");
    assertThat(stores.nodeViews(list).index().nodes())
        .extracting(NodeView::name)
        .containsExactly("a");
    assertThat(listed).hasValue(4);
  }

  @Test
  void aHeartbeatLeavesThemAsTheyWere() {
    informerPuts(node("a", "1", "2026-12-01T00:00:00Z"));
    Snapshots.NodeViews before = stores.nodeViews(list);

    informerPuts(node("a", "2", "2026-12-01T00:00:00Z")); // only the resourceVersion moved

    assertThat(stores.nodeViews(list)).isSameAs(before);
  }

  @Test
  void anUnreadableNodeIsReportedAndKnownByName() {
    informerPuts(node("a", "1", "2026-12-01T00:00:00Z"));
    informerPuts(node("bad", "1", "yesterday"));

    Snapshots.NodeViews views = stores.nodeViews(list);

    assertThat(views.index().nodes()).extracting(NodeView::name).containsExactly("a");
    assertThat(views.unreadable()).containsExactly("bad");
    assertThat(views.errors()).singleElement().asString().contains("bad");
  }
}
