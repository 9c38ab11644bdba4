package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.operator.decision.StalledCondition;
import dev.stallwatch.operator.decision.StalledConditionTest;
import dev.stallwatch.operator.effects.ConditionWrites;
import dev.stallwatch.operator.effects.StallMetrics;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import dev.stallwatch.testing.DaemonSetFixture.Seed;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetCondition;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The DaemonSet's {@code Stalled} condition ({@code --daemonset-conditions}) on the embedded API
 * server: True while the RolloutStall is Active, False with the resolution once resolved, written
 * only on change and only to its own list entry; nothing without the flag; another writer's
 * condition left alone; refused or raced writes neither crash nor lose the RolloutStall.
 */
class DaemonSetConditionIT {
  private static final String NS = Seed.NS;
  private static final String NAME = Seed.DS;
  private static final String STATUS =
      "/apis/apps/v1/namespaces/" + NS + "/daemonsets/" + NAME + "/status";
  // as sent; the embedded server's front strips the query before its store and expectations
  private static final String STATUS_PATCH = STATUS + "?fieldManager=stallwatch";

  private TestApiServer cluster;
  private StallwatchOperator operator;
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final ReconcileCounter counter = new ReconcileCounter();
  private static final ResourceID ID = new ResourceID(NAME, NS);
  private static final Duration WAIT = Duration.ofSeconds(10);

  /** The operator's log lines, for a failure to say what the operator did and saw. */
  private final ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent>
      said = new ch.qos.logback.core.read.ListAppender<>();

  private final ch.qos.logback.classic.Logger operatorLog =
      (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("dev.stallwatch");

  @BeforeEach
  void start() {
    said.start();
    operatorLog.addAppender(said);
    cluster = new TestApiServer();
    DaemonSetFixture.seed(cluster.client(), NS, NAME, Instant.now()).nodes(Seed.NODES);
  }

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
    cluster.close();
    operatorLog.detachAppender(said);
  }

  /** The operator's log so far, one line per event. */
  private String operatorSaid() {
    return String.join(
        "\n",
        said.list.stream()
            .map(e -> e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage())
            .toList());
  }

  private void startOperator(boolean conditions) {
    OperatorSettings settings =
        new OperatorSettings(Set.of(), Duration.ofSeconds(3), Duration.ofHours(24), 0, false, null)
            .withDaemonSetConditions(conditions);
    operator =
        StallwatchOperator.start(
            cluster.client(), settings, registry, StallwatchOperator.Timing.REAL, counter::wrap);
  }

  /** A change to one of the DaemonSet's pods, and the reconcile it leads to. */
  private void podChangedAndReconciled() {
    long before = counter.reconciles(ID);
    cluster
        .client()
        .pods()
        .inNamespace(NS)
        .withName(NAME + "-" + Seed.NODES[1])
        .edit(
            p -> {
              p.getMetadata().getLabels().put("touched", String.valueOf(System.nanoTime()));
              return p;
            });
    await("a reconcile after the pod's change")
        .atMost(WAIT)
        .until(() -> counter.reconciles(ID) > before);
  }

  /** The embedded server answers the operator's status patches {@code code} (all, or once). */
  private void refuseStatusPatches(int code, String reason, String message, boolean always) {
    var answer =
        cluster
            .mockServer()
            .expect()
            .patch()
            .withPath(STATUS)
            .andReturn(
                code,
                new StatusBuilder()
                    .withStatus("Failure")
                    .withReason(reason)
                    .withCode(code)
                    .withMessage(message)
                    .build());
    if (always) {
      answer.always();
    } else {
      answer.once();
    }
  }

  private DaemonSet ds() {
    return cluster.client().apps().daemonSets().inNamespace(NS).withName(NAME).get();
  }

  private Optional<DaemonSetCondition> stalled() {
    DaemonSet ds = ds();
    return ds.getStatus() == null
        ? Optional.empty()
        : StalledCondition.in(ds.getStatus().getConditions());
  }

  /** The status patches the operator sent so far. */
  private List<RecordedRequest> statusPatches() throws InterruptedException {
    List<RecordedRequest> patches = new ArrayList<>();
    var server = cluster.mockServer();
    int n = server.getRequestCount();
    for (int i = 0; i < n; i++) {
      RecordedRequest r = server.takeRequest(1, java.util.concurrent.TimeUnit.MILLISECONDS);
      if (r == null) {
        break;
      }
      if ("PATCH".equals(r.getMethod()) && r.getPath().startsWith(STATUS_PATCH)) {
        patches.add(r);
      }
    }
    return patches;
  }

