package dev.stallwatch.operator.effects;

import dev.stallwatch.operator.decision.EventReason;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the operator's Kubernetes Events on a DaemonSet ({@link EventReason}), the one class that
 * does. The decider emits on transitions only, so a re-reconcile repeats nothing. An Event that
 * cannot be written is logged, never fatal.
 */
public final class StallEvents {
  static final String COMPONENT = "stallwatch";

  private static final Logger log = LoggerFactory.getLogger(StallEvents.class);
  private final KubernetesClient client;
  private final Clock clock;

  public StallEvents(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** Emits an Event of {@code reason} on {@code ds}. */
  void emit(DaemonSet ds, EventReason why, String message) {
    String type = why.warning() ? "Warning" : "Normal";
    String reason = why.reason();
    var meta = ds.getMetadata();
    String now = clock.instant().toString();
    var event =
        new EventBuilder()
            .withNewMetadata()
            .withNamespace(meta.getNamespace())
            .withName(meta.getName() + "." + UUID.randomUUID().toString().substring(0, 13))
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder()
                    .withApiVersion(ds.getApiVersion() == null ? "apps/v1" : ds.getApiVersion())
                    .withKind("DaemonSet")
                    .withNamespace(meta.getNamespace())
                    .withName(meta.getName())
                    .withUid(meta.getUid())
                    .withResourceVersion(meta.getResourceVersion())
                    .build())
            .withType(type)
            .withReason(reason)
            .withMessage(message.length() > 1024 ? message.substring(0, 1024) : message)
            .withFirstTimestamp(now)
            .withLastTimestamp(now)
            .withCount(1)
            .withNewSource()
            .withComponent(COMPONENT)
            .endSource()
            .withReportingComponent(COMPONENT)
            .build();
    try {
      create(event);
      log.info(
          "{} {} on DaemonSet {}/{}: {}",
          type,
          reason,
          meta.getNamespace(),
          meta.getName(),
          message);
    } catch (KubernetesClientException e) {
      log.warn(
          "could not write {} event on DaemonSet {}/{}: {}",
          reason,
          meta.getNamespace(),
          meta.getName(),
          e.getMessage());
    }
  }

  /** How often an Event whose answer was lost (a GOAWAY, a dropped connection) is sent at most. */
  static final int TRIES = 3;

  /**
   * Creates {@code event}, again when the answer was lost. The name is this Event's own (random):
   * 409 AlreadyExists means an earlier try of this very request made it.
   */
  private void create(io.fabric8.kubernetes.api.model.Event event) {
    for (int tried = 1; ; tried++) {
      try {
        client
            .v1()
            .events()
            .inNamespace(event.getMetadata().getNamespace())
            .resource(event)
            .create();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 409) {
          return;
        }
        if (tried >= TRIES || !StallWrites.answerLost(e)) {
          throw e;
        }
      }
    }
  }
}
