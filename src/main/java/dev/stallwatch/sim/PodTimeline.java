package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The status a kubelet reports for an admitted pod at {@code now}, as a pure function of the
 * admission time ({@code status.startTime}), the instant its volumes were mounted and the script:
 * nothing starts before the volumes are mounted (containers wait {@code ContainerCreating}, or
 * {@code PodInitializing} with init containers); then init containers one after another, then the
 * main containers; phase Pending until every main container has started; conditions Initialized,
 * Ready, ContainersReady (and the scheduler's PodScheduled, kept) with transition times derived
 * from the same timeline, so recomputing at a later instant changes only what moved.
 */
final class PodTimeline {

  private PodTimeline() {}

  /** The status of a pod whose volumes were mounted at admission. */
  static PodStatus statusAt(Pod pod, KubeletScript script, Instant start, Instant now) {
    return statusAt(pod, script, start, start, now);
  }

  /**
   * @param mounted when the kubelet mounted the pod's volumes (no earlier than {@code start}); null
   *     while it cannot (a ConfigMap or Secret that does not exist): no container starts
   */
  static PodStatus statusAt(
      Pod pod, KubeletScript script, Instant start, Instant mounted, Instant now) {
    String node = pod.getSpec().getNodeName();
    String podRef = pod.getMetadata().getName() + "_" + pod.getMetadata().getNamespace();
    String uid = pod.getMetadata().getUid();
    List<ContainerStatus> initStatuses = new ArrayList<>();
    List<String> incomplete = new ArrayList<>();
    List<Container> inits =
        Optional.ofNullable(pod.getSpec().getInitContainers()).orElse(List.of());
    Instant cursor = mounted == null ? start : mounted;
    for (Container c : inits) {
      var subject = new ContainerRun.Subject(c.getName(), c.getImage(), podRef, uid, true);
      if (mounted == null || !incomplete.isEmpty()) {
        initStatuses.add(ContainerRun.notStarted(subject, "PodInitializing").status());
        incomplete.add(c.getName());
        continue;
      }
      ContainerRun run = ContainerRun.at(subject, script.behavior(node, c.getImage()), cursor, now);
      initStatuses.add(run.status());
      if (run.completedAt() == null) {
        incomplete.add(c.getName());
      } else {
        cursor = run.completedAt();
      }
    }
    boolean initialized = incomplete.isEmpty();
    List<ContainerStatus> statuses = new ArrayList<>();
    List<String> unready = new ArrayList<>();
    boolean allStarted = initialized;
    Instant readyAt = cursor;
    for (Container c : pod.getSpec().getContainers()) {
      var subject = new ContainerRun.Subject(c.getName(), c.getImage(), podRef, uid, false);
      ContainerRun run =
          !initialized
              ? ContainerRun.notStarted(subject, "PodInitializing")
              : mounted == null
                  ? ContainerRun.notStarted(subject, "ContainerCreating")
                  : ContainerRun.at(subject, script.behavior(node, c.getImage()), cursor, now);
      statuses.add(run.status());
      allStarted &= run.started();
      if (run.readyAt() == null) {
        unready.add(c.getName());
      } else if (run.readyAt().isAfter(readyAt)) {
        readyAt = run.readyAt();
      }
    }
    PodStatus status = new PodStatus();
    status.setPhase(allStarted ? "Running" : "Pending");
    status.setStartTime(start.toString());
    status.setHostIP(pod.getStatus() == null ? null : pod.getStatus().getHostIP());
    status.setInitContainerStatuses(initStatuses.isEmpty() ? null : initStatuses);
    status.setContainerStatuses(statuses);
    List<PodCondition> conditions = new ArrayList<>();
    conditions.add(
        initialized
            ? condition("Initialized", "True", null, null, inits.isEmpty() ? start : cursor)
            : condition(
                "Initialized",
                "False",
                "ContainersNotInitialized",
                "containers with incomplete status: " + bracket(incomplete),
                start));
    PodCondition ready =
        unready.isEmpty()
            ? condition("Ready", "True", null, null, readyAt)
            : condition(
                "Ready",
                "False",
                "ContainersNotReady",
                "containers with unready status: " + bracket(unready),
                start);
    conditions.add(ready);
    conditions.add(
        new PodCondition(
            null,
            ready.getLastTransitionTime(),
            ready.getMessage(),
            null,
            ready.getReason(),
            ready.getStatus(),
            "ContainersReady"));
    PodCondition scheduled = PodConditions.condition(pod.getStatus(), "PodScheduled");
    if (scheduled != null) {
      conditions.add(scheduled);
    }
    status.setConditions(conditions);
    return status;
  }

  private static PodCondition condition(
      String type, String status, String reason, String message, Instant since) {
    return new PodCondition(null, since.toString(), message, null, reason, status, type);
  }

  private static String bracket(List<String> names) {
    return "[" + String.join(" ", names) + "]";
  }
}
