package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.operator.decision.EventReason;
import dev.stallwatch.operator.effects.Series;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import dev.stallwatch.testing.DaemonSetFixture.Seed;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator watching a list of namespaces keeps every namespace's objects in its caches: each
 * namespace's informer lists into a store of its own ({@link StorePerInformer}). With one store
 * shared by the informers, each informer's first list removed what the others had listed, so at
 * start-up only one namespace's DaemonSets, pods and ControllerRevisions stayed cached.
 */
class NamespacedCachesIT {
  private static final Duration STALL_AFTER = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final List<String> STALLED = List.of("team-a", "team-b", "team-c");
  private static final String HEALTHY = "team-d";
  private static final String UNWATCHED = "team-e";

  private TestApiServer cluster;
  private StallwatchOperator operator;
  private PrometheusMeterRegistry registry;

  @BeforeEach
  void start() {
    cluster = new TestApiServer();
    Instant started = Instant.now().minusSeconds(600);
    boolean first = true;
    for (String ns : STALLED) {
      DaemonSetFixture f = DaemonSetFixture.seed(cluster.client(), ns, Seed.DS, started);
      if (first) {
        f.nodes(Seed.NODES);
        first = false;
      }
      f.stalledOnFirstNode();
    }
    DaemonSetFixture.seed(cluster.client(), HEALTHY, Seed.DS, started).settled();
    DaemonSetFixture.seed(cluster.client(), UNWATCHED, Seed.DS, started).stalledOnFirstNode();
  }

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
    cluster.close();
  }

  private void startOperator() {
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Set<String> watched = Set.of("team-a", "team-b", "team-c", HEALTHY);
    OperatorSettings settings =
        new OperatorSettings(watched, STALL_AFTER, Duration.ofHours(24), 0, false, null);
    operator =
        StallwatchOperator.start(
            cluster.client(), settings, registry, StallwatchOperator.Timing.REAL);
  }

  @Test
  void everyWatchedNamespaceIsJudgedFromItsOwnObjectsAtStartUpAndAfterARestart() {
    System.out.println(
        "PROBE "
            + cluster.client().apps().daemonSets().inNamespace("team-a").list().getItems().size()
            + " "
            + cluster
                .client()
                .apps()
                .daemonSets()
                .inNamespace("team-a")
                .list()
                .getMetadata()
                .getResourceVersion());
    startOperator();

    List<RolloutStall> first =
        await("an Active RolloutStall in each of " + STALLED)
            .atMost(WAIT)
            .until(() -> STALLED.stream().map(cluster::active).toList(), l -> !l.contains(null));
    for (RolloutStall s : first) {
      assertThat(s.getStatus().node()).as(s.getMetadata().getNamespace()).isEqualTo(Seed.NODES[0]);
      assertThat(s.getStatus().cause()).isEqualTo("ImagePull");
      assertThat(s.getSpec().revision()).isEqualTo(Seed.NEW_HASH);
    }

    operator.close();
    startOperator();
    // A fresh process re-reads everything: each namespace's stall is the same object, once.
    await("the restarted operator synced")
        .atMost(WAIT)
        .until(
            () ->
                registry.find(Series.ROLLOUT_STALLED.meter()).gauges().size() >= STALLED.size()
                    && operator.ready());
    for (RolloutStall before : first) {
      String ns = before.getMetadata().getNamespace();
      assertThat(cluster.stalls(ns))
          .as("stalls in %s", ns)
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.getMetadata().getUid()).isEqualTo(before.getMetadata().getUid());
                assertThat(s.getStatus().active()).isTrue();
                assertThat(s.getStatus().stalledSince())
                    .isEqualTo(before.getStatus().stalledSince());
              });
      assertThat(cluster.events(ns, Seed.DS, EventReason.STALLED.reason())).as(ns).hasSize(1);
    }
    for (String ns : List.of("team-a", "team-b", "team-c", HEALTHY)) {
      assertThat(registry.scrape())
          .as("pods cached for %s", ns)
          .contains("stallwatch_cache_pods{namespace=\"" + ns + "\"} 3.0");
    }
    assertThat(registry.scrape()).doesNotContain("namespace=\"" + UNWATCHED + "\"");
    assertThat(cluster.stalls(HEALTHY)).as("a completed rollout").isEmpty();
    assertThat(cluster.stalls(UNWATCHED)).as("an unwatched namespace").isEmpty();
  }
}
