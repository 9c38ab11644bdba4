package dev.stallwatch.operator;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.sim.Scenarios;
import dev.stallwatch.sim.SimClock;
import dev.stallwatch.sim.SimulatedCluster;
import dev.stallwatch.testcluster.TestApiServer;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * One simulator scenario on the embedded cluster, on a virtual clock, with the real operator
 * watching: the test moves time in steps and reads what the operator wrote.
 */
final class SimulatedRun implements AutoCloseable {
  static final String NS = Scenarios.NAMESPACE;
  static final String DS = Scenarios.DAEMON_SET;
  static final Duration STEP = Duration.ofSeconds(5);

  final TestApiServer api;
  final SimulatedCluster sim;
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final VirtualTime time = new VirtualTime(NS, DS);
  private final StallwatchOperator operator;

  private SimulatedRun(String scenario, OperatorSettings settings) {
    SimClock clock = time.clock;
    api = new TestApiServer(clock);
    sim = SimulatedCluster.install(api.client(), Scenarios.named(scenario), clock);
    // Virtual time moves only when the test advances it; the operator re-checks often.
    operator =
        StallwatchOperator.start(
            api.newClient(), settings, registry, time.timing(), time.counter::wrap);
  }

  static SimulatedRun start(String scenario, OperatorSettings settings) {
    return new SimulatedRun(scenario, settings);
  }

  KubernetesClient client() {
    return api.client();
  }

  /**
   * Advances virtual time and ticks the simulator, one STEP at a time, until {@code done}; after
   * each step it waits until the operator has reconciled the DaemonSet at the new time.
   */
  boolean drive(BooleanSupplier done, Duration limit) {
    Instant end = sim.clock().instant().plus(limit);
    while (!sim.clock().instant().isAfter(end)) {
      if (done.getAsBoolean()) {
        return true;
      }
      sim.clock().advance(STEP);
      sim.tick();
      time.settle();
    }
    return done.getAsBoolean();
  }

  /** Lets {@code duration} of virtual time pass. */
  void pass(Duration duration) {
    drive(() -> false, duration);
  }

  Optional<RolloutStall> active() {
    return stalls().stream()
        .filter(s -> s.getStatus() != null && s.getStatus().active())
        .findFirst();
  }

  List<RolloutStall> stalls() {
    return api.client().resources(RolloutStall.class).inNamespace(NS).list().getItems();
  }

  RolloutStall stall(String name) {
    return api.client().resources(RolloutStall.class).inNamespace(NS).withName(name).get();
  }

  List<Event> events(String reason) {
    return api.client().v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .toList();
  }

  @Override
  public void close() {
    try {
      operator.close();
    } finally {
      try {
        sim.close();
      } finally {
        api.close();
      }
    }
  }
}
