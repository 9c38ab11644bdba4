package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.cluster.EmbeddedApiServer;
import dev.stallwatch.operator.crd.RolloutStall;
import dev.stallwatch.operator.crd.RolloutStallStatus;
import dev.stallwatch.rollback.RollbackPolicy;
import dev.stallwatch.sim.Scenarios;
import dev.stallwatch.sim.SimClock;
import dev.stallwatch.sim.SimulatedCluster;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A deliberate narrowing (scenario toleration-dropped: the new template no longer tolerates
 * gpu-node-1's taint) acknowledged with {@value RolloutStall#ACKNOWLEDGED}: the stall is Resolved,
 * not raised again for that revision, and the opted-in auto-rollback leaves the accepted revision
 * alone.
 */
class AcknowledgedExclusionIT {
  private static final String NS = Scenarios.NAMESPACE;
  private static final String DS = Scenarios.DAEMON_SET;
  private static final Duration STEP = Duration.ofSeconds(5);
  private static final Duration ROLLBACK_AFTER = Duration.ofMinutes(3);

  @Test
  void anAcknowledgedExclusionIsResolvedStaysQuietAndIsNotRolledBack() throws Exception {
    SimClock clock = SimClock.virtual(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (EmbeddedApiServer api = new EmbeddedApiServer(clock, Path.of("crd")).start();
        SimulatedCluster sim =
            SimulatedCluster.install(api.client(), Scenarios.named("toleration-dropped"), clock);
        StallwatchOperator operator =
            StallwatchOperator.start(
                api.newClient(),
                new OperatorSettings(
                    Set.of(),
                    Duration.ofMinutes(2),
                    Duration.ofHours(24),
                    0,
                    false,
                    null,
                    true,
                    ROLLBACK_AFTER),
                registry,
                new StallwatchOperator.Timing(
                    clock, d -> Duration.ofMillis(100), Duration.ofSeconds(1)))) {
      api.client()
          .apps()
          .daemonSets()
          .inNamespace(NS)
          .withName(DS)
          .edit(
              ds -> {
                ds.getMetadata().getAnnotations().put(RollbackPolicy.OPT_IN, "true");
                return ds;
              });
      assertThat(drive(sim, () -> active(api) != null, Duration.ofMinutes(15))).isTrue();
      RolloutStall stall = active(api);
      assertThat(stall.getStatus().cause()).isEqualTo("NodeExcluded");
      String template = template(api);

      api.client()
          .resource(stall)
          .edit(
              s -> {
                var annotations = new java.util.HashMap<String, String>();
                if (s.getMetadata().getAnnotations() != null) {
                  annotations.putAll(s.getMetadata().getAnnotations());
                }
                annotations.put(RolloutStall.ACKNOWLEDGED, "true");
                s.getMetadata().setAnnotations(annotations);
                return s;
              });
      String name = stall.getMetadata().getName();
      assertThat(
              drive(
                  sim,
                  () -> RolloutStallStatus.RESOLVED.equals(stall(api, name).getStatus().phase()),
                  Duration.ofMinutes(1)))
          .isTrue();
      assertThat(stall(api, name).getStatus().conditions().get(0).getReason())
          .isEqualTo(Resolution.Acknowledged.name());

      // Well past the auto-rollback delay: the accepted revision stays, nothing is raised again.
      drive(sim, () -> false, ROLLBACK_AFTER.plusMinutes(2));
      assertThat(template(api)).isEqualTo(template);
      assertThat(events(api, StallEvents.ROLLED_BACK)).isEmpty();
      assertThat(events(api, StallEvents.STALLED)).hasSize(1);
      assertThat(stall(api, name).getStatus().phase()).isEqualTo(RolloutStallStatus.RESOLVED);
      assertThat(registry.scrape()).doesNotContain("stallwatch_rollout_stalled{");
    }
  }

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

  private static String template(EmbeddedApiServer api) {
    DaemonSet ds = api.client().apps().daemonSets().inNamespace(NS).withName(DS).get();
    var spec = ds.getSpec().getTemplate().getSpec();
    return spec.getContainers().get(0).getImage() + " tolerations=" + spec.getTolerations();
  }

  private static RolloutStall active(EmbeddedApiServer api) {
    return api.client().resources(RolloutStall.class).inNamespace(NS).list().getItems().stream()
        .filter(s -> s.getStatus() != null && s.getStatus().active())
        .findFirst()
        .orElse(null);
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
