package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the analyzer reads of a pod.
 *
 * @param nodeName {@code spec.nodeName}: empty until the pod is bound
 * @param targetNode the node the pod is meant for: {@code spec.nodeName}, else the node pinned by
 *     its required node affinity ({@code matchFields metadata.name In [node]}), as upstream's
 *     {@code GetTargetNodeName}; empty when neither
 * @param owner the controller owner reference, or null
 * @param derived what the analysis asks of the pod every time, decided once from the other
 *     components when the view is made (the operator keeps a view per cached object, so once per
 *     resourceVersion): always {@link Derived#of} them; pass null (a non-null value must equal it)
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
    List<ContainerStatus> containerStatuses,
    Derived derived) {

  /**
   * The pod conditions the analysis reads: {@code Ready} (availability, outages), {@code
   * PodScheduled} (why a pod does not run) and OpenKruise's {@code InPlaceUpdateReady} readiness
   * gate. A view holds only these; a pod's other conditions (Initialized, ContainersReady,
   * PodReadyToStartContainers, …) say nothing the analysis asks, and at 50,000 cached pods each
   * costs memory.
   */
  public static final Set<String> READ_CONDITIONS =
      Set.of("Ready", "PodScheduled", AdvancedStrategy.IN_PLACE_UPDATE_READY);

  /**
   * Whether a pod condition of {@code type} is one the analysis reads ({@link #READ_CONDITIONS}).
   */
  public static boolean readsCondition(String type) {
    return type != null && READ_CONDITIONS.contains(type);
  }

  /** A view whose {@link #derived} facts are decided from the given components. */
  public PodView(
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
    this(
        namespace,
        name,
        uid,
        labels,
        owner,
        nodeName,
        targetNode,
        created,
        deletionTimestamp,
        phase,
        reason,
        message,
        conditions,
        initContainerNames,
        images,
        initContainerStatuses,
        containerStatuses,
        null);
  }

  public PodView {
    namespace = namespace == null ? "" : namespace.intern();
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
    // Node names are few and shared by every DaemonSet's pod on the node and by the node's own
    // view: one instance each, so the analysis's lookups by node name compare by identity.
    nodeName = nodeName.intern();
    targetNode = targetNode.intern();
    Derived decided = Derived.of(labels, phase, conditions, targetNode);
    if (derived != null && !derived.equals(decided)) {
      throw new IllegalArgumentException(
          "pod " + namespace + "/" + name + ": derived facts " + derived + " are not " + decided);
    }
    derived = decided;
  }

  /**
   * What every analysis asks of every pod, decided once when the view is made instead of once per
   * question per analysis (each answer otherwise walks the pod's labels or conditions).
   *
   * @param ready the pod's first {@code Ready} condition is {@code True} (upstream {@code
   *     IsPodReady})
   * @param readySince that condition's last transition while the pod is ready; null when it is not
   *     ready or the time is not recorded
   * @param terminal the phase is {@code Failed} or {@code Succeeded}
   * @param revisionHash the {@code controller-revision-hash} label, or null
   * @param templateGeneration the {@code pod-template-generation} label, or null
   * @param targetNodeHash the hash code of {@link #targetNode}: the analysis finds the pod's node
   *     by it without reading the name itself
   */
  public record Derived(
      boolean ready,
      Instant readySince,
      boolean terminal,
      String revisionHash,
      String templateGeneration,
      int targetNodeHash) {

    /** The facts of a pod with these labels, phase, conditions and target node. */
    public static Derived of(
        Map<String, String> labels, String phase, List<Condition> conditions, String targetNode) {
      Condition first = null;
      if (conditions != null) {
        for (Condition c : conditions) {
          if ("Ready".equals(c.type())) {
            first = c;
            break;
          }
        }
      }
      // OpenKruise's in-place update readiness gate: a pod whose InPlaceUpdateReady condition is
      // not True is not ready, whatever a kubelet that ignores the gate reported.
      Condition inPlace = null;
      if (conditions != null) {
        for (Condition c : conditions) {
          if (AdvancedStrategy.IN_PLACE_UPDATE_READY.equals(c.type())) {
            inPlace = c;
            break;
          }
        }
      }
      boolean ready =
          first != null
              && "True".equals(first.status())
              && (inPlace == null || "True".equals(inPlace.status()));
      Instant since = ready ? first.lastTransition() : null;
      if (ready
          && inPlace != null
          && inPlace.lastTransition() != null
          && (since == null || inPlace.lastTransition().isAfter(since))) {
        since = inPlace.lastTransition();
      }
      String hash = labels == null ? null : labels.get(MetadataKeys.REVISION_HASH_LABEL);
      String generation =
          labels == null ? null : labels.get(MetadataKeys.TEMPLATE_GENERATION_LABEL);
      return new Derived(
          ready,
          since,
          "Failed".equals(phase) || "Succeeded".equals(phase),
          // Shared by all pods of a revision: one instance each keeps them in the cache.
          hash == null ? null : hash.intern(),
          generation == null ? null : generation.intern(),
          targetNode == null ? 0 : targetNode.hashCode());
    }
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
