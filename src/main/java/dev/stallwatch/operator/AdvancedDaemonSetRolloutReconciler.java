package dev.stallwatch.operator;

import dev.stallwatch.kube.AdvancedDaemonSet;
import dev.stallwatch.operator.cache.Watched;
import dev.stallwatch.operator.effects.StallEvents;
import dev.stallwatch.operator.effects.StallMetrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import java.time.Clock;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * The reconciler of OpenKruise Advanced DaemonSets ({@code daemonsets.apps.kruise.io}, read at
 * v1beta1), run where the cluster serves them ({@link AdvancedDaemonSets}).
 */
@ControllerConfiguration(
    name = AdvancedDaemonSetRolloutReconciler.NAME,
    generationAwareEventProcessing = false,
    triggerReconcilerOnAllEvents = true)
public final class AdvancedDaemonSetRolloutReconciler extends RolloutReconciler<AdvancedDaemonSet> {
  public static final String NAME = "advanced-daemonset-rollout";

  public AdvancedDaemonSetRolloutReconciler(
      Clock clock,
      UnaryOperator<Duration> toRealDelay,
      OperatorSettings config,
      StallMetrics metrics,
      StallEvents events,
      KubernetesClient client,
      KubernetesClient listing,
      ApiReachability reachability) {
    super(
        Watched.ADVANCED_DAEMON_SETS,
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
