package dev.stallwatch.operator;

import dev.stallwatch.operator.cache.Watched;
import dev.stallwatch.operator.effects.StallEvents;
import dev.stallwatch.operator.effects.StallMetrics;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import java.time.Clock;
import java.time.Duration;
import java.util.function.UnaryOperator;

/** The reconciler of {@code apps/v1} DaemonSets ({@link RolloutReconciler}). */
@ControllerConfiguration(
    name = DaemonSetRolloutReconciler.NAME,
    generationAwareEventProcessing = false,
    triggerReconcilerOnAllEvents = true)
public final class DaemonSetRolloutReconciler extends RolloutReconciler<DaemonSet> {
  public static final String NAME = "daemonset-rollout";

  /**
   * @param toRealDelay turns a delay on {@code clock} into a wall-clock delay (identity unless the
   *     clock runs faster than real time, as the demo's does)
   * @param listing the client the pod, node and ControllerRevision caches read through ({@link
   *     ListingClient})
   */
  public DaemonSetRolloutReconciler(
      Clock clock,
      UnaryOperator<Duration> toRealDelay,
      OperatorSettings config,
      StallMetrics metrics,
      StallEvents events,
      KubernetesClient client,
      KubernetesClient listing,
      ApiReachability reachability) {
    super(
        Watched.DAEMON_SETS,
        clock,
        toRealDelay,
        config,
        metrics,
        events,
        client,
        listing,
        reachability);
  }
}
