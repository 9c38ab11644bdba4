package dev.stallwatch.rollout;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The ordered table that explains why a node holds a rollout back: the first rule that matches
 * names the {@link Cause} and carries the Kubernetes reason and message behind it. {@link
 * Cause#NodeExcluded} is decided before this table (it needs no pod), {@link Cause#Unknown} is what
 * is left.
 */
final class CauseRules {

  /**
   * What a rule looks at: the node (null if not in the input), the pods that explain it.
   *
   * @param nodeGone with no node: whether the input's node list says it is gone from the cluster
   *     (else it is merely unseen, and the pod alone explains the node)
   * @param failedCreate the newest Warning FailedCreate Event about the DaemonSet newer than the
   *     new revision, or null
   */
  record Facts(
      String nodeName,
      NodeView node,
      PodView pod,
      List<PodView> terminating,
      int minReadySeconds,
      Instant now,
      Duration stallAfter,
      boolean nodeGone,
      EventView failedCreate) {}

  /** A matched rule: the cause, the Kubernetes reason and message. */
  record Finding(Cause cause, String reason, String message) {}

  private record Rule(Cause cause, Function<Facts, Optional<Finding>> test) {}

  static final Set<String> IMAGE_PULL_REASONS =
      Set.of(
          "ErrImagePull",
          "ImagePullBackOff",
          "InvalidImageName",
          "ErrImageNeverPull",
          "RegistryUnavailable",
          "ImageInspectError");

  static final Set<String> CRASH_REASONS =
      Set.of(
          "CrashLoopBackOff",
          "RunContainerError",
          "CreateContainerError",
          "CreateContainerConfigError",
          "StartError");

  /**
   * The kubelet's reason on a pod it evicted under node pressure (memory, disk, PIDs) or refused at
   * admission while the node reports such pressure ("The node had condition: [MemoryPressure]").
   */
  static final String EVICTED = "Evicted";

  private static final List<Rule> RULES =
      List.of(
          new Rule(Cause.NodeUnavailable, CauseRules::nodeUnavailable),
          new Rule(Cause.FailedCreate, CauseRules::failedCreate),
          new Rule(Cause.ImagePull, e -> waitingWith(e.pod(), IMAGE_PULL_REASONS, Cause.ImagePull)),
          new Rule(Cause.InsufficientResources, CauseRules::insufficientResources),
          new Rule(Cause.Unschedulable, CauseRules::unschedulable),
          new Rule(Cause.CrashLoop, e -> waitingWith(e.pod(), CRASH_REASONS, Cause.CrashLoop)),
          new Rule(Cause.NotReady, CauseRules::notReady));

  /**
   * The causes in the order their rules are tried, between {@link Cause#NodeExcluded} (decided
   * first, from eligibility) and {@link Cause#Unknown} (none matched): the one order of the rules.
   */
  static List<Cause> order() {
    java.util.List<Cause> all = new java.util.ArrayList<>();
    all.add(Cause.NodeExcluded);
    RULES.forEach(r -> all.add(r.cause()));
    all.add(Cause.Unknown);
    return List.copyOf(all);
  }

  private CauseRules() {}

  /** The first matching rule's finding, else {@link Cause#Unknown}. */
  static Finding explain(Facts e) {
    for (Rule rule : RULES) {
      Optional<Finding> found = rule.test().apply(e);
      if (found.isPresent()) {
        return found.get();
      }
    }
    return unknown(e);
  }

  private static Optional<Finding> nodeUnavailable(Facts e) {
    if (e.node() == null) {
      if (!e.nodeGone()) {
        return Optional.empty();
      }
      return Optional.of(
          new Finding(
              Cause.NodeUnavailable,
              "NodeNotFound",
              "node " + e.nodeName() + " is not in the cluster's node list"));
    }
    NodeView.Condition ready = e.node().ready();
    if (ready != null && !"True".equals(ready.status())) {
      String reason = blankTo(ready.reason(), "NodeNotReady");
      String message =
          blankTo(ready.message(), "node " + e.nodeName() + " is " + readyWord(ready.status()));
      return Optional.of(new Finding(Cause.NodeUnavailable, reason, message));
    }
    for (NodeView.Taint taint : e.node().taints()) {
      if (NodeView.NOT_READY_TAINT.equals(taint.key())
          || NodeView.UNREACHABLE_TAINT.equals(taint.key())) {
        String reason =
            NodeView.NOT_READY_TAINT.equals(taint.key()) ? "NodeNotReady" : "NodeUnreachable";
        return Optional.of(
            new Finding(Cause.NodeUnavailable, reason, "node carries taint " + taint));
      }
    }
    for (PodView pod : e.terminating()) {
      Instant since = pod.deletionTimestamp();
      if (since.isBefore(e.now()) && !since.plus(e.stallAfter()).isAfter(e.now())) {
        return Optional.of(
            new Finding(
                Cause.NodeUnavailable,
                "Terminating",
                "pod " + pod.name() + " has been terminating since " + since));
      }
    }
    return Optional.empty();
  }

  private static Optional<Finding> failedCreate(Facts e) {
    if (e.pod() != null || !e.terminating().isEmpty() || e.failedCreate() == null) {
      return Optional.empty();
    }
    return Optional.of(
        new Finding(
            Cause.FailedCreate,
            "FailedCreate",
            blankTo(
                e.failedCreate().message(), "the DaemonSet controller could not create a pod")));
  }

  private static String readyWord(String status) {
    return "Unknown".equals(status) ? "unreachable (Ready=Unknown)" : "NotReady";
  }

  private static Optional<Finding> waitingWith(PodView pod, Set<String> reasons, Cause cause) {
    if (pod == null) {
      return Optional.empty();
    }
    // Loops: this runs for every node that holds the rollout back, in every analysis.
    Optional<Finding> found = waitingWith(pod.initContainerStatuses(), reasons, cause);
    return found.isPresent() ? found : waitingWith(pod.containerStatuses(), reasons, cause);
  }

  private static Optional<Finding> waitingWith(
      List<PodView.ContainerStatus> statuses, Set<String> reasons, Cause cause) {
    for (int i = 0, n = statuses.size(); i < n; i++) {
      PodView.ContainerStatus c = statuses.get(i);
      if (c.waiting() && reasons.contains(c.waitingReason())) {
        String message =
            c.waitingMessage().isBlank()
                ? blankTo(c.waitingMessage(), "container " + c.name() + " " + c.waitingReason())
                : c.waitingMessage();
        return Optional.of(new Finding(cause, c.waitingReason(), message));
      }
    }
    return Optional.empty();
  }

  private static Optional<Finding> insufficientResources(Facts e) {
    PodView pod = e.pod();
    if (pod == null) {
      return Optional.empty();
    }
    Optional<PodView.Condition> unschedulable = unschedulableCondition(pod);
    if (unschedulable.isPresent()
        && "Unschedulable".equals(unschedulable.get().reason())
        && unschedulable.get().message().contains("Insufficient ")) {
      return Optional.of(
          new Finding(
              Cause.InsufficientResources,
              unschedulable.get().reason(),
              unschedulable.get().message()));
    }
    if ("Failed".equals(pod.phase())
        && (pod.reason().startsWith("OutOf") || EVICTED.equals(pod.reason()))) {
      // Kubelet admission: OutOf<resource>; node-pressure eviction, or admission refused while
      // the node reports a pressure condition: Evicted. Before Unschedulable, which takes any
      // other Failed reason.
      return Optional.of(new Finding(Cause.InsufficientResources, pod.reason(), pod.message()));
    }
    return Optional.empty();
  }

  private static Optional<Finding> unschedulable(Facts e) {
    PodView pod = e.pod();
    if (pod == null) {
      return Optional.empty();
    }
    Optional<PodView.Condition> condition = unschedulableCondition(pod);
    if (condition.isPresent()) {
      return Optional.of(
          new Finding(
              Cause.Unschedulable,
              blankTo(condition.get().reason(), "Unschedulable"),
              condition.get().message()));
    }
    if ("Failed".equals(pod.phase()) && !pod.reason().isEmpty()) {
      // Kubelet admission rejected it (NodeAffinity, UnexpectedAdmissionError, host port…).
      return Optional.of(new Finding(Cause.Unschedulable, pod.reason(), pod.message()));
    }
    return Optional.empty();
  }

  private static Optional<PodView.Condition> unschedulableCondition(PodView pod) {
    return pod.condition("PodScheduled").filter(c -> "False".equals(c.status()));
  }

  private static Optional<Finding> notReady(Facts e) {
    PodView pod = e.pod();
    if (pod == null || pod.terminating() || PodAvailability.isTerminal(pod)) {
      return Optional.empty();
    }
    boolean scheduled =
        !pod.nodeName().isEmpty()
            || pod.condition("PodScheduled").map(c -> "True".equals(c.status())).orElse(false);
    boolean started =
        pod.containerStatuses().stream().anyMatch(PodView.ContainerStatus::running)
            || pod.initContainerStatuses().stream()
                .anyMatch(c -> c.running() || c.terminated() || c.waiting());
    if (!scheduled || !(started || "Running".equals(pod.phase()))) {
      return Optional.empty();
    }
    if (PodAvailability.isReady(pod)) {
      return Optional.of(
          new Finding(
              Cause.NotReady,
              "MinReadySeconds",
              "pod "
                  + pod.name()
                  + " is Ready but not yet for minReadySeconds="
                  + e.minReadySeconds()));
    }
    Optional<PodView.ContainerStatus> waitingInit =
        pod.initContainerStatuses().stream().filter(c -> !c.terminated()).findFirst();
    if (waitingInit.isPresent()) {
      PodView.ContainerStatus c = waitingInit.get();
      String state = c.running() ? "running" : "waiting";
      return Optional.of(
          new Finding(
              Cause.NotReady,
              blankTo(c.waitingReason(), "PodInitializing"),
              "init container " + c.name() + " is still " + state));
    }
    PodView.Condition ready = pod.condition("Ready").orElse(null);
    String reason = ready == null ? "" : ready.reason();
    String message = ready == null ? "" : ready.message();
    return Optional.of(
        new Finding(
            Cause.NotReady,
            blankTo(reason, "ContainersNotReady"),
            blankTo(message, "pod " + pod.name() + " runs but is not Ready")));
  }

  private static Finding unknown(Facts e) {
    if (e.pod() == null) {
      return new Finding(
          Cause.Unknown, "NoPod", "no pod of the new revision exists on node " + e.nodeName());
    }
    PodView pod = e.pod();
    Optional<PodView.ContainerStatus> waiting =
        java.util.stream.Stream.concat(
                pod.initContainerStatuses().stream(), pod.containerStatuses().stream())
            .filter(c -> c.waiting() && !c.waitingReason().isEmpty())
            .findFirst();
    if (waiting.isPresent()) {
      PodView.ContainerStatus c = waiting.get();
      return new Finding(
          Cause.Unknown,
          c.waitingReason(),
          blankTo(c.waitingMessage(), "container " + c.name() + " is " + c.waitingReason()));
    }
    String reason = blankTo(pod.reason(), blankTo(pod.phase(), "Pending"));
    return new Finding(
        Cause.Unknown,
        reason,
        blankTo(pod.message(), "pod " + pod.name() + " is " + PodState.of(pod)));
  }

  static String blankTo(String s, String fallback) {
    return s == null || s.isBlank() ? fallback : s;
  }
}
