package dev.stallwatch.operator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.testcluster.TestApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * fabric8 informers of several namespaces over one store, as JOSDK runs them for a list of
 * namespaces: each informer's list removes from its store what that list lacks.
 */
public class StorePerInformerIT {
  private static final List<String> NAMESPACES = List.of("team-a", "team-b", "team-c");

  private TestApiServer cluster;
  private final List<SharedIndexInformer<ConfigMap>> informers = new ArrayList<>();

  @BeforeEach
  void objects() {
    cluster = new TestApiServer();
    for (String ns : NAMESPACES) {
      for (String name : List.of("one", "two")) {
        cluster
            .client()
            .configMaps()
            .inNamespace(ns)
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(ns)
                    .endMetadata()
                    .build())
            .create();
      }
    }
  }

  @AfterEach
  void stop() {
    informers.forEach(SharedIndexInformer::stop);
    cluster.close();
  }

  /** Starts one informer per namespace, each with the store {@code storeFor} gives it. */
  private void listEach(Function<String, ItemStore<ConfigMap>> storeFor) throws Exception {
    for (String ns : NAMESPACES) {
      SharedIndexInformer<ConfigMap> informer =
          cluster.client().configMaps().inNamespace(ns).runnableInformer(0);
      informer.itemStore(storeFor.apply(ns));
      informers.add(informer);
      informer.start().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aStoreSharedByTheInformersLosesWhatTheLaterListsLack() throws Exception {
    PrunedStore<ConfigMap> shared = new PrunedStore<>(c -> c);
    listEach(ns -> shared);
    // The first namespace listed is gone once a later informer listed; how many later ones
    // survive depends on when each informer's objects land against the next one's list.
    assertThat(shared.keySet().toList())
        .doesNotContain("team-a/one", "team-a/two")
        .contains("team-c/one", "team-c/two");
  }

  @Test
  void aPartitionPerInformerKeepsEveryNamespaceAndListsOnlyItsOwn() throws Exception {
    PrunedStore<ConfigMap> shared = new PrunedStore<>(c -> c);
    List<StorePerInformer.Partition<ConfigMap>> partitions = new ArrayList<>();
    listEach(
        ns -> {
          var p = new StorePerInformer.Partition<>(shared);
          partitions.add(p);
          return p;
        });

    assertThat(shared.size()).isEqualTo(6);
    for (int i = 0; i < NAMESPACES.size(); i++) {
      String ns = NAMESPACES.get(i);
      assertThat(partitions.get(i).keySet()).containsExactlyInAnyOrder(ns + "/one", ns + "/two");
      assertThat(partitions.get(i).values())
          .allMatch(c -> ns.equals(c.getMetadata().getNamespace()));
    }
    // Another namespace's key is not this informer's to read or remove.
    assertThat(partitions.get(0).get("team-b/one")).isNull();
    assertThat(partitions.get(0).remove("team-b/one")).isNull();
    assertThat(shared.get("team-b/one")).isNotNull();

    // A deletion reaches only its own namespace's informer.
    cluster.client().configMaps().inNamespace("team-b").withName("one").delete();
    await(() -> shared.size() == 5);
    assertThat(partitions.get(1).keySet()).containsExactly("team-b/two");
    assertThat(partitions.get(0).size()).isEqualTo(2);
  }

  private static void await(java.util.concurrent.Callable<Boolean> condition) {
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(condition);
  }
}
