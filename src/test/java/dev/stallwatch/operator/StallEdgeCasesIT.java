package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.operator.decision.EventReason;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import dev.stallwatch.testing.DaemonSetFixture.Seed;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StallEdgeCasesIT {
  private static final Duration STALL_AFTER = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(30);

  private TestApiServer cluster;
  private StallwatchOperator operator;
  private PrometheusMeterRegistry registry;

  @BeforeEach
  void start() {
    cluster = new TestApiServer();
    DaemonSetFixture.seed(cluster.client(), Seed.NS, Seed.DS, Instant.now()).nodes(Seed.NODES);
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
    OperatorSettings settings =
        new OperatorSettings(Set.of(), STALL_AFTER, Duration.ofHours(24), 0, false, null);
    operator =
        StallwatchOperator.start(
            cluster.client(), settings, registry, StallwatchOperator.Timing.REAL);
  }

  private DaemonSetFixture stalled(String namespace, String name) {
    return DaemonSetFixture.seed(cluster.client(), namespace, name, Instant.now())
        .stalledOnFirstNode();
  }

  @Test
  void aNodeTheControllerCannotCreateAPodOnIsExplainedByItsFailedCreateEvent() {
    DaemonSetFixture rollout =
        DaemonSetFixture.seed(
                cluster.client(), "gpu-operator", "toolkit", Instant.now().minusSeconds(600))
            .stalledOnFirstNode();
    cluster.client().pods().inNamespace("gpu-operator").withName("toolkit-gpu-node-1").delete();
    DaemonSet ds =
        cluster.client().apps().daemonSets().inNamespace("gpu-operator").withName("toolkit").get();
    String quota = "Error creating: pods \"toolkit-x\" is forbidden: exceeded quota: gpu-quota";
    cluster
        .client()
        .v1()
        .events()
        .inNamespace("gpu-operator")
        .resource(
            new io.fabric8.kubernetes.api.model.EventBuilder()
                .withNewMetadata()
                .withName("toolkit.failedcreate")
                .withNamespace("gpu-operator")
                .endMetadata()
                .withNewInvolvedObject()
                .withApiVersion("apps/v1")
                .withKind("DaemonSet")
                .withName("toolkit")
                .withNamespace("gpu-operator")
                .withUid(ds.getMetadata().getUid())
                .endInvolvedObject()
                .withType("Warning")
                .withReason("FailedCreate")
                .withMessage(quota)
                .withLastTimestamp(Instant.now().toString())
                .build())
        .create();
    startOperator();

    RolloutStall stall =
        await()
            .atMost(WAIT)
            .until(
                () -> cluster.active("gpu-operator"),
                s -> s != null && "FailedCreate".equals(s.getStatus().cause()));
    assertThat(stall.getStatus().node()).isEqualTo("gpu-node-1");
    assertThat(stall.getStatus().nodes().get(0).message()).isEqualTo(quota);
    assertThat(stall.getStatus().suspect()).isEqualTo("Unknown");
    assertThat(rollout).isNotNull();
  }

  @Test
  void aStallWhoseNodeIsDeletedIsResolvedNodeRemoved() {
    stalled("gpu-operator", "toolkit");
    startOperator();
    RolloutStall stall =
        await().atMost(WAIT).until(() -> cluster.active("gpu-operator"), s -> s != null);

    cluster.client().nodes().withName("gpu-node-1").delete();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              RolloutStall now =
                  cluster.stalls("gpu-operator").stream()
                      .filter(s -> s.getMetadata().getName().equals(stall.getMetadata().getName()))
                      .findFirst()
                      .orElseThrow();
              assertThat(now.getStatus().phase()).isEqualTo("Resolved");
              assertThat(now.getStatus().conditions().get(0).getReason()).isEqualTo("NodeRemoved");
            });
    // The Event follows the status write that resolved the stall: wait for it as well.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(cluster.events("gpu-operator", "toolkit", EventReason.RESOLVED.reason()))
                    .singleElement()
                    .satisfies(e -> assertThat(e.getMessage()).contains("stalled on was deleted")));
  }

  @Test
  void aRestartMidStallNeitherDuplicatesNorLosesTheStallAndKeepsStalledSince() {
    DaemonSetFixture rollout = stalled("gpu-operator", "toolkit");
    startOperator();
    RolloutStall before =
        await().atMost(WAIT).until(() -> cluster.active("gpu-operator"), s -> s != null);

    operator.close();
    // While it is down, the failing pod is re-created: only the stored stall still knows since
    // when gpu-node-1 has held the rollout back (the new operator re-seeds its memory from it).
    rollout.failingPodRecreated();
    startOperator();

    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(registry.scrape()).contains("stallwatch_rollout_stalled{"));
    List<RolloutStall> stalls = cluster.stalls("gpu-operator");
    assertThat(stalls).hasSize(1);
    RolloutStall after = stalls.get(0);
    assertThat(after.getMetadata().getUid()).isEqualTo(before.getMetadata().getUid());
    assertThat(after.getStatus().phase()).isEqualTo("Active");
    assertThat(after.getStatus().stalledSince()).isEqualTo(before.getStatus().stalledSince());
    assertThat(after.getStatus().conditions().get(0).getLastTransitionTime())
        .isEqualTo(before.getStatus().conditions().get(0).getLastTransitionTime());
    assertThat(cluster.events("gpu-operator", "toolkit", EventReason.STALLED.reason())).hasSize(1);
  }

  @Test
  void aDaemonSetDeletedMidStallTakesItsStallAndItsSeriesAlong() {
    stalled("gpu-operator", "toolkit");
    startOperator();
    await().atMost(WAIT).until(() -> cluster.active("gpu-operator"), s -> s != null);
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(registry.scrape()).contains("daemonset=\"toolkit\""));

    cluster.client().apps().daemonSets().inNamespace("gpu-operator").withName("toolkit").delete();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.stalls("gpu-operator")).isEmpty();
              assertThat(registry.scrape()).doesNotContain("daemonset=\"toolkit\"");
            });
  }

  @Test
  void twoDaemonSetsStalledInDifferentNamespacesGetOneStallEach() {
    stalled("gpu-a", "toolkit");
    stalled("gpu-b", "driver");
    startOperator();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.active("gpu-a")).isNotNull();
              assertThat(cluster.active("gpu-b")).isNotNull();
            });
    assertThat(cluster.active("gpu-a").getSpec().daemonSet()).isEqualTo("toolkit");
    assertThat(cluster.active("gpu-b").getSpec().daemonSet()).isEqualTo("driver");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(registry.scrape())
                    .contains("daemonset=\"toolkit\",namespace=\"gpu-a\"")
                    .contains("daemonset=\"driver\",namespace=\"gpu-b\""));
  }

  @Test
  void aMalformedDaemonSetIsReportedOnceAndTheHealthyOnesStayWatched() {
    DaemonSet broken =
        new DaemonSetBuilder()
            .withNewMetadata()
            .withNamespace("gpu-operator")
            .withName("broken")
            .endMetadata()
            .withNewSpec()
            .withNewUpdateStrategy()
            .withType("RollingUpdate")
            .withNewRollingUpdate()
            .withMaxUnavailable(new IntOrString("lots"))
            .endRollingUpdate()
            .endUpdateStrategy()
            .withNewTemplate()
            .withNewSpec()
            .addNewContainer()
            .withName("c")
            .withImage("busybox")
            .endContainer()
            .endSpec()
            .endTemplate()
            .endSpec()
            .build();
    cluster.client().resource(broken).create();
    stalled("gpu-operator", "toolkit");
    startOperator();

    await().atMost(WAIT).until(() -> cluster.active("gpu-operator"), s -> s != null);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(cluster.events("gpu-operator", "broken", EventReason.INVALID.reason()))
                    .hasSize(1));
    assertThat(
            cluster
                .events("gpu-operator", "broken", EventReason.INVALID.reason())
                .get(0)
                .getMessage())
        .contains("broken")
        .contains("maxUnavailable");
    assertThat(cluster.stalls("gpu-operator"))
        .extracting(s -> s.getSpec().daemonSet())
        .containsExactly("toolkit");
  }
}
