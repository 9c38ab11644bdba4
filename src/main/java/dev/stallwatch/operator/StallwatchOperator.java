package dev.stallwatch.operator;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * The operator as a whole: a JOSDK {@link Operator} with the {@link DaemonSetRolloutReconciler}
 * registered, configured to work on any API server (no server-side apply), with controller metrics
 * in the given registry and, when enabled, leader election through a Lease.
 */
public final class StallwatchOperator implements AutoCloseable {
  private final Operator operator;

  private StallwatchOperator(Operator operator) {
    this.operator = operator;
  }

  /** Options that only tests and the demo change. */
  public record Timing(Clock clock, UnaryOperator<Duration> toRealDelay, Duration resync) {
    /** Wall clock; a full re-check of every DaemonSet every 10 minutes as a safety net. */
    public static final Timing REAL =
        new Timing(Clock.systemUTC(), UnaryOperator.identity(), Duration.ofMinutes(10));
  }

  /** Builds, registers and starts the operator; returns once the informers have synced. */
  public static StallwatchOperator start(
      KubernetesClient client, OperatorSettings settings, MeterRegistry registry, Timing timing) {
    Operator operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client)
                  .withCloseClientOnStop(false)
                  .withReconciliationTerminationTimeout(Duration.ofSeconds(5))
                  .withUseSSAToPatchPrimaryResource(false)
                  .withSSABasedCreateUpdateMatchForDependentResources(false)
                  .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry));
              if (settings.leaderElection()) {
                o.withLeaderElectionConfiguration(
                    LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(
                            OperatorSettings.LEASE_NAME)
                        .withLeaseNamespace(settings.leaderElectionNamespace())
                        .build());
              }
            });
    StallMetrics metrics = new StallMetrics(registry);
    StallEvents events = new StallEvents(client, timing.clock());
    DaemonSetRolloutReconciler reconciler =
        new DaemonSetRolloutReconciler(
            timing.clock(), timing.toRealDelay(), settings, metrics, events, client);
    operator.register(reconciler, o -> configure(o, settings, timing));
    operator.start();
    return new StallwatchOperator(operator);
  }

  private static void configure(
      ControllerConfigurationOverrider<DaemonSet> o, OperatorSettings settings, Timing timing) {
    if (settings.allNamespaces()) {
      o.watchingAllNamespaces();
    } else {
      o.settingNamespaces(settings.namespaces());
    }
    o.withItemStore(new TransformingItemStore<>(CachePruning::daemonSet))
        .withReconciliationMaxInterval(timing.resync());
  }

  /** True once started and every informer is healthy (synced and watching). */
  public boolean ready() {
    var info = operator.getRuntimeInfo();
    return info.isStarted() && info.allEventSourcesAreHealthy();
  }

  @Override
  public void close() {
    operator.stop();
  }
}
