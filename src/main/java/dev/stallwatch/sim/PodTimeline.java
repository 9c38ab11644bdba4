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
 * admission time ({@code status.startTime}) and the script: init containers one after another, then
 * the main containers; phase Pending until every main container has started; conditions
 * Initialized, Ready, ContainersReady (and the scheduler's PodScheduled, kept) with transition
 * times derived from the same timeline, so recomputing at a later instant changes only what moved.
 */
final class PodTimeline {

  private PodTimeline() {}

  static PodStatus statusAt(Pod pod, KubeletScript script, Instant start, Instant now) {
    String node = pod.getSpec().getNodeName();
    String podRef = pod.getMetadata().getName() + "_" + pod.getMetadata().getNamespace();
    String uid = pod.getMetadata().getUid();
    List<ContainerStatus> initStatuses = new ArrayList<>();
    List<String> incomplete = new ArrayList<>();
    Instant cursor = start;
    for (Container c : Optional.ofNullable(pod.getSpec().getInitContainers()).orElse(List.of())) {
      var subject = new ContainerRun.Subject(c.getName(), c.getImage(), podRef, uid, true);
      if (!incomplete.isEmpty()) {
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
          initialized
              ? ContainerRun.at(subject, script.behavior(node, c.getImage()), cursor, now)
              : ContainerRun.notStarted(subject, "PodInitializing");
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
            ? condition("Initialized", "True", null, null, cursor)
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
