package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.rollback.RevisionRestorer;
import dev.stallwatch.rollback.RollbackTarget;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import dev.stallwatch.testing.DaemonSetFixture.Seed;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SeedStallLifecycleIT {
  private static final String NS = Seed.NS;
  private static final String NAME = Seed.DS;
  // The mock stamps creationTimestamp itself: the stall must come from the reconciler
  // rescheduling itself for the instant the node crosses stall-after, not from old timestamps.
  private static final Duration STALL_AFTER = Duration.ofSeconds(3);

  private TestApiServer cluster;
  private StallwatchOperator operator;
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @BeforeEach
  void start() {
    cluster = new TestApiServer();
  }

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
    cluster.close();
  }

  private void startOperator() {
    OperatorSettings settings =
        new OperatorSettings(Set.of(), STALL_AFTER, Duration.ofHours(24), 0, false, null);
    operator =
        StallwatchOperator.start(
            cluster.client(), settings, registry, StallwatchOperator.Timing.REAL);
  }

  @Test
  void anUnpullableImageBecomesARolloutStallAMetricAndAnEventThenARollbackResolvesIt() {
    DaemonSetFixture.seed(cluster.client(), Seed.NS, Seed.DS, Instant.now()).nodes(Seed.NODES);
    DaemonSetFixture rollout =
        DaemonSetFixture.seed(cluster.client(), NS, NAME, Instant.now().minusSeconds(600))
            .stalledOnFirstNode();
    startOperator();

    RolloutStall stall =
        await().atMost(Duration.ofSeconds(20)).until(() -> cluster.active(NS), s -> s != null);
    assertThat(stall.getMetadata().getName()).isEqualTo(NAME + "-" + Seed.NEW_HASH);
    assertThat(stall.getSpec().daemonSet()).isEqualTo(NAME);
    assertThat(stall.getStatus().node()).isEqualTo("gpu-node-1");
    assertThat(stall.getStatus().cause()).isEqualTo("ImagePull");
    assertThat(stall.getStatus().oldRevision().hash()).isEqualTo(Seed.OLD_HASH);
    assertThat(stall.getStatus().newRevision().hash()).isEqualTo(Seed.NEW_HASH);
    assertThat(stall.getStatus().ready()).isEqualTo("2/3");
    assertThat(stall.getStatus().split().summary()).isEqualTo("2 old / 0 new / 1 none");
    // Which nodes run which spec: the question the stall answers at a glance.
    assertThat(stall.getStatus().split().oldNodes()).containsExactly("gpu-node-2", "gpu-node-3");
    assertThat(stall.getStatus().split().newNodes()).isEmpty();
    assertThat(stall.getStatus().split().noneNodes()).containsExactly("gpu-node-1");
    assertThat(stall.getStatus().nodes().get(0).pod()).isEqualTo(NAME + "-gpu-node-1");
    assertThat(stall.getMetadata().getOwnerReferences().get(0).getName()).isEqualTo(NAME);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(registry.scrape())
                    .contains(
                        "stallwatch_rollout_stalled{cause=\"ImagePull\",daemonset=\""
                            + NAME
                            + "\",namespace=\""
                            + NS
                            + "\",suspect=\"NewRevision\"} 1.0"));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(cluster.events(NS, NAME, "RolloutStalled")).hasSize(1));
    assertThat(cluster.events(NS, NAME, "RolloutStalled").get(0).getMessage())
        .contains("gpu-node-1")
        .contains("ImagePull")
        .contains("suspect NewRevision: rollback would help")
        .contains(Seed.NEW_HASH);

    rollout.rolledBack();

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              RolloutStall resolved = stall(NAME + "-" + Seed.NEW_HASH);
              assertThat(resolved.getStatus().phase()).isEqualTo("Resolved");
              assertThat(resolved.getStatus().resolvedAt()).isNotNull();
              assertThat(resolved.getStatus().conditions().get(0).getReason())
                  .isEqualTo("RolledBack");
              // kubectl rollout undo leaves no mark of its own; the stall still records it, at
              // the moment the operator saw it, without a "by".
              assertThat(resolved.getStatus().rollback())
                  .isEqualTo(
                      new RolloutStallStatus.Rollback(
                          Seed.NEW_HASH, Seed.OLD_HASH, resolved.getStatus().resolvedAt(), null));
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(cluster.events(NS, NAME, "RolloutResolved")).hasSize(1));
    assertThat(registry.scrape())
        .doesNotContain("stallwatch_rollout_stalled{")
        // JOSDK's own controller metrics share the registry.
        .contains("operator_sdk_reconciliations_started");
    assertThat(cluster.events(NS, NAME, "RolloutStalled")).hasSize(1);
  }

  @Test
  void stallwatchUndoResolvesTheStallAndIsRecordedOnIt() {
    DaemonSetFixture.seed(cluster.client(), Seed.NS, Seed.DS, Instant.now()).nodes(Seed.NODES);
    DaemonSetFixture.seed(cluster.client(), NS, NAME, Instant.now().minusSeconds(600))
        .stalledOnFirstNode();
    startOperator();
    await().atMost(Duration.ofSeconds(20)).until(() -> cluster.active(NS), s -> s != null);

    Instant undoneAt = Instant.now();
    new RevisionRestorer(cluster.client())
        .rollback(NS, NAME, RollbackTarget.previous(), false, "stallwatch undo", undoneAt);

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              RolloutStallStatus s = stall(NAME + "-" + Seed.NEW_HASH).getStatus();
              assertThat(s.phase()).isEqualTo(RolloutStallStatus.RESOLVED);
              assertThat(s.conditions().get(0).getReason()).isEqualTo("RolledBack");
              assertThat(s.conditions().get(0).getMessage()).endsWith("by stallwatch undo");
              assertThat(s.rollback())
                  .isEqualTo(
                      new RolloutStallStatus.Rollback(
                          Seed.NEW_HASH, Seed.OLD_HASH, undoneAt.toString(), "stallwatch undo"));
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(cluster.events(NS, NAME, "RolloutResolved"))
                    .singleElement()
                    .satisfies(e -> assertThat(e.getMessage()).endsWith("by stallwatch undo")));
  }

  private RolloutStall stall(String name) {
    return cluster.client().resources(RolloutStall.class).inNamespace(NS).withName(name).get();
  }
}
