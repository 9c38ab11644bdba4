package dev.stallwatch.rollout;

import java.time.Instant;

/**
 * What the analyzer reads of a Kubernetes Event about the DaemonSet: the controller reports pods it
 * could not create (quota, an admission webhook, Pod Security) only this way.
 *
 * @param type {@code Normal} or {@code Warning}
 * @param last when it last happened ({@code lastTimestamp}, else {@code eventTime}, else creation)
 * @param involvedName the name of the object it is about
 */
public record EventView(
    String type,
    String reason,
    String message,
    Instant last,
    String involvedKind,
    String involvedName,
    String involvedUid) {
  public EventView {
    type = type == null ? "" : type;
    reason = reason == null ? "" : reason;
    message = message == null ? "" : message;
    involvedKind = involvedKind == null ? "" : involvedKind;
    involvedName = involvedName == null ? "" : involvedName;
    involvedUid = involvedUid == null ? "" : involvedUid;
  }

  /** True for the DaemonSet controller's Warning that it could not create a pod. */
  public boolean failedCreate() {
    return "Warning".equals(type) && "FailedCreate".equals(reason);
  }
}
