package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.kube.AdvancedDaemonSet;
import dev.stallwatch.operator.decision.EventReason;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.AdvancedDaemonSetWorld;
import dev.stallwatch.testing.AdvancedDaemonSetWorld.Pod;
import dev.stallwatch.testing.DaemonSetFixture;
import dev.stallwatch.testing.DaemonSetFixture.Seed;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator on OpenKruise Advanced DaemonSets, on the embedded cluster serving kruise's CRD: a
 * stall among the nodes a partition lets the rollout update becomes a RolloutStall that names the
 * Advanced DaemonSet's API (and an Event and the stall series), a paused one never does, an {@code
 * apps/v1} DaemonSet of the same name keeps its own record, and a cluster that starts serving the
 * CRD later is picked up without a restart.
 */
class AdvancedDaemonSetOperatorIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = AdvancedDaemonSetWorld.NAMESPACE;
  private static final String NAME = AdvancedDaemonSetWorld.NAME;
  private static final String API = AdvancedDaemonSet.API_VERSION;
  // The embedded cluster stamps creation times itself: the new pod is as old as the test.
  private static final Duration STALL_AFTER = Duration.ofSeconds(3);

  private TestApiServer cluster;
  private StallwatchOperator operator;
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);

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

  private void startOperator(boolean advanced) {
    OperatorSettings settings =
        new OperatorSettings(Set.of(), STALL_AFTER, Duration.ofHours(24), 0, false, null)
            .withAdvancedDaemonSets(advanced);
    operator =
        StallwatchOperator.start(
            cluster.client(),
            settings,
            registry,
            StallwatchOperator.Timing.REAL.withAdvancedLook(Duration.ofMillis(200)));
  }

  private void serveKruiseCrd() throws Exception {
    try (InputStream in =
        getClass().getClassLoader().getResourceAsStream("kruise/daemonsets.apps.kruise.io.yml")) {
      cluster.loadCrd(Serialization.unmarshal(in, CustomResourceDefinition.class));
    }
  }

  /**
   * Creates the world's objects as kruise's controller would have left them: the Advanced DaemonSet
   * first, then its pods and revisions owned by the uid the server gave it.
   */
  private void create(AdvancedDaemonSetWorld world) throws Exception {
    AdvancedDaemonSet ds = JSON.treeToValue(world.ds, AdvancedDaemonSet.class);
    var resources = cluster.client().resources(AdvancedDaemonSet.class).inNamespace(NS);
    resources.resource(ds).create();
    AdvancedDaemonSet stored = resources.withName(NAME).get();
    stored.setStatus(ds.getStatus());
    resources.resource(stored).updateStatus();
    String uid = stored.getMetadata().getUid();
    for (JsonNode item : world.dump().get("items")) {
      if (item.get("apiVersion").asText().startsWith("apps.kruise.io/")) {
        continue;
      }
      HasMetadata object = Serialization.unmarshal(JSON.writeValueAsString(item));
      if (object.getMetadata().getOwnerReferences() != null) {
        object.getMetadata().getOwnerReferences().forEach(o -> o.setUid(uid));
      }
      cluster.client().resource(object).create();
    }
  }

  private List<RolloutStall> stalls() {
    return cluster.stalls(NS);
  }

  private AdvancedDaemonSetWorld partitionStall() {
    // kruise went from node-5 down: node-5 took the unpullable image, node-1 and node-2 are held
    // by partition 2.
    return new AdvancedDaemonSetWorld(
            API,
            now,
            Pod.OLD_READY,
            Pod.OLD_READY,
            Pod.OLD_READY,
            Pod.OLD_READY,
            Pod.NEW_IMAGE_PULL)
        .rolling(r -> r.put("partition", 2));
  }

  @Test
  void aStallAmongTheNodesThePartitionLetsTheRolloutUpdateIsRecordedAgainstTheAdvancedDaemonSet()
      throws Exception {
    serveKruiseCrd();
    // An apps/v1 DaemonSet of the same name that runs nowhere: Complete, never stalled.
    cluster
        .client()
        .resource(
            new DaemonSetBuilder()
                .withNewMetadata()
                .withNamespace(NS)
                .withName(NAME)
                .endMetadata()
                .withNewSpec()
                .withNewSelector()
                .addToMatchLabels("app", "other")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", "other")
                .endMetadata()
                .withNewSpec()
                .addToNodeSelector("pool", "nowhere")
                .addNewContainer()
                .withName("other")
                .withImage("registry.example/other:1")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
    create(partitionStall());

    startOperator(true);

    RolloutStall stall =
        await().atMost(Duration.ofSeconds(20)).until(() -> cluster.active(NS), s -> s != null);
    assertThat(operator.watchingAdvancedDaemonSets()).isTrue();
    assertThat(stall.getSpec().daemonSet()).isEqualTo(NAME);
    assertThat(stall.getSpec().daemonSetAPIVersion()).isEqualTo(API);
    assertThat(stall.getSpec().daemonSetKind()).isEqualTo("DaemonSet");
    assertThat(stall.getMetadata().getOwnerReferences().get(0).getApiVersion()).isEqualTo(API);
    assertThat(stall.getStatus().node()).isEqualTo("node-5");
    assertThat(stall.getStatus().cause()).isEqualTo("ImagePull");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(cluster.events(NS, NAME, EventReason.STALLED.reason()))
                  .singleElement()
                  .satisfies(e -> assertThat(e.getInvolvedObject().getApiVersion()).isEqualTo(API));
              assertThat(registry.scrape())
                  .contains(
                      "stallwatch_rollout_stalled{cause=\"ImagePull\",daemonset=\"agent\","
                          + "namespace=\"kruise\",suspect=\"NewRevision\"} 1");
            });
    assertThat(stalls()).hasSize(1);
    DaemonSet apps = cluster.client().apps().daemonSets().inNamespace(NS).withName(NAME).get();
    assertThat(apps).as("the apps/v1 DaemonSet is left alone").isNotNull();
  }

  @Test
  void aPausedAdvancedDaemonSetIsPausedNeverARolloutStall() throws Exception {
    serveKruiseCrd();
    create(partitionStall().rolling(r -> r.put("paused", true)));

    startOperator(true);

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(registry.scrape())
                    .contains(
                        "stallwatch_rollout_paused{daemonset=\"agent\",namespace=\"kruise\"} 1"));
    assertThat(stalls()).isEmpty();
    assertThat(registry.scrape()).doesNotContain("stallwatch_rollout_stalled{");
  }

  @Test
  void kruiseServedOnlyAfterTheOperatorStartedIsPickedUpWithoutARestart() throws Exception {
    startOperator(true);
    assertThat(operator.ready()).isTrue();
    assertThat(operator.watchingAdvancedDaemonSets()).isFalse();

    serveKruiseCrd();
    create(partitionStall());

    RolloutStall stall =
        await().atMost(Duration.ofSeconds(20)).until(() -> cluster.active(NS), s -> s != null);
    assertThat(stall.getSpec().daemonSetAPIVersion()).isEqualTo(API);
    assertThat(operator.watchingAdvancedDaemonSets()).isTrue();
  }

  @Test
  void withoutTheSettingAdvancedDaemonSetsAreNotWatched() throws Exception {
    serveKruiseCrd();
    create(partitionStall());

    // A witness the apps/v1 reconciler does see.
    DaemonSetFixture.seed(cluster.client(), Seed.NS, Seed.DS, now).nodes(Seed.NODES).settled();

    startOperator(false);

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> assertThat(registry.scrape()).contains("daemonset=\"" + Seed.DS + "\""));
    assertThat(operator.watchingAdvancedDaemonSets()).isFalse();
    assertThat(registry.scrape()).doesNotContain("daemonset=\"agent\"");
    assertThat(stalls()).isEmpty();
  }
}
