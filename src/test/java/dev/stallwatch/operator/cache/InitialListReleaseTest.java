package dev.stallwatch.operator.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.testing.FleetObjects;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What an informer's first list leaves behind while it is still listing, on fabric8's own informer
 * (no server: a lister hands it pages of whole pods). Its one listener does not take events until
 * the list has ended — as JOSDK's event source, whose {@code start()} holds the monitor its handler
 * needs while it waits for the list. The pod cache's store keeps a pruned copy of each pod, so the
 * whole pods it was handed must be garbage once their page is stored, long before the list ends.
 */
class InitialListReleaseTest {
  static final int PAGES = 4;
  static final int PER_PAGE = 50;
  static final KubernetesSerialization JSON = new KubernetesSerialization();
  static final FleetObjects FLEET = new FleetObjects("fleet", "agent", "uid-1", "abc", 1, "a:1");

  final ExecutorService executor = Executors.newCachedThreadPool();
  final CountDownLatch lastPageAsked = new CountDownLatch(1);
  final CompletableFuture<PodList> lastPage = new CompletableFuture<>();
  final List<WeakReference<Pod>> handed = new CopyOnWriteArrayList<>();
  final List<Pod> added = new CopyOnWriteArrayList<>();
  final CountDownLatch listEnded = new CountDownLatch(1);

  @AfterEach
  void stop() {
    listEnded.countDown();
    executor.shutdownNow();
  }

  @Test
  void theWholePodsOfEarlierPagesAreGarbageBeforeTheListEnds() throws Exception {
    DefaultSharedIndexInformer<Pod, PodList> informer = informer(new RolloutEventSources.Stores());

    CompletableFuture<Void> started = informer.start();
    assertThat(lastPageAsked.await(10, TimeUnit.SECONDS)).as("the last page asked for").isTrue();

    assertThat(handed).hasSize((PAGES - 1) * PER_PAGE);
    await("the whole pods of the pages stored so far collected")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              System.gc();
              return handed.stream().allMatch(r -> r.get() == null);
            });

    lastPage.complete(page(PAGES - 1));
    started.get(10, TimeUnit.SECONDS);
    listEnded.countDown();
    await("every pod added")
        .atMost(Duration.ofSeconds(10))
        .until(() -> added.size() == PAGES * PER_PAGE);
    assertThat(added)
        .as("the listener is handed the cached copies")
        .allMatch(p -> p instanceof CachedPod);
    assertThat(informer.getIndexer().list()).hasSize(PAGES * PER_PAGE);
    informer.stop();
  }

  private DefaultSharedIndexInformer<Pod, PodList> informer(RolloutEventSources.Stores stores) {
    DefaultSharedIndexInformer<Pod, PodList> informer =
        new DefaultSharedIndexInformer<>(Pod.class, new Pages(), 0, executor);
    informer.itemStore(new Recording(stores.pods));
    informer.addEventHandler(
        new ResourceEventHandler<Pod>() {
          @Override
          public void onAdd(Pod pod) {
            awaitListEnd();
            added.add(pod);
          }

          @Override
          public void onUpdate(Pod before, Pod after) {}

          @Override
          public void onDelete(Pod pod, boolean unknown) {}
        });
    return informer;
  }

  private void awaitListEnd() {
    try {
      listEnded.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Page {@code n} of the list, read from JSON as the client reads a response. */
  static PodList page(int n) {
    String items =
        String.join(
            ",",
            IntStream.range(n * PER_PAGE, (n + 1) * PER_PAGE)
                .mapToObj(i -> FLEET.pod(i, "agent-" + FleetObjects.nodeName(i)))
                .toList());
    PodList list =
        JSON.unmarshal(
            "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"items\":[" + items + "]}",
            PodList.class);
    ListMeta meta = new ListMeta();
    meta.setResourceVersion("100");
    meta.setContinue(n + 1 < PAGES ? "page-" + (n + 1) : null);
    list.setMetadata(meta);
    return list;
  }

  /** A lister serving {@link #PAGES} pages; the last one only once the test has looked. */
  final class Pages implements ListerWatcher<Pod, PodList> {
    @Override
    public CompletableFuture<PodList> submitList(ListOptions options) {
      int n =
          options.getContinue() == null ? 0 : Integer.parseInt(options.getContinue().substring(5));
      if (n == PAGES - 1) {
        lastPageAsked.countDown();
        return lastPage;
      }
      return CompletableFuture.supplyAsync(() -> page(n), executor);
    }

    @Override
    public CompletableFuture<AbstractWatchManager<Pod>> submitWatch(
        ListOptions options, Watcher<Pod> watcher) {
      return CompletableFuture.completedFuture(null); // no events: the list is what is measured
    }

    @Override
    public Long getLimit() {
      return (long) PER_PAGE;
    }

    @Override
    public int getWatchReconnectInterval() {
      return 1000;
    }

    @Override
    public String getApiEndpointPath() {
      return "pods";
    }

    @Override
    public Config getConfig() {
      return Config.empty();
    }
  }

  /** The pod cache's store, noting (weakly) every whole pod the informer hands it. */
  final class Recording implements ItemStore<Pod> {
    private final ItemStore<Pod> store;

    Recording(ItemStore<Pod> store) {
      this.store = store;
    }

    @Override
    public String getKey(Pod pod) {
      return store.getKey(pod);
    }

    @Override
    public Pod put(String key, Pod pod) {
      handed.add(new WeakReference<>(pod));
      return store.put(key, pod);
    }

    @Override
    public Pod remove(String key) {
      return store.remove(key);
    }

    @Override
    public Stream<String> keySet() {
      return store.keySet();
    }

    @Override
    public Stream<Pod> values() {
      return store.values();
    }

    @Override
    public int size() {
      return store.size();
    }

    @Override
    public Pod get(String key) {
      return store.get(key);
    }

    @Override
    public boolean isFullState() {
      return store.isFullState();
    }
  }
}
