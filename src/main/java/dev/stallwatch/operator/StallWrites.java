package dev.stallwatch.operator;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.operator.StallPlan.Change;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
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
  private final RoutingLabels routing;

  StallWrites(KubernetesClient client, StallEvents events, StallMetrics metrics) {
    this(client, events, metrics, RoutingLabels.NONE);
  }

  StallWrites(
      KubernetesClient client, StallEvents events, StallMetrics metrics, RoutingLabels routing) {
    this.client = client;
    this.events = events;
    this.metrics = metrics;
    this.routing = routing;
  }

  /**
   * The planned metadata plus the DaemonSet's allowlisted labels as they are now (a RolloutStall's
   * labels are written once, at its creation); the planner's own labels win.
   */
  static io.fabric8.kubernetes.api.model.ObjectMeta withRoutingLabels(
      io.fabric8.kubernetes.api.model.ObjectMeta planned,
      java.util.Map<String, String> daemonSetLabels,
      RoutingLabels routing) {
    var copied = routing.copied(daemonSetLabels);
    if (copied.isEmpty()) {
      return planned;
    }
    var labels = new java.util.LinkedHashMap<>(copied);
    if (planned.getLabels() != null) {
      labels.putAll(planned.getLabels());
    }
    return new io.fabric8.kubernetes.api.model.ObjectMetaBuilder(planned)
        .withLabels(labels)
        .build();
  }

  /**
   * Performs the plan's changes in order. When the write of a stall that starts ({@link
   * StallTransition#STALLED}) fails with its outcome unknown (its answer lost, the read-back too:
   * the status may have landed), {@code unannounced} hears the stall's name before the failure is
   * thrown, so that the next reconcile can still announce it ({@link StallPlan.Kind#ANNOUNCE}). A
   * conflict is no such case: the reconcile that met it may have read a stale copy of a stall
   * already written and announced.
   */
  void apply(
      DaemonSet ds,
      StallPlan plan,
      InformerEventSource<RolloutStall, ?> cache,
      java.util.function.Consumer<String> unannounced) {
    for (Change change : plan.changes()) {
      try {
        write(ds, change, cache);
      } catch (KubernetesClientException e) {
        // A write whose answer was lost and could not be read back may have landed: its stall
        // may be Active without its Event. A conflict, or a read-back without it, landed nothing.
        if (change.transition() == StallTransition.STALLED && answerLost(e)) {
          unannounced.accept(change.stall().getMetadata().getName());
        }
        throw e;
      }
      announce(ds, change, plan.cause());
    }
  }

  private void write(DaemonSet ds, Change change, InformerEventSource<RolloutStall, ?> cache) {
    RolloutStall stall = change.stall();
    ResourceID id = ResourceID.fromResource(stall);
    switch (change.kind()) {
      case CREATE -> {
        RolloutStall body = new RolloutStall();
        body.setMetadata(
            withRoutingLabels(stall.getMetadata(), ds.getMetadata().getLabels(), routing));
        body.setSpec(stall.getSpec());
        RolloutStall created = createdOrFound(body);
        // Until the status lands the stall exists without one, and its ADD event may reach the
        // informer first. A reconcile must never read that half-written stall: it takes it for
        // a stall that starts over (new condition time, a second Stalled event) and, status
        // writes carrying no resourceVersion check on some servers, overwrites the real status.
        // So the cache holds the bare object, then moves on to the version with its status.
        cache.handleRecentResourceCreate(id, created);
        created.setStatus(stall.getStatus());
        RolloutStall written = statusWritten(created);
        cache.handleRecentResourceUpdate(id, written, created);
        log.info("created RolloutStall {}/{}", id.getNamespace().orElse(""), id.getName());
      }
      case UPDATE_STATUS -> {
        if (StallRecord.vandalised(change.previous())) {
          var was = change.previous();
          log.warn(
              "RolloutStall {}/{}: status edited by hand (phase {}, stalledSince {},"
                  + " stalledNodeCount {}); rewritten from the current verdict",
              id.getNamespace().orElse(""),
              id.getName(),
              quoted(was.phase()),
              quoted(was.stalledSince()),
              was.stalledNodeCount());
        }
        RolloutStall written = statusWritten(stall);
        cache.handleRecentResourceUpdate(id, written, stall);
      }
      case DELETE -> {
        client.resource(stall).delete();
        log.info(
            "deleted RolloutStall {}/{} (resolved longer than the TTL)",
            id.getNamespace().orElse(""),
            id.getName());
      }
      case ANNOUNCE ->
          log.info(
              "RolloutStall {}/{}: its status write's answer was lost; announcing it now",
              id.getNamespace().orElse(""),
              id.getName());
    }
  }

  /**
   * Creates {@code body}; when the answer is 409 AlreadyExists, the object this operator would
   * create (same spec) may be there from an earlier try of this very request whose answer was lost
   * (a GOAWAY, a reset connection: the client retried the POST): then that object is the created
   * one. Anything else stays a conflict.
   */
  private RolloutStall createdOrFound(RolloutStall body) {
    try {
      return client.resource(body).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      RolloutStall there = client.resource(body).get();
      if (there != null
          && there.getStatus() == null
          && java.util.Objects.equals(there.getSpec(), body.getSpec())) {
        log.debug("RolloutStall {} was created by an earlier try of the same request", name(body));
        return there;
      }
      throw e;
    }
  }

  /**
   * Writes {@code stall}'s status; when the answer is 409, or lost (a GOAWAY, a connection gone
   * with the request in flight), the server may hold that status from this very request (the client
   * retried the PUT with a resourceVersion the first try had moved on, or the answer never came):
   * read back, it counts as written when the server holds what this operator wrote, and its Event
   * is still due. Without that, the next reconcile finds the status in place and the Event is lost.
   */
  private RolloutStall statusWritten(RolloutStall stall) {
    try {
      return client.resource(stall).updateStatus();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409 && !answerLost(e)) {
        throw e;
      }
      RolloutStall there = client.resource(stall).get();
      if (there != null && sameStatus(there.getStatus(), stall.getStatus())) {
        log.debug("RolloutStall {}: status written by an earlier try", name(stall));
        return there;
      }
      // Read back, it is not there: not written, whatever became of the answer (a conflict).
      throw e.getCode() == 409
          ? e
          : new KubernetesClientException(
              "status of RolloutStall "
                  + name(stall)
                  + " not written (read back): "
                  + e.getMessage(),
              409,
              null);
    }
  }

  /**
   * Whether the request may have been done without its answer arriving: a GOAWAY or a connection
   * lost with the request in flight (the server may have applied it).
   */
  static boolean answerLost(KubernetesClientException e) {
    return ApiTrouble.of(e)
        .map(
            t ->
                t.reason() == ApiTrouble.Reason.goaway
                    || t.reason() == ApiTrouble.Reason.unreachable)
        .orElse(false);
  }

  /** What tells one status write of the operator from another: phase, since, node, cause. */
  static boolean sameStatus(RolloutStallStatus a, RolloutStallStatus b) {
    return a != null
        && b != null
        && java.util.Objects.equals(a.phase(), b.phase())
        && java.util.Objects.equals(a.stalledSince(), b.stalledSince())
        && java.util.Objects.equals(a.node(), b.node())
        && java.util.Objects.equals(a.cause(), b.cause())
        && java.util.Objects.equals(a.lastObserved(), b.lastObserved());
  }

  private static String name(RolloutStall s) {
    return s.getMetadata().getNamespace() + "/" + s.getMetadata().getName();
  }

  private static String quoted(String s) {
    return s == null ? "none" : "\"" + s + "\"";
  }

  void delete(RolloutStall stall) {
    client.resource(stall).delete();
  }

  private void announce(DaemonSet ds, Change change, dev.stallwatch.rollout.Cause cause) {
    var status = change.stall().getStatus();
    switch (change.transition()) {
      case STALLED -> {
        events.warning(ds, StallEvents.STALLED, StallEvents.stalledMessage(status));
        metrics.countStall(ds.getMetadata().getNamespace(), ds.getMetadata().getName(), cause);
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
