package dev.stallwatch.operator.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.testing.KubeObjects;
import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

public class CachedViewsTest {
  private final AtomicInteger conversions = new AtomicInteger();
  private final Function<Node, NodeView> counting =
      node -> {
        conversions.incrementAndGet();
        return KubeViews.node(node);
      };
  private final CachedViews<Node, NodeView> store =
      CachedViews.kept(new TransformingItemStore<>(CachePruning::node), counting);

  private static Node node(String name, String resourceVersion, String created) {
    return KubeObjects.versionedNode(name, resourceVersion, created);
  }

  private Node cached(Node node) {
    store.put(store.getKey(node), node);
    return store.get(store.getKey(node));
  }

  @Test
  void aCachedObjectIsConvertedOnceHoweverOftenItIsRead() {
    Node a = cached(node("a", "1", "2026-12-01T00:00:00Z"));

    NodeView first = store.view(a);
    NodeView second = store.view(a);

    assertThat(second).isSameAs(first);
    assertThat(conversions).hasValue(1);
  }

  @Test
  void aNewVersionOfTheObjectGetsItsOwnViewAndTheOldOneStillItsOwn() {
    Node v1 = cached(node("a", "1", "2026-12-01T00:00:00Z"));
    NodeView old = store.view(v1);
    Node v2 = cached(node("a", "2", "2026-12-02T00:00:00Z"));

    assertThat(store.view(v2).created()).hasToString("2026-12-02T00:00:00Z");
    // A reconcile still holding the replaced object sees that object's view, never the newer one.
    assertThat(store.view(v1).created()).isEqualTo(old.created());
    assertThat(store.viewCount()).isEqualTo(1);
  }

  @Test
  void aRemovedObjectTakesItsViewWithIt() {
    Node a = cached(node("a", "1", "2026-12-01T00:00:00Z"));
    store.view(a);

    store.remove(store.getKey(a));

    assertThat(store.viewCount()).isZero();
    assertThat(store.size()).isZero();
  }

  @Test
  void aViewOfAnObjectNoLongerCachedIsMadeButNotKept() {
    Node gone = node("a", "1", "2026-12-01T00:00:00Z");

    assertThat(store.view(gone).name()).isEqualTo("a");
    assertThat(store.viewCount()).isZero();
  }

  @Test
  void aMalformedObjectIsReportedEachTimeAndNothingIsKept() {
    Node bad = cached(node("a", "1", "yesterday"));

    assertThatThrownBy(() -> store.view(bad)).isInstanceOf(InvalidObjectException.class);
    assertThatThrownBy(() -> store.view(bad)).isInstanceOf(InvalidObjectException.class);
    assertThat(store.viewCount()).isZero();
  }

  @Test
  void everyPutOrRemoveRaisesTheVersion() {
    long v0 = store.version();
    Node a = cached(node("a", "1", "2026-12-01T00:00:00Z"));
    long v1 = store.version();
    store.view(a);
    cached(node("a", "2", "2026-12-01T00:00:00Z")); // same view, but this store compares none
    long v2 = store.version();
    store.remove("a");

    assertThat(v1).isGreaterThan(v0);
    assertThat(v2).isGreaterThan(v1);
    assertThat(store.version()).isGreaterThan(v2);
  }

  @Test
  void anUpdateThatLeavesTheViewAsItWasKeepsTheVersionWhereTheStoreComparesViews() {
    var nodes =
        CachedViews.<Node, NodeView>versionedByView(
            new TransformingItemStore<>(CachePruning::node), counting);
    Node v1 = node("a", "1", "2026-12-01T00:00:00Z");
    nodes.put(nodes.getKey(v1), v1);
    NodeView first = nodes.view(nodes.get("a"));
    long read = nodes.version();

    // A heartbeat: a new resourceVersion, nothing the analyzer reads changed.
    Node heartbeat = node("a", "2", "2026-12-01T00:00:00Z");
    nodes.put(nodes.getKey(heartbeat), heartbeat);
    assertThat(nodes.version()).isEqualTo(read);
    assertThat(nodes.view(nodes.get("a"))).isEqualTo(first);
    assertThat(nodes.viewCount()).isEqualTo(1);

    // A change the analyzer reads raises it.
    Node labelled = node("a", "3", "2026-12-01T00:00:00Z");
    labelled.getMetadata().setLabels(java.util.Map.of("zone", "b"));
    nodes.put(nodes.getKey(labelled), labelled);
    assertThat(nodes.version()).isGreaterThan(read);
    assertThat(nodes.view(nodes.get("a")).labels()).containsEntry("zone", "b");
  }
}