  @Test
  void aStalledRolloutCarriesStalledTrueUntilItsRollbackTurnsItFalse() throws Exception {
    DaemonSetFixture rollout =
        DaemonSetFixture.seed(cluster.client(), NS, NAME, Instant.now().minusSeconds(600))
            .stalledOnFirstNode();
    startOperator(true);

    RolloutStall stall =
        await().atMost(Duration.ofSeconds(20)).until(() -> cluster.active(NS), s -> s != null);
    DaemonSetCondition c =
        await().atMost(Duration.ofSeconds(10)).until(this::stalled, Optional::isPresent).get();
    assertThat(c.getStatus()).isEqualTo("True");
    assertThat(c.getReason()).isEqualTo("ImagePull");
    assertThat(c.getLastTransitionTime())
        .isEqualTo(StalledCondition.apiTime(stall.getStatus().stalledSinceTime().orElseThrow()));
    assertThat(c.getMessage())
        .startsWith("Rollout stalled on node gpu-node-1: ImagePull")
        .contains(
            "suspect NewRevision",
            Seed.NEW_HASH,
            "stalled since " + stall.getStatus().stalledSince());
    // The controller's counts are where the fixture left them: only the condition was written.
    assertThat(ds().getStatus().getDesiredNumberScheduled()).isEqualTo(3);
    assertThat(ds().getStatus().getNumberAvailable()).isEqualTo(2);

    rollout.rolledBack();

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              DaemonSetCondition after = stalled().orElseThrow();
              assertThat(after.getStatus())
                  .as(
                      () ->
                          "the condition after the rollback; the stalls: "
                              + cluster.stalls(NS).stream().map(x -> x.getStatus()).toList()
                              + "\nthe operator's log:\n"
                              + operatorSaid())
                  .isEqualTo("False");
              assertThat(after.getReason()).isEqualTo("RolledBack");
              assertThat(after.getLastTransitionTime())
                  .isEqualTo(
                      StalledCondition.apiTime(
                          cluster.stalls(NS).get(0).getStatus().resolvedAtTime().orElseThrow()));
            });
    String version = ds().getMetadata().getResourceVersion();
    // More reconciles (here a pod's change) write nothing more: the cached condition is current.
    podChangedAndReconciled();
    podChangedAndReconciled();
    assertThat(ds().getMetadata().getResourceVersion()).isEqualTo(version);
    // A write per change of the condition: True, then False, and one more when the stall's own
    // line changed meanwhile (how many depends on when the record was updated); more reconciles
    // write nothing (above), so no loop.
    assertThat(statusPatches()).hasSizeBetween(2, 4);
  }

  @Test
  void withoutTheFlagNoConditionIsWritten() {
    DaemonSetFixture.seed(cluster.client(), NS, NAME, Instant.now().minusSeconds(600))
        .stalledOnFirstNode();
    startOperator(false);

    await().atMost(Duration.ofSeconds(20)).until(() -> cluster.active(NS), s -> s != null);
    podChangedAndReconciled();
    assertThat(stalled()).isEmpty();
  }

  @Test
  void aStalledConditionAnotherWriterOwnsIsLeftAloneAndCounted() {
    DaemonSetFixture.seed(cluster.client(), NS, NAME, Instant.now().minusSeconds(600))
        .stalledOnFirstNode();
    DaemonSet ds = ds();
    DaemonSetCondition theirs = new DaemonSetCondition();
    theirs.setType("Stalled");
    theirs.setStatus("False");
    theirs.setReason("FluxSaysFine");
    ds.getStatus().setConditions(new ArrayList<>(List.of(theirs)));
    ds.getMetadata()
        .setManagedFields(
            List.of(
                StalledConditionTest.managed(
                    "flux",
                    "status",
                    "{\"f:status\":{\"f:conditions\":{\"k:{\\\"type\\\":\\\"Stalled\\\"}\":{}}}}")));
    ds =
        cluster.client().resource(ds).update(); // the managedFields, as the API server records them
    ds.getStatus().setConditions(new ArrayList<>(List.of(theirs)));
    cluster.client().resource(ds).updateStatus();
    startOperator(true);

    await().atMost(Duration.ofSeconds(20)).until(() -> cluster.active(NS), s -> s != null);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(registry.scrape())
                    .contains("stallwatch_daemonset_conditions_foreign 1.0"));
    assertThat(stalled().orElseThrow().getReason()).isEqualTo("FluxSaysFine");
  }

  @Test
  void aRefusedConditionWriteIsTriedOnceAndTheStallIsRecordedAsAlways() throws Exception {
    refuseStatusPatches(
        403,
        "Forbidden",
        "daemonsets.apps \""
            + NAME
            + "\" is forbidden: cannot patch resource \"daemonsets/status\"",
        true);
    DaemonSetFixture.seed(cluster.client(), NS, NAME, Instant.now().minusSeconds(600))
        .stalledOnFirstNode();
    startOperator(true);

    await().atMost(Duration.ofSeconds(20)).until(() -> cluster.active(NS), s -> s != null);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(cluster.events(NS, NAME, "RolloutStalled")).hasSize(1));
    podChangedAndReconciled();
    podChangedAndReconciled();
    assertThat(statusPatches()).hasSize(1);
    assertThat(stalled()).isEmpty();
    assertThat(operator.ready()).isTrue();
  }

  @Test
  void aRefusalHoldsTheWritesOffForFiveMinutesThenTheyAreTriedAgain() throws Exception {
    // An API server that has just restarted refuses (403) until its authorizer has caught up: a
    // refusal must not turn the condition off for good.
    refuseStatusPatches(403, "Forbidden", "cannot patch resource \"daemonsets/status\"", false);
    DaemonSetFixture.seed(cluster.client(), NS, NAME, Instant.now().minusSeconds(600))
        .stalledOnFirstNode();
    var writes = new ConditionWrites(cluster.client(), new StallMetrics(registry));
    var stalls = List.of(StalledConditionTest.stall(Seed.NEW_HASH, StalledConditionTest.ACTIVE));
    Instant refused = Instant.parse("2026-12-06T06:00:00Z");

    writes.sync(ds(), "apps/v1", stalls, Seed.NEW_HASH, refused);
    assertThat(statusPatches()).as("the refused write").hasSize(1);
    writes.sync(ds(), "apps/v1", stalls, Seed.NEW_HASH, refused.plus(Duration.ofMinutes(4)));
    assertThat(statusPatches()).as("within the hold-off: none").isEmpty();
    assertThat(stalled()).isEmpty();

    writes.sync(
        ds(),
        "apps/v1",
        stalls,
        Seed.NEW_HASH,
        refused.plus(ConditionWrites.REFUSED_HOLD_OFF).plusSeconds(1));
    assertThat(statusPatches()).as("after it: tried again, and it lands").hasSize(1);
    assertThat(stalled().orElseThrow().getStatus()).isEqualTo("True");
  }

  @Test
  void aDaemonSetGoneMidWriteIsNoErrorAndTheNextLookWritesIt() throws Exception {
    refuseStatusPatches(404, "NotFound", "daemonsets.apps \"" + NAME + "\" not found", false);
    DaemonSetFixture.seed(cluster.client(), NS, NAME, Instant.now().minusSeconds(600))
        .stalledOnFirstNode();
    startOperator(true);

    await().atMost(Duration.ofSeconds(20)).until(() -> cluster.active(NS), s -> s != null);
    assertThat(registry.scrape()).doesNotContain("stallwatch_reconcile_errors_total{");
    podChangedAndReconciled(); // the DaemonSet is there after all: the next look writes it
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> stalled().map(c -> "True".equals(c.getStatus())).orElse(false));
    assertThat(statusPatches())
        .as("the one answered 404, then the one that landed")
        .hasSizeGreaterThanOrEqualTo(2);
    assertThat(operator.ready()).isTrue();
  }

  @Test
  void aWriteThatRacesAChangeIsTriedAgainAndLands() {
    refuseStatusPatches(422, "Invalid", "the test operation failed: resourceVersion", false);
    DaemonSetFixture.seed(cluster.client(), NS, NAME, Instant.now().minusSeconds(600))
        .stalledOnFirstNode();
    startOperator(true);

    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> stalled().map(c -> "True".equals(c.getStatus())).orElse(false));
  }
}
