package dev.stallwatch.operator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

public class PrunedStoreTest {
  private final List<String> seen = new ArrayList<>();
  private final PrunedStore<ConfigMap> store = new PrunedStore<>(c -> c, seen::add);

  private static ConfigMap object(String ns, String name, String version) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace(ns)
        .withName(name)
        .withResourceVersion(version)
        .endMetadata()
        .build();
  }

  private void put(ConfigMap c) {
    store.put(store.getKey(c), c);
  }

  @Test
  void countsTheObjectsOfEachNamespaceAcrossUpdatesAndRemovals() {
    put(object("team-a", "one", "1"));
    put(object("team-a", "two", "1"));
    put(object("team-a", "one", "2")); // an update: still two
    put(object("team-b", "one", "1"));
    store.remove("team-a/two");
    store.remove("team-a/absent");

    assertThat(store.count("team-a")).isEqualTo(1);
    assertThat(store.count("team-b")).isEqualTo(1);
    assertThat(store.count("team-c")).isZero();
    assertThat(seen).as("told once per namespace").containsExactly("team-a", "team-b");

    store.remove("team-a/one");
    put(object("team-a", "three", "1"));
    assertThat(store.count("team-a")).isEqualTo(1);
    assertThat(seen).containsExactly("team-a", "team-b");
  }

  @Test
  void clusterScopedObjectsAreStoredButNotCounted() {
    PrunedStore<Node> nodes = new PrunedStore<>(n -> n, seen::add);
    Node node = new NodeBuilder().withNewMetadata().withName("gpu-node-1").endMetadata().build();
    nodes.put(nodes.getKey(node), node);
    assertThat(nodes.size()).isEqualTo(1);
    assertThat(seen).isEmpty();
  }

  @Test
  void aPartitionListsAndRemovesOnlyWhatItPut() {
    var a = new StorePerInformer.Partition<>(store);
    var b = new StorePerInformer.Partition<>(store);
    ConfigMap one = object("team-a", "one", "1");
    ConfigMap other = object("team-b", "one", "1");
    a.put(a.getKey(one), one);
    b.put(b.getKey(other), other);

    assertThat(a.keySet()).containsExactly("team-a/one");
    assertThat(a.values()).containsExactly(one);
    assertThat(a.size()).isEqualTo(1);
    assertThat(a.get("team-b/one")).isNull();
    assertThat(a.remove("team-b/one")).as("not a's to remove").isNull();
    assertThat(store.size()).isEqualTo(2);

    assertThat(b.remove("team-b/one")).isSameAs(other);
    assertThat(store.keySet()).containsExactly("team-a/one");
    assertThat(b.size()).isZero();
  }
}
