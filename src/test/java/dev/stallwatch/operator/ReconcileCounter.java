package dev.stallwatch.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.processing.Controller;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * JOSDK's metrics, passed through unchanged, counting per DaemonSet the events the controller
 * received for it and the reconciles that ran (the operator's own metrics are configured without
 * per-resource series). Install with {@code StallwatchOperator.start(..., counter::wrap)}.
 */
final class ReconcileCounter {
  private final Map<ResourceID, AtomicLong> events = new ConcurrentHashMap<>();
  private final Map<ResourceID, AtomicLong> reconciles = new ConcurrentHashMap<>();
  private final Map<ResourceID, AtomicLong> finished = new ConcurrentHashMap<>();

  /** Events handed to the controller for {@code id}, from any source (counted as they arrive). */
  long events(ResourceID id) {
    return count(events, id);
  }

  /** Reconciles of {@code id} that started. */
  long reconciles(ResourceID id) {
    return count(reconciles, id);
  }

  /** Reconciles of {@code id} that ended (whatever their outcome, writes included). */
  long finished(ResourceID id) {
    return count(finished, id);
  }

  /** Events and reconciles of every DaemonSet: changes while anything is still happening. */
  long total() {
    return sum(events) + sum(reconciles);
  }

  Metrics wrap(Metrics delegate) {
    return new Metrics() {
      @Override
      public void controllerRegistered(Controller<? extends HasMetadata> controller) {
        delegate.controllerRegistered(controller);
      }

      @Override
      public void receivedEvent(Event event, Map<String, Object> metadata) {
        increment(events, event.getRelatedCustomResourceID());
        delegate.receivedEvent(event, metadata);
      }

      @Override
      public void reconcileCustomResource(
          HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
        delegate.reconcileCustomResource(resource, retryInfo, metadata);
      }

      @Override
      public void failedReconciliation(
          HasMetadata resource, Exception exception, Map<String, Object> metadata) {
        delegate.failedReconciliation(resource, exception, metadata);
      }

      @Override
      public void reconciliationExecutionStarted(
          HasMetadata resource, Map<String, Object> metadata) {
        increment(reconciles, ResourceID.fromResource(resource));
        delegate.reconciliationExecutionStarted(resource, metadata);
      }

      @Override
      public void reconciliationExecutionFinished(
          HasMetadata resource, Map<String, Object> metadata) {
        increment(finished, ResourceID.fromResource(resource));
        delegate.reconciliationExecutionFinished(resource, metadata);
      }

      @Override
      public void cleanupDoneFor(ResourceID resourceID, Map<String, Object> metadata) {
        delegate.cleanupDoneFor(resourceID, metadata);
      }

      @Override
      public void finishedReconciliation(HasMetadata resource, Map<String, Object> metadata) {
        delegate.finishedReconciliation(resource, metadata);
      }

      @Override
      public <T> T timeControllerExecution(ControllerExecution<T> execution) throws Exception {
        return delegate.timeControllerExecution(execution);
      }

      @Override
      public <T extends Map<?, ?>> T monitorSizeOf(T map, String name) {
        return delegate.monitorSizeOf(map, name);
      }
    };
  }

  private static void increment(Map<ResourceID, AtomicLong> counts, ResourceID id) {
    counts.computeIfAbsent(id, k -> new AtomicLong()).incrementAndGet();
  }

  private static long count(Map<ResourceID, AtomicLong> counts, ResourceID id) {
    AtomicLong n = counts.get(id);
    return n == null ? 0 : n.get();
  }

  private static long sum(Map<ResourceID, AtomicLong> counts) {
    return counts.values().stream().mapToLong(AtomicLong::get).sum();
  }

  /** Waits until {@code id} has been reconciled {@code n} more times from now on. */
  void awaitMore(ResourceID id, int n, java.time.Duration atMost) {
    long from = reconciles(id);
    org.awaitility.Awaitility.await(
            "the operator looks at " + id.getName() + " " + n + " more time(s)")
        .atMost(atMost)
        .until(() -> reconciles(id) >= from + n);
  }
}
