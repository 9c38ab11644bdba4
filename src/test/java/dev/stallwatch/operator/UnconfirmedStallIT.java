package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.operator.decision.EventReason;
import dev.stallwatch.operator.decision.RolloutDecider;
import dev.stallwatch.sim.SimClock;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import dev.stallwatch.testing.DaemonSetFixture.Seed;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The order a hung connection delivers its held watch events in, replayed on the embedded API
 * server with the operator on a virtual clock: a settled pod's deletion, already older than
 * stall-after, seen before the DaemonSet's change that caused it. Every cache is consistent, so
 * only a second look tells old news from a pod stuck terminating: the operator records nothing
 * until {@link RolloutDecider#CONFIRMATION} has passed on its clock. The clock moves only when the
 * test moves it, so "nothing recorded yet" holds however long the real wait.
 */
class UnconfirmedStallIT {
  private static final String NS = Seed.NS;
  private static final String DS = Seed.DS;
  private static final ResourceID ID = new ResourceID(DS, NS);
  private static final Duration STALL_AFTER = Duration.ofSeconds(10);
  private static final Duration WAIT = Duration.ofSeconds(30);

  private SimClock clock;
  private TestApiServer api;
  private KubernetesClient client;
  private StallwatchOperator operator;
  private final ReconcileCounter counter = new ReconcileCounter();
  private DaemonSetFixture rollout;

  @BeforeEach
  void start() {
    clock = SimClock.virtual(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    api = new TestApiServer(clock);
    client = api.client();
    DaemonSetFixture.seed(client, Seed.NS, Seed.DS, clock.instant()).nodes(Seed.NODES);
    rollout = DaemonSetFixture.seed(client, NS, DS, clock.instant()).settled();
    OperatorSettings settings =
        new OperatorSettings(Set.of(), STALL_AFTER, Duration.ofHours(24), 0, false, null);
    operator =
        StallwatchOperator.start(
            api.newClient(),
            settings,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            // Virtual time moves only when the test moves it: re-check often in real time.
            new StallwatchOperator.Timing(
                clock, d -> Duration.ofMillis(100), Duration.ofSeconds(1)),
            counter::wrap);
    awaitLooks(1);
  }

  @AfterEach
  void stop() {
    try {
      if (operator != null) {
        operator.close();
      }
    } finally {
      api.close();
    }
  }

  /** The operator has looked at the DaemonSet {@code n} more times from now on. */
  private void awaitLooks(int n) {
    counter.awaitMore(ID, n, WAIT);
  }

  private List<RolloutStall> stalls() {
    return client.resources(RolloutStall.class).inNamespace(NS).list().getItems();
  }

  private int stalledEvents() {
    return client.v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> EventReason.STALLED.reason().equals(e.getReason()))
        .mapToInt(e -> e.getCount() == null ? 1 : e.getCount())
        .sum();
  }

  /** 12 s pass unseen; then gpu-node-1's settled pod shows up deleted 12 s ago. */
  private Instant deletionSeenLate() {
    Instant deleted = clock.instant();
    clock.advance(Duration.ofSeconds(12));
    awaitLooks(1); // the periodic re-check: the operator last looked after the 12 s
    rollout.podDeleting("gpu-node-1", deleted);
    awaitLooks(3);
    assertStillTerminating();
    return deleted;
  }

  @Test
  void aDeletionSeenPastStallAfterWithTheDaemonSetsChangeBehindItIsNeverRecorded() {
    deletionSeenLate();
    assertThat(stalls()).as("nothing recorded while the deletion is unconfirmed").isEmpty();

    // The held DaemonSet change arrives, within the confirmation (the clock has not moved).
    rollout.changedWithNewPodStuckOnFirstNode();
    awaitLooks(3);
    assertThat(stalls()).as("revision 2's pod is younger than stall-after").isEmpty();

    // Revision 2 falls due: its stall, the only one ever.
    clock.advance(STALL_AFTER.plusSeconds(1));
    await("the stall of revision 2")
        .atMost(WAIT)
        .until(() -> stalls().stream().anyMatch(s -> s.getStatus() != null));
    awaitLooks(3);
    assertThat(stalls()).hasSize(1);
    RolloutStall stall = stalls().get(0);
    assertThat(stall.getSpec().revision()).isEqualTo(Seed.NEW_HASH);
    assertThat(stall.getStatus().active()).isTrue();
    assertThat(stall.getStatus().cause()).isEqualTo("ImagePull");
    await("one RolloutStalled event").atMost(WAIT).until(() -> stalledEvents() >= 1);
    assertThat(stalledEvents()).isEqualTo(1);
  }

  @Test
  void aPodTrulyStuckTerminatingIsRecordedOnceConfirmedWithItsDeletionAsStalledSince() {
    Instant deleted = deletionSeenLate();
    assertThat(stalls()).isEmpty();

    clock.advance(RolloutDecider.CONFIRMATION.minusMillis(1));
    awaitLooks(3);
    assertThat(stalls()).as("nothing recorded before the confirmation has passed").isEmpty();

    clock.advance(Duration.ofMillis(1));
    await("the confirmed stall")
        .atMost(WAIT)
        .until(() -> stalls().stream().anyMatch(s -> s.getStatus() != null));
    awaitLooks(3);
    assertThat(stalls()).hasSize(1);
    RolloutStall stall = stalls().get(0);
    assertThat(stall.getSpec().revision()).isEqualTo(Seed.OLD_HASH);
    assertThat(stall.getStatus().active()).isTrue();
    assertThat(stall.getStatus().stalledSinceTime()).hasValue(deleted);
    assertThat(stall.getStatus().cause()).isEqualTo("NodeUnavailable");
    await("one RolloutStalled event").atMost(WAIT).until(() -> stalledEvents() >= 1);
    awaitLooks(3);
    assertThat(stalledEvents()).isEqualTo(1);
  }

  @Test
  void aDeletionWatchedAllAlongIsRecordedTheMomentItFallsDue() {
    // Seen the moment it begins: the stall grows under the operator's eyes, nothing to confirm.
    Instant deleted = clock.instant();
    rollout.podDeleting("gpu-node-1", deleted);
    awaitLooks(2);
    assertStillTerminating();
    assertThat(stalls()).isEmpty();

    // Exactly at stall-after, and the clock stays there: a confirmation would never pass.
    clock.advance(STALL_AFTER);
    await("the stall, recorded without a second look")
        .atMost(WAIT)
        .until(() -> stalls().stream().anyMatch(s -> s.getStatus() != null));
    RolloutStall stall = stalls().get(0);
    assertThat(stalls()).hasSize(1);
    assertThat(stall.getSpec().revision()).isEqualTo(Seed.OLD_HASH);
    assertThat(stall.getStatus().stalledSinceTime()).hasValue(deleted);
    assertThat(stall.getStatus().cause()).isEqualTo("NodeUnavailable");
  }

  /** The stuck pod is still there, being deleted: the stall rests on it, not on an empty node. */
  private void assertStillTerminating() {
    var pod = client.pods().inNamespace(NS).withName(DS + "-gpu-node-1").get();
    assertThat(pod).as("gpu-node-1's pod").isNotNull();
    assertThat(pod.getMetadata().getDeletionTimestamp()).isNotNull();
  }
}
