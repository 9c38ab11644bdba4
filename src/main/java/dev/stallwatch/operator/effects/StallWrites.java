package dev.stallwatch.operator.effects;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.kube.Keys;
import dev.stallwatch.operator.decision.RoutingLabels;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes RolloutStalls with plain create/update/delete (no server-side apply), each through the
 * informer's recent-update cache so the next reconcile reads its own writes; a write whose answer
 * was lost is read back before it counts as failed. Decides nothing: {@link EffectRunner} calls it
 * for each write of a decision.
 */
public final class StallWrites {
  private static final Logger log = LoggerFactory.getLogger(StallWrites.class);

  private final KubernetesClient client;
  private final RoutingLabels routing;

  public StallWrites(KubernetesClient client, RoutingLabels routing) {
    this.client = client;
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
   * Creates {@code stall} (its planned metadata with the DaemonSet's routing labels, its spec),
   * then writes its status.
   */
  void create(DaemonSet ds, RolloutStall stall, InformerEventSource<RolloutStall, ?> cache) {
    ResourceID id = ResourceID.fromResource(stall);
    RolloutStall body = new RolloutStall();
    body.setMetadata(withRoutingLabels(stall.getMetadata(), ds.getMetadata().getLabels(), routing));
    body.setSpec(stall.getSpec());
    RolloutStall created = createdOrFound(body);
    // Until the status lands the stall exists without one, and its ADD event may reach the
    // informer first. A reconcile must never read that half-written stall: it takes it for a
    // stall that starts over (new condition time, a second Stalled event) and, status writes
    // carrying no resourceVersion check on some servers, overwrites the real status. So the cache
    // holds the bare object, then moves on to the version with its status.
    cache.handleRecentResourceCreate(id, created);
    created.setStatus(stall.getStatus());
    RolloutStall written = statusWritten(created);
    cache.handleRecentResourceUpdate(id, written, created);
    log.info("created RolloutStall {}", Keys.of(stall));
  }

  /** Writes {@code stall}'s status. */
  void writeStatus(RolloutStall stall, InformerEventSource<RolloutStall, ?> cache) {
    RolloutStall written = statusWritten(stall);
    cache.handleRecentResourceUpdate(ResourceID.fromResource(stall), written, stall);
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
        log.debug(
            "RolloutStall {} was created by an earlier try of the same request", Keys.of(body));
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
        log.debug("RolloutStall {}: status written by an earlier try", Keys.of(stall));
        return there;
      }
      // Read back, it is not there: not written, whatever became of the answer (a conflict).
      throw e.getCode() == 409
          ? e
          : new KubernetesClientException(
              "status of RolloutStall "
                  + Keys.of(stall)
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

  void delete(RolloutStall stall) {
    client.resource(stall).delete();
  }
}
