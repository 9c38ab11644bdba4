package dev.stallwatch.operator.decision;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus;
import io.fabric8.kubernetes.api.model.apps.DaemonSetCondition;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code Stalled} condition a DaemonSet carries in {@code status.conditions} while its rollout
 * is stalled — the standard condition kstatus reads on any object ({@code Stalled=True}: the object
 * is {@code Failed}), so Helm's {@code --wait}, Flux, kpt, cli-utils and {@code kubectl wait
 * --for=condition=Stalled} see the stall as the RolloutStall records it. Decided here from the
 * DaemonSet's RolloutStalls, written by {@link ConditionWrites}.
 *
 * <ul>
 *   <li>An Active RolloutStall for the DaemonSet's current revision: {@code status: "True"}, its
 *       cause as reason, the {@code RolloutStalled} Event's message and since when, its {@code
 *       stalledSince} (in whole seconds, as the API stores it) as the transition time.
 *   <li>Otherwise, once one has been resolved: {@code status: "False"} with the resolution as
 *       reason and the {@code RolloutResolved} Event's message, at {@code resolvedAt}. False rather
 *       than removed: kstatus reads {@code Stalled=False} as no failure (then judges the DaemonSet
 *       by its own rules), and the condition says how the last stall ended.
 *   <li>No RolloutStall (never stalled, or its records expired): nothing is written.
 * </ul>
 */
public record StalledCondition(
    String status, String reason, String message, String lastTransitionTime) {

  /** The condition's type. */
  public static final String TYPE = "Stalled";

  /** The field manager of the condition's writes: how the API server records who owns it. */
  public static final String FIELD_MANAGER = "stallwatch";

  /**
   * The condition {@code stalls} (the DaemonSet's RolloutStalls) call for, the DaemonSet's current
   * revision being {@code newRevision}; empty when none is.
   */
  public static Optional<StalledCondition> of(Collection<RolloutStall> stalls, String newRevision) {
    Optional<RolloutStall> active =
        stalls.stream()
            .filter(s -> s.getStatus() != null && s.getStatus().active())
            .filter(s -> s.getSpec() != null && Objects.equals(s.getSpec().revision(), newRevision))
            .findFirst();
    if (active.isPresent()) {
      RolloutStallStatus s = active.get().getStatus();
      return Optional.of(
          new StalledCondition(
              "True",
              s.cause() == null ? "Unknown" : s.cause(),
              StallRecord.stalledMessage(s)
                  + (s.stalledSince() == null ? "" : "; stalled since " + s.stalledSince()),
              s.stalledSinceTime().map(StalledCondition::apiTime).orElse(s.stalledSince())));
    }
    return stalls.stream()
        .filter(
            s -> s.getStatus() != null && RolloutStallStatus.RESOLVED.equals(s.getStatus().phase()))
        .filter(s -> s.getStatus().resolvedAtTime().isPresent())
        .max(Comparator.comparing(s -> s.getStatus().resolvedAtTime().get()))
        .map(
            s -> {
              var c = s.getStatus().conditions();
              boolean described = c != null && !c.isEmpty() && c.get(0).getReason() != null;
              return new StalledCondition(
                  "False",
                  described ? c.get(0).getReason() : "Resolved",
                  described
                      ? c.get(0).getMessage()
                      : "the stall of revision " + s.getSpec().revision() + " is resolved",
                  apiTime(s.getStatus().resolvedAtTime().get()));
            });
  }

  /**
   * {@code time} as the API server stores a condition's {@code lastTransitionTime} (metav1.Time:
   * RFC 3339 in whole seconds, UTC), so that the condition read back compares equal to the one
   * wanted — else every reconcile would read the DaemonSet again and patch it to no effect. (A
   * record whose time is no time keeps its text.)
   */
  public static String apiTime(java.time.Instant time) {
    return java.time.format.DateTimeFormatter.ISO_INSTANT.format(
        time.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
  }

  /** The DaemonSet's {@code Stalled} condition in {@code conditions}, if it has one. */
  public static Optional<DaemonSetCondition> in(List<DaemonSetCondition> conditions) {
    return conditions == null
        ? Optional.empty()
        : conditions.stream().filter(c -> c != null && TYPE.equals(c.getType())).findFirst();
  }

  /** Whether {@code current} already says what this condition says. */
  public boolean isIn(List<DaemonSetCondition> current) {
    return in(current)
        .filter(c -> Objects.equals(c.getStatus(), status))
        .filter(c -> Objects.equals(c.getReason(), reason))
        .filter(c -> Objects.equals(c.getMessage(), message))
        .filter(c -> Objects.equals(c.getLastTransitionTime(), lastTransitionTime))
        .isPresent();
  }

  /** As the API writes it. */
  public DaemonSetCondition toCondition() {
    DaemonSetCondition c = new DaemonSetCondition();
    c.setType(TYPE);
    c.setStatus(status);
    c.setReason(reason);
    c.setMessage(message);
    c.setLastTransitionTime(lastTransitionTime);
    return c;
  }
}
