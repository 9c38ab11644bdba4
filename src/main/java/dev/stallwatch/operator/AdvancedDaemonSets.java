package dev.stallwatch.operator;

import dev.stallwatch.kube.AdvancedDaemonSet;
import dev.stallwatch.operator.cache.ListProgress;
import dev.stallwatch.rollout.Durations;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.Operator;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches OpenKruise Advanced DaemonSets wherever the cluster serves them. JOSDK takes no
 * controller once an operator runs, so their reconciler ({@link
 * AdvancedDaemonSetRolloutReconciler}) runs in an operator of its own, started once discovery lists
 * {@code daemonsets} in {@value AdvancedDaemonSet#API_VERSION} — at start-up, or, for kruise
 * installed later, at one of the looks that follow every {@link #LOOK_AGAIN} — and, with leader
 * election, only while this replica leads. A cluster without kruise costs one discovery request per
 * look and one INFO line.
 */
final class AdvancedDaemonSets implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdvancedDaemonSets.class);

  /** How often discovery is asked again while the cluster does not serve them. */
  static final Duration LOOK_AGAIN = Duration.ofSeconds(30);

  private final KubernetesClient client;
  private final Supplier<Built> build;
  private final BooleanSupplier leading;
  private final Duration lookAgain;
  private final ScheduledExecutorService looks;
  private Operator running;
  private boolean toldAbsent;
  private boolean closed;

  /** An operator that runs the reconciler (not started), and what its caches hold. */
  record Built(Operator operator, Supplier<ListProgress.Counts> cached) {}

  /**
   * @param build makes the operator that runs the reconciler (not started)
   * @param leading whether this replica reconciles (always, without leader election)
   * @param lookAgain how often discovery is asked again ({@link #LOOK_AGAIN}; tests shorten it)
   */
  AdvancedDaemonSets(
      KubernetesClient client, Supplier<Built> build, BooleanSupplier leading, Duration lookAgain) {
    this.client = client;
    this.build = build;
    this.leading = leading;
    this.lookAgain = lookAgain;
    this.looks =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "stallwatch-advanced-daemonsets");
              t.setDaemon(true);
              return t;
            });
  }

  /** Looks now, then every {@link #LOOK_AGAIN} until the reconciler runs. */
  void start() {
    looks.scheduleWithFixedDelay(this::look, 0, lookAgain.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** True while the Advanced DaemonSet reconciler runs. */
  synchronized boolean watching() {
    return running != null;
  }

  /** True unless the reconciler runs with an informer that is not synced and watching. */
  synchronized boolean healthy() {
    return running == null || running.getRuntimeInfo().allEventSourcesAreHealthy();
  }

  synchronized void look() {
    if (closed || running != null || !leading.getAsBoolean()) {
      return;
    }
    try {
      if (!served()) {
        if (!toldAbsent) {
          log.info(
              "Advanced DaemonSets: the cluster does not serve daemonsets.{} ({}); not watched,"
                  + " looked for again every {}",
              "apps.kruise.io",
              AdvancedDaemonSet.API_VERSION,
              Durations.compact(lookAgain));
          toldAbsent = true;
        }
        return;
      }
      Built built = build.get();
      Operator operator = built.operator();
      try (ListProgress progress = ListProgress.start("Advanced DaemonSets", built.cached())) {
        operator.start();
        progress.synced();
      } catch (RuntimeException e) {
        operator.stop();
        throw e;
      }
      running = operator;
      log.info(
          "Advanced DaemonSets: watching daemonsets.apps.kruise.io ({})",
          AdvancedDaemonSet.API_VERSION);
    } catch (RuntimeException e) {
      // An API server away or a start that failed: the next look tries again.
      log.warn(
          "Advanced DaemonSets: not watched yet, tried again in {}s: {}",
          LOOK_AGAIN.toSeconds(),
          e.getMessage());
    }
  }

  private boolean served() {
    try {
      APIResourceList list = client.getApiResources(AdvancedDaemonSet.API_VERSION);
      return list != null
          && list.getResources().stream().anyMatch(r -> "daemonsets".equals(r.getName()));
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    looks.shutdownNow();
    if (running != null) {
      running.stop();
      running = null;
    }
  }
}
