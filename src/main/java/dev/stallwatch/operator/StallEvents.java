package dev.stallwatch.operator;

import dev.stallwatch.crd.RolloutStallStatus;
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
 * Writes Kubernetes Events on a DaemonSet: {@code RolloutStalled} (Warning), {@code
 * RolloutResolved} (Normal) and {@code InvalidDaemonSet} (Warning). Callers emit on transitions
 * only, so a re-reconcile repeats nothing. An Event that cannot be written is logged, never fatal.
 */
public final class StallEvents {
  public static final String STALLED = "RolloutStalled";
  public static final String RESOLVED = "RolloutResolved";
  public static final String INVALID = "InvalidDaemonSet";
  public static final String ROLLED_BACK = "RolloutRolledBack";
  public static final String ROLLBACK_REFUSED = "RolloutRollbackRefused";

  /** A due auto-rollback not done because the suspect is not the new revision. */
  public static final String ROLLBACK_WITHHELD = "RollbackWithheld";

  static final String COMPONENT = "stallwatch";

  private static final Logger log = LoggerFactory.getLogger(StallEvents.class);
  private final KubernetesClient client;
  private final Clock clock;

  public StallEvents(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /** The message of a RolloutStalled event: node, cause, revisions. */
  public static String stalledMessage(RolloutStallStatus s) {
    return "Rollout stalled on node "
        + s.node()
        + (s.stalledNodeCount() != null && s.stalledNodeCount() > 1
            ? " (+" + (s.stalledNodeCount() - 1) + " more)"
            : "")
        + ": "
        + s.cause()
        + (s.reason() == null ? "" : " (" + s.reason() + ")")
        + suspect(s)
        + "; old revision "
        + revision(s.oldRevision())
        + ", new revision "
        + revision(s.newRevision())
        + "; "
        + s.ready()
        + " ready";
  }

  /** {@code ; suspect NewRevision: rollback would help, because …}. */
  private static String suspect(RolloutStallStatus s) {
    if (s.suspect() == null) {
      return "";
    }
    String helps =
        switch (s.suspect()) {
          case "NewRevision" -> "rollback would help";
          case "Node" -> "rollback would not help";
          default -> "whether rollback would help is unknown";
        };
    return "; suspect "
        + s.suspect()
        + ": "
        + helps
        + (s.suspectReason() == null ? "" : ", because " + s.suspectReason());
  }

  private static String revision(RolloutStallStatus.Revision r) {
    if (r == null) {
      return "-";
    }
    return r.hash() + (r.image() == null || r.image().isEmpty() ? "" : " [" + r.image() + "]");
  }

  /** Emits a Warning event. */
  public void warning(DaemonSet ds, String reason, String message) {
    emit(ds, "Warning", reason, message);
  }

  /** Emits a Normal event. */
  public void normal(DaemonSet ds, String reason, String message) {
    emit(ds, "Normal", reason, message);
  }

  private void emit(DaemonSet ds, String type, String reason, String message) {
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
