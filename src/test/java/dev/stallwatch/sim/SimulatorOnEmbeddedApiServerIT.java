package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.testcluster.TestApiServer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

/** The simulator needs only a client: the seed story on the embedded API server of the demo. */
class SimulatorOnEmbeddedApiServerIT {

  @Test
  void theSeedStoryShowsTheCalmStalledLineOnTheEmbeddedApiServer() {
    SimClock clock = SimClock.virtual(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    try (TestApiServer server = new TestApiServer(clock)) {
      SimulatedCluster cluster =
          SimulatedCluster.install(server.client(), Scenarios.named("image-pull-stall"), clock);
      cluster.runFor(Duration.ofMinutes(7), Duration.ofSeconds(15));
      StatusAgreement.assertAgrees(server.client(), clock.instant());
      var status =
          server
              .client()
              .apps()
              .daemonSets()
              .inNamespace(Scenarios.NAMESPACE)
              .withName(Scenarios.DAEMON_SET)
              .get()
              .getStatus();
      // DESIRED 3, CURRENT 3, READY 2, UP-TO-DATE 1, AVAILABLE 2 — the seed's line
      assertThat(status.getDesiredNumberScheduled()).isEqualTo(3);
      assertThat(status.getCurrentNumberScheduled()).isEqualTo(3);
      assertThat(status.getNumberReady()).isEqualTo(2);
      assertThat(status.getUpdatedNumberScheduled()).isEqualTo(1);
      assertThat(status.getNumberAvailable()).isEqualTo(2);
    }
  }
}
