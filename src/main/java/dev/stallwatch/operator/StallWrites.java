package dev.stallwatch.operator;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.operator.StallPlan.Change;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Performs a {@link StallPlan}: creates, updates the status of, and deletes RolloutStalls with
 * plain create/update/delete (no server-side apply), then emits the Event and counts the stall of
 * each transition. Writes go through the informer's recent-update cache so the next reconcile reads
 * its own writes.
 */
final class StallWrites {
  private static final Logger log = LoggerFactory.getLogger(StallWrites.class);

  private final KubernetesClient client;
  private final StallEvents events;
  private final StallMetrics metrics;

  StallWrites(KubernetesClient client, StallEvents events, StallMetrics metrics) {
    this.client = client;
    this.events = events;
    this.metrics = metrics;
  }

  void apply(DaemonSet ds, StallPlan plan, InformerEventSource<RolloutStall, DaemonSet> cache) {
    for (Change change : plan.changes()) {
      RolloutStall stall = change.stall();
      ResourceID id = ResourceID.fromResource(stall);
      switch (change.kind()) {
        case CREATE -> {
          RolloutStall body = new RolloutStall();
          body.setMetadata(stall.getMetadata());
          body.setSpec(stall.getSpec());
          RolloutStall created = client.resource(body).create();
          // Until the status lands the stall exists without one, and its ADD event may reach the
          // informer first. A reconcile must never read that half-written stall: it takes it for
          // a stall that starts over (new condition time, a second Stalled event) and, status
          // writes carrying no resourceVersion check on some servers, overwrites the real status.
          // So the cache holds the bare object, then moves on to the version with its status.
          cache.handleRecentResourceCreate(id, created);
          created.setStatus(stall.getStatus());
          RolloutStall written = client.resource(created).updateStatus();
          cache.handleRecentResourceUpdate(id, written, created);
          log.info("created RolloutStall {}/{}", id.getNamespace().orElse(""), id.getName());
        }
        case UPDATE_STATUS -> {
          RolloutStall written = client.resource(stall).updateStatus();
          cache.handleRecentResourceUpdate(id, written, stall);
        }
        case DELETE -> {
          client.resource(stall).delete();
          log.info(
              "deleted RolloutStall {}/{} (resolved longer than the TTL)",
              id.getNamespace().orElse(""),
              id.getName());
        }
      }
      announce(ds, change);
    }
  }

  void delete(RolloutStall stall) {
    client.resource(stall).delete();
  }

  private void announce(DaemonSet ds, Change change) {
    var status = change.stall().getStatus();
    switch (change.transition()) {
      case STALLED -> {
        events.warning(ds, StallEvents.STALLED, StallEvents.stalledMessage(status));
        metrics.countStall(
            ds.getMetadata().getNamespace(), ds.getMetadata().getName(), status.cause());
      }
      case RESOLVED ->
          // The condition's message: the resolution, and who rolled back when that is known.
          events.normal(
              ds,
              StallEvents.RESOLVED,
              status.conditions().isEmpty()
                  ? change
                      .resolution()
                      .describe(ds.getMetadata().getName(), change.stall().getSpec().revision())
                  : status.conditions().get(0).getMessage());
      default -> {}
    }
  }
}
