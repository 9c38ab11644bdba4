package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.crd.StallName;
import dev.stallwatch.operator.decision.EventReason;
import dev.stallwatch.rollback.RollbackRecord;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import dev.stallwatch.testing.DaemonSetFixture.Seed;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The operator's opt-in auto-rollback on the embedded API server: once, no loop, opt-in only. */
class AutoRollbackOperatorIT {
  private static final String NS = Seed.NS;
  private static final String NAME = Seed.DS;
  private static final Duration STALL_AFTER = Duration.ofSeconds(2);
  private static final Duration ROLLBACK_AFTER = Duration.ofSeconds(1);

  /** Rollbacks wait for time to pass: the test moves it, one second per step. */
  private static final Duration STEP = Duration.ofSeconds(1);

  private static final Duration LIMIT = Duration.ofMinutes(1);

  private final VirtualTime time = new VirtualTime(NS, NAME);
  private TestApiServer cluster;
  private DaemonSetFixture rollout;
  private StallwatchOperator operator;
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @BeforeEach
  void start() {
    cluster = new TestApiServer(time.clock);
    DaemonSetFixture.seed(cluster.client(), Seed.NS, Seed.DS, time.now()).nodes(Seed.NODES);
    rollout = DaemonSetFixture.seed(cluster.client(), NS, NAME, time.now().minusSeconds(600));
    rollout.stalledOnFirstNode();
  }

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
    cluster.close();
  }

  private void startOperator(boolean autoRollback) {
    OperatorSettings settings =
        new OperatorSettings(
            Set.of(),
            STALL_AFTER,
            Duration.ofHours(24),
            0,
            false,
            null,
            autoRollback,
            ROLLBACK_AFTER);
    operator =
        StallwatchOperator.start(
            cluster.client(), settings, registry, time.timing(), time.counter::wrap);
  }

  private void optIn() {
    cluster
        .client()
        .apps()
        .daemonSets()
        .inNamespace(NS)
        .withName(NAME)
        .edit(
            ds -> {
              ds.getMetadata().getAnnotations().put(MetadataKeys.AUTO_ROLLBACK, "true");
              return ds;
            });
  }

  private DaemonSet ds() {
    return cluster.client().apps().daemonSets().inNamespace(NS).withName(NAME).get();
  }

  private String image() {
    return ds().getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
  }

  @Test
  void anOptedInStalledRolloutIsRolledBackOnceAndNeverAgain() {
    optIn();
    startOperator(true);

    assertThat(time.until(() -> Seed.OLD_IMAGE.equals(image()), STEP, LIMIT))
        .as("rolled back within %s of virtual time", LIMIT)
        .isTrue();
    assertThat(RollbackRecord.fromAnnotations(ds().getMetadata().getAnnotations()))
        .hasValueSatisfying(
            r -> {
              assertThat(r.from()).isEqualTo(Seed.NEW_HASH);
              assertThat(r.to()).isEqualTo(Seed.OLD_HASH);
              assertThat(r.by()).isEqualTo("stallwatch operator");
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(cluster.events(NS, NAME, EventReason.ROLLED_BACK.reason())).hasSize(1));
    assertThat(cluster.events(NS, NAME, EventReason.ROLLED_BACK.reason()).get(0).getMessage())
        .contains(Seed.NEW_HASH)
        .contains(Seed.OLD_HASH);
    assertThat(registry.scrape())
        .contains(
            "stallwatch_rollbacks_total{daemonset=\"" + NAME + "\",namespace=\"" + NS + "\"} 1.0");
    // The stall of the revision rolled back is Resolved and says by whom, from and to what.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              RolloutStallStatus s = stall(Seed.NEW_HASH).getStatus();
              assertThat(s.phase()).isEqualTo(RolloutStallStatus.RESOLVED);
              assertThat(s.conditions().get(0).getReason()).isEqualTo("RolledBack");
              assertThat(s.rollback())
                  .isNotNull()
                  .satisfies(
                      r -> {
                        assertThat(r.from()).isEqualTo(Seed.NEW_HASH);
                        assertThat(r.to()).isEqualTo(Seed.OLD_HASH);
                        assertThat(r.by()).isEqualTo(RollbackRecord.BY_OPERATOR);
                        assertThat(Instant.parse(r.at())).isBeforeOrEqualTo(time.now());
                      });
            });

    // The restored revision cannot start on gpu-node-1 either: it stalls in turn, well past the
    // delay — and must not be rolled back (that would restore the broken revision).
    rollout.restoredRevisionStuckOnFirstNode();
    assertThat(time.until(() -> active(Seed.OLD_HASH), STEP, LIMIT))
        .as("the restored revision's stall is recorded")
        .isTrue();
    time.passInSteps(ROLLBACK_AFTER.plusSeconds(3), STEP);
    assertThat(stall(Seed.OLD_HASH).getStatus().active()).isTrue();
    assertThat(image()).isEqualTo(Seed.OLD_IMAGE);
    assertThat(cluster.events(NS, NAME, EventReason.ROLLED_BACK.reason())).hasSize(1);
    assertThat(registry.scrape())
        .contains(
            "stallwatch_rollbacks_total{daemonset=\"" + NAME + "\",namespace=\"" + NS + "\"} 1.0");
  }

  @Test
  void aReappliedTemplateWithoutTheAnnotationsIsNotRolledBackAgain() {
    optIn();
    startOperator(true);
    assertThat(time.until(() -> Seed.OLD_IMAGE.equals(image()), STEP, LIMIT))
        .as("rolled back within %s of virtual time", LIMIT)
        .isTrue();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              RolloutStall s = stall(Seed.NEW_HASH);
              return s != null && s.getStatus() != null && s.getStatus().rollback() != null;
            });

    // A GitOps tool puts its manifest back: the broken template, and none of stallwatch's marks.
    cluster
        .client()
        .apps()
        .daemonSets()
        .inNamespace(NS)
        .withName(NAME)
        .edit(
            ds -> {
              ds.getSpec().setTemplate(rollout.template(2));
              RollbackRecord.fromAnnotations(ds.getMetadata().getAnnotations())
                  .ifPresent(
                      r ->
                          r.annotations()
                              .keySet()
                              .forEach(ds.getMetadata().getAnnotations()::remove));
              return ds;
            });
    assertThat(time.until(() -> active(Seed.NEW_HASH), STEP, LIMIT))
        .as("the stall of the re-applied template is Active again")
        .isTrue();
    time.passInSteps(ROLLBACK_AFTER.plusSeconds(3), STEP);

    // The RolloutStall remembers the first rollback, so the operator does not start a loop.
    assertThat(image()).isEqualTo(Seed.NEW_IMAGE);
    assertThat(cluster.events(NS, NAME, EventReason.ROLLED_BACK.reason())).hasSize(1);
    assertThat(cluster.events(NS, NAME, EventReason.ROLLBACK_REFUSED.reason())).isEmpty();
    assertThat(stall(Seed.NEW_HASH).getStatus().rollback().by())
        .isEqualTo(RollbackRecord.BY_OPERATOR);
  }

  @Test
  void withoutTheOptInAnnotationNothingIsRolledBack() {
    startOperator(true);

    assertThat(time.until(() -> cluster.active(NS) != null, STEP, LIMIT))
        .as("the stall is recorded")
        .isTrue();
    time.passInSteps(ROLLBACK_AFTER.plusSeconds(3), STEP);

    assertThat(image()).isEqualTo(Seed.NEW_IMAGE);
    assertThat(cluster.events(NS, NAME, EventReason.ROLLED_BACK.reason())).isEmpty();
    assertThat(registry.scrape()).doesNotContain("stallwatch_rollbacks_total");
  }

  @Test
  void withTheGlobalSwitchOffNothingIsRolledBack() {
    optIn();
    startOperator(false);

    assertThat(time.until(() -> cluster.active(NS) != null, STEP, LIMIT))
        .as("the stall is recorded")
        .isTrue();
    time.passInSteps(ROLLBACK_AFTER.plusSeconds(3), STEP);

    assertThat(image()).isEqualTo(Seed.NEW_IMAGE);
    assertThat(cluster.events(NS, NAME, EventReason.ROLLED_BACK.reason())).isEmpty();
  }

  @Test
  void aStallTheNodeIsToBlameForIsNotRolledBackAndTheStallAndAnEventSayWhy() {
    // gpu-node-1 has been NotReady for a day: the new pod there is not to blame.
    cluster
        .client()
        .nodes()
        .withName("gpu-node-1")
        .editStatus(
            n -> {
              var ready = n.getStatus().getConditions().get(0);
              ready.setStatus("False");
              ready.setReason("KubeletNotReady");
              ready.setLastTransitionTime(time.now().minusSeconds(86400).toString());
              return n;
            });
    optIn();
    startOperator(true);

    assertThat(
            time.until(
                () -> cluster.events(NS, NAME, EventReason.ROLLBACK_WITHHELD.reason()).size() == 1,
                STEP,
                LIMIT))
        .as("a RollbackWithheld Event")
        .isTrue();
    RolloutStallStatus status = stall(Seed.NEW_HASH).getStatus();
    assertThat(status.cause()).isEqualTo("NodeUnavailable");
    assertThat(status.suspect()).isEqualTo("Node");
    assertThat(status.rollbackWithheld())
        .startsWith("not rolled back: the suspect is Node, not the new revision");
    // Held throughout, past the rollback delay: never rolled back, the Event never repeated.
    for (int step = 0; step < ROLLBACK_AFTER.plusSeconds(2).dividedBy(STEP); step++) {
      time.pass(STEP);
      assertThat(image()).isEqualTo(Seed.NEW_IMAGE);
      assertThat(cluster.events(NS, NAME, EventReason.ROLLED_BACK.reason())).isEmpty();
      assertThat(cluster.events(NS, NAME, EventReason.ROLLBACK_WITHHELD.reason())).hasSize(1);
    }
  }

  /** True when the stall of revision {@code hash} exists, has a status and is Active. */
  private boolean active(String hash) {
    RolloutStall s = stall(hash);
    return s != null && s.getStatus() != null && s.getStatus().active();
  }

  private RolloutStall stall(String hash) {
    return cluster
        .client()
        .resources(RolloutStall.class)
        .inNamespace(NS)
        .withName(StallName.of(NAME, hash))
        .get();
  }
}
