package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
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
 * A rollout completed an hour ago; then one of its pods stops being Ready for a moment (a failing
 * probe, a crashed container, a restarted kubelet) and turns Ready again. Nothing is rolling out:
 * no RolloutStall, no Event — unless the pod stays unavailable for stall-after, dated from when it
 * stopped being Ready, not from its creation an hour before. On the embedded API server with the
 * operator on a virtual clock that moves only when the test moves it.
 */
class PodBlinkIT {
  private static final ResourceID ID = new ResourceID(Seed.DS, Seed.NS);
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
    rollout = DaemonSetFixture.seed(client, Seed.NS, Seed.DS, clock.instant()).settled();
    clock.advance(Duration.ofHours(1));
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

  private void startOperator() {
    operator =
        StallwatchOperator.start(
            api.newClient(),
            new OperatorSettings(Set.of(), STALL_AFTER, Duration.ofHours(24), 0, false, null),
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            // Virtual time moves only when the test moves it: re-check often in real time.
            new StallwatchOperator.Timing(
                clock, d -> Duration.ofMillis(100), Duration.ofSeconds(1)),
            counter::wrap);
    awaitLooks(1);
  }

  /** The operator has looked at the DaemonSet {@code n} more times from now on. */
  private void awaitLooks(int n) {
    counter.awaitMore(ID, n, WAIT);
  }

  /**
   * Sets the pod's Ready condition and waits until the operator has received the change: its cache
   * then holds it, so a reconcile that reads the clock moved on afterwards cannot see the pod as it
   * was (the clock moves at once, the informer in its own time).
   */
  private void podReadySeen(boolean ready, Instant at) {
    long before = counter.events(ID);
    rollout.podReady("gpu-node-1", ready, at);
    await("the operator received the pod's change")
        .atMost(WAIT)
        .until(() -> counter.events(ID) > before);
  }

  private List<RolloutStall> stalls() {
    return client.resources(RolloutStall.class).inNamespace(Seed.NS).list().getItems();
  }

  @Test
  void aPodThatIsNotReadyForLessThanStallAfterRecordsNothing() {
    startOperator();

    Instant blinked = clock.instant();
    podReadySeen(false, blinked);
    awaitLooks(2);
    assertThat(stalls()).as("a pod not Ready for a moment, created an hour ago").isEmpty();
    clock.advance(STALL_AFTER.minusSeconds(1));
    awaitLooks(2);
    assertThat(stalls()).as("not Ready for less than stall-after").isEmpty();
    podReadySeen(true, clock.instant());
    clock.advance(STALL_AFTER.plusSeconds(1));
    awaitLooks(2);
    assertThat(stalls()).as("Ready again").isEmpty();

    // The control: not Ready for longer than stall-after is a stall, since it stopped being Ready.
    Instant down = clock.instant();
    podReadySeen(false, down);
    awaitLooks(2);
    clock.advance(STALL_AFTER.plusSeconds(1));
    RolloutStall stall =
        await("the stall of a pod not Ready for longer than stall-after")
            .atMost(WAIT)
            // its status is written right after the create: wait for both
            .until(this::stalls, s -> !s.isEmpty() && s.get(0).getStatus() != null)
            .get(0);
    assertThat(stall.getStatus().phase()).isEqualTo("Active");
    assertThat(stall.getStatus().node()).isEqualTo("gpu-node-1");
    assertThat(stall.getStatus().cause()).isEqualTo("NotReady");
    assertThat(Instant.parse(stall.getStatus().stalledSince())).isEqualTo(down);
  }

  @Test
  void aPodReadyAgainThatWaitsOutMinReadySecondsRecordsNothingEvenRightAfterARestart() {
    rollout.minReadySeconds(3, Seed.NODES.length);
    // While no operator runs, the pod blinks and is Ready again, counting minReadySeconds: the
    // operator that starts now has only this snapshot, and the pod's creation an hour ago.
    rollout.podReady("gpu-node-1", false, clock.instant());
    clock.advance(Duration.ofSeconds(1));
    rollout.podReady("gpu-node-1", true, clock.instant());
    startOperator();
    awaitLooks(2);
    assertThat(stalls()).as("Ready again, waiting out minReadySeconds").isEmpty();

    clock.advance(Duration.ofSeconds(4));
    awaitLooks(2);
    assertThat(stalls()).as("available again").isEmpty();
  }
}
