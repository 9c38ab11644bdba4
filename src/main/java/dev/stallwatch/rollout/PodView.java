package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the analyzer reads of a pod.
 *
 * @param nodeName {@code spec.nodeName}: empty until the pod is bound
 * @param targetNode the node the pod is meant for: {@code spec.nodeName}, else the node pinned by
 *     its required node affinity ({@code matchFields metadata.name In [node]}), as upstream's
 *     {@code GetTargetNodeName}; empty when neither
 * @param owner the controller owner reference, or null
 */
public record PodView(
    String namespace,
    String name,
    String uid,
    Map<String, String> labels,
    OwnerRef owner,
    String nodeName,
    String targetNode,
    Instant created,
    Instant deletionTimestamp,
    String phase,
    String reason,
    String message,
    List<Condition> conditions,
    List<String> initContainerNames,
    List<String> images,
    List<ContainerStatus> initContainerStatuses,
    List<ContainerStatus> containerStatuses) {

  public PodView {
    namespace = namespace == null ? "" : namespace;
    name = name == null ? "" : name;
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    nodeName = nodeName == null ? "" : nodeName;
    targetNode = targetNode == null ? "" : targetNode;
    phase = phase == null ? "" : phase;
    reason = reason == null ? "" : reason;
    message = message == null ? "" : message;
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
    initContainerNames = initContainerNames == null ? List.of() : List.copyOf(initContainerNames);
    images = images == null ? List.of() : List.copyOf(images);
    initContainerStatuses =
        initContainerStatuses == null ? List.of() : List.copyOf(initContainerStatuses);
    containerStatuses = containerStatuses == null ? List.of() : List.copyOf(containerStatuses);
  }

  /** The condition of the given type, if the pod reports it. */
  public Optional<Condition> condition(String type) {
    for (Condition c : conditions) { // a loop: read for every pod of every analysis
      if (type.equals(c.type())) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /** True while the pod is being deleted. */
  public boolean terminating() {
    return deletionTimestamp != null;
  }

  /** A pod condition. */
  public record Condition(
      String type, String status, String reason, String message, Instant lastTransition) {
    public Condition {
      type = type == null ? "" : type;
      status = status == null ? "" : status;
      reason = reason == null ? "" : reason;
      message = message == null ? "" : message;
    }
  }

  /**
   * A container's status. Exactly one of the state groups is normally set: {@code waiting*}, {@code
   * running}, or {@code terminated*}. {@code terminatedSignal} is 0 unless a signal ended it.
   */
  public record ContainerStatus(
      String name,
      String image,
      boolean ready,
      int restartCount,
      String waitingReason,
      String waitingMessage,
      boolean running,
      String terminatedReason,
      Integer terminatedExitCode,
      String terminatedMessage,
      int terminatedSignal) {
    /** A status whose container was not killed by a signal (or that does not say). */
    public ContainerStatus(
        String name,
        String image,
        boolean ready,
        int restartCount,
        String waitingReason,
        String waitingMessage,
        boolean running,
        String terminatedReason,
        Integer terminatedExitCode,
        String terminatedMessage) {
      this(
          name,
          image,
          ready,
          restartCount,
          waitingReason,
          waitingMessage,
          running,
          terminatedReason,
          terminatedExitCode,
          terminatedMessage,
          0);
    }

    public ContainerStatus {
      name = name == null ? "" : name;
      image = image == null ? "" : image;
      waitingReason = waitingReason == null ? "" : waitingReason;
      waitingMessage = waitingMessage == null ? "" : waitingMessage;
      terminatedReason = terminatedReason == null ? "" : terminatedReason;
      terminatedMessage = terminatedMessage == null ? "" : terminatedMessage;
    }

    public boolean waiting() {
      return !running && terminatedExitCode == null && terminatedReason.isEmpty();
    }

    public boolean terminated() {
      return terminatedExitCode != null || !terminatedReason.isEmpty();
    }
  }
}
