package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.cluster.EmbeddedApiServer;
import dev.stallwatch.operator.crd.RolloutStall;
import dev.stallwatch.sim.Scenarios;
import dev.stallwatch.sim.SimClock;
import dev.stallwatch.sim.SimulatedCluster;
import io.fabric8.kubernetes.api.model.Event;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One simulated rollout per cause, end to end: the simulator plays the scenario on a virtual clock,
 * the real operator watches, and the test follows the stall from RolloutStall to metric to Event to
 * its resolution by a rollback.
 */
class CauseStallIT {
  private static final String NS = Scenarios.NAMESPACE;
  private static final String DS = Scenarios.DAEMON_SET;
  private static final Duration STEP = Duration.ofSeconds(5);

  @ParameterizedTest(name = "{0} stalls with {1} on {2}, then a rollback resolves it")
  @CsvSource({
    "seed-story, ImagePull, gpu-node-1",
    "insufficient-gpu, InsufficientResources, gpu-node-1",
    "toleration-dropped, NodeExcluded, gpu-node-1",
    "crash-loop, CrashLoop, gpu-node-1",
    "readiness-never, NotReady, gpu-node-1",
    "node-unreachable, NodeUnavailable, gpu-node-3",
    "host-port-conflict, Unschedulable, gpu-node-1",
    "container-creating-forever, Unknown, gpu-node-1",
  })
  void aStalledRolloutIsRecordedReportedAndResolved(String scenario, String cause, String node)
      throws Exception {
    SimClock clock = SimClock.virtual(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (EmbeddedApiServer api = new EmbeddedApiServer(clock, Path.of("crd")).start();
        SimulatedCluster sim =
            SimulatedCluster.install(api.client(), Scenarios.named(scenario), clock);
        StallwatchOperator operator =
            StallwatchOperator.start(
                api.newClient(),
                new OperatorSettings(
                    Set.of(), Duration.ofMinutes(2), Duration.ofHours(24), 0, false, null),
                registry,
                // Virtual time moves only when the test advances it: re-check often in real time.
                new StallwatchOperator.Timing(
                    clock, d -> Duration.ofMillis(100), Duration.ofSeconds(1)))) {
      assertThat(drive(sim, () -> active(api).isPresent(), Duration.ofMinutes(15)))
          .as("%s: a RolloutStall appears", scenario)
          .isTrue();
      RolloutStall stall = active(api).orElseThrow();
      String oldHash = stall.getStatus().oldRevision().hash();
      assertThat(stall.getStatus().cause()).isEqualTo(cause);
      assertThat(stall.getStatus().node()).isEqualTo(node);
      assertThat(stall.getSpec().daemonSet()).isEqualTo(DS);
      assertThat(stall.getStatus().newRevision().hash())
          .isEqualTo(stall.getSpec().revision())
          .isNotEqualTo(oldHash);
      assertThat(stall.getStatus().newRevision().images()).isNotEmpty();
      String gauge =
          "stallwatch_rollout_stalled{cause=\""
              + cause
              + "\",daemonset=\""
              + DS
              + "\",namespace=\""
              + NS
              + "\"} 1.0";
      assertThat(drive(sim, () -> registry.scrape().contains(gauge), STEP))
          .as("%s: the stall metric", scenario)
          .isTrue();
      assertThat(
              drive(sim, () -> !events(api, StallEvents.STALLED).isEmpty(), Duration.ofMinutes(1)))
          .isTrue();
      assertThat(events(api, StallEvents.STALLED).get(0).getMessage())
          .contains(node)
          .contains(cause);

      sim.rollback(NS, DS);
      String name = stall.getMetadata().getName();
      assertThat(
              drive(
                  sim,
                  () -> {
                    RolloutStall s = stall(api, name);
                    return s != null && !s.getStatus().active();
                  },
                  Duration.ofMinutes(10)))
          .as("%s: the rollback resolves the stall", scenario)
          .isTrue();
      assertThat(stall(api, name).getStatus().conditions().get(0).getReason())
          .isEqualTo(Resolution.RolledBack.name());
      assertThat(
              drive(sim, () -> !events(api, StallEvents.RESOLVED).isEmpty(), Duration.ofMinutes(1)))
          .isTrue();
      assertThat(
              drive(
                  sim,
                  () -> !registry.scrape().contains("stallwatch_rollout_stalled{"),
                  Duration.ofMinutes(1)))
          .as("%s: the stall series goes away", scenario)
          .isTrue();
      // The restored revision replaces the broken pod; the instant the node is empty in between
      // is not a stall of its own (it would date from the broken revision's creation).
      drive(sim, () -> false, Duration.ofMinutes(1));
      assertThat(api.client().resources(RolloutStall.class).inNamespace(NS).list().getItems())
          .as("%s: no second stall after the rollback", scenario)
          .extracting(s -> s.getMetadata().getName())
          .containsExactly(name);
      assertThat(events(api, StallEvents.STALLED)).hasSize(1);
    }
  }

  /** Advances virtual time and ticks the simulator until {@code done}, giving the operator time. */
  private static boolean drive(SimulatedCluster sim, BooleanSupplier done, Duration limit)
      throws InterruptedException {
    Instant end = sim.clock().instant().plus(limit);
    while (!sim.clock().instant().isAfter(end)) {
      if (done.getAsBoolean()) {
        return true;
      }
      sim.clock().advance(STEP);
      sim.tick();
      Thread.sleep(150);
    }
    return done.getAsBoolean();
  }

  private static Optional<RolloutStall> active(EmbeddedApiServer api) {
    return api.client().resources(RolloutStall.class).inNamespace(NS).list().getItems().stream()
        .filter(s -> s.getStatus() != null && s.getStatus().active())
        .findFirst();
  }

  private static RolloutStall stall(EmbeddedApiServer api, String name) {
    return api.client().resources(RolloutStall.class).inNamespace(NS).withName(name).get();
  }

  private static List<Event> events(EmbeddedApiServer api, String reason) {
    return api.client().v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .toList();
  }
}
