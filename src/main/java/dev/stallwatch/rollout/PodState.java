package dev.stallwatch.rollout;

import java.util.List;

/**
 * The one-word pod state {@code kubectl get pods} prints in its STATUS column ({@code Running},
 * {@code ImagePullBackOff}, {@code Init:0/1}, {@code Terminating}, {@code OutOfcpu}, …), derived
 * the way kubectl's printer derives it. The one copy: the analyzer's node rows and the embedded API
 * server's {@code kubectl get pods} table both use it.
 */
public final class PodState {
  private static final String NODE_UNREACHABLE_REASON = "NodeLost";

  private PodState() {}

  /** The STATUS column for {@code pod}; {@code -} for no pod. */
  public static String of(PodView pod) {
    if (pod == null) {
      return "-";
    }
    String state = pod.reason().isEmpty() ? orDash(pod.phase()) : pod.reason();
    String init = initState(pod);
    if (init != null) {
      state = init;
    } else {
      state = mainState(pod, state);
    }
    if (pod.terminating() && NODE_UNREACHABLE_REASON.equals(pod.reason())) {
      return "Unknown";
    }
    if (pod.terminating() && !terminalPhase(pod.phase())) {
      return "Terminating";
    }
    return state;
  }

  /**
   * Succeeded or Failed: a finished pod being deleted keeps the state it ended in ({@code
   * Completed}, {@code Error}, …), as kubectl prints it, instead of {@code Terminating}.
   */
  private static boolean terminalPhase(String phase) {
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  /** The {@code Init:…} state while init containers have not all completed, else null. */
  private static String initState(PodView pod) {
    List<PodView.ContainerStatus> inits = pod.initContainerStatuses();
    int total = Math.max(pod.initContainerNames().size(), inits.size());
    for (int i = 0; i < inits.size(); i++) {
      PodView.ContainerStatus c = inits.get(i);
      if (c.terminated() && Integer.valueOf(0).equals(c.terminatedExitCode())) {
        continue;
      }
      if (c.terminated()) {
        if (!c.terminatedReason().isEmpty()) {
          return "Init:" + c.terminatedReason();
        }
        return "Init:" + exitText(c);
      }
      if (c.waiting()
          && !c.waitingReason().isEmpty()
          && !"PodInitializing".equals(c.waitingReason())) {
        return "Init:" + c.waitingReason();
      }
      return "Init:" + i + "/" + total;
    }
    return null;
  }

  private static String mainState(PodView pod, String state) {
    boolean hasRunning = false;
    List<PodView.ContainerStatus> statuses = pod.containerStatuses();
    for (int i = statuses.size() - 1; i >= 0; i--) {
      PodView.ContainerStatus c = statuses.get(i);
      if (c.waiting() && !c.waitingReason().isEmpty()) {
        state = c.waitingReason();
      } else if (c.terminated() && !c.terminatedReason().isEmpty()) {
        state = c.terminatedReason();
      } else if (c.terminated()) {
        state = exitText(c);
      } else if (c.running() && c.ready()) {
        hasRunning = true;
      }
    }
    if ("Completed".equals(state) && hasRunning) {
      return PodAvailability.isReady(pod) ? "Running" : "NotReady";
    }
    return state;
  }

  /** A terminated container without a reason: {@code Signal:N} when a signal ended it. */
  private static String exitText(PodView.ContainerStatus c) {
    return c.terminatedSignal() != 0
        ? "Signal:" + c.terminatedSignal()
        : "ExitCode:" + c.terminatedExitCode();
  }

  private static String orDash(String s) {
    return s == null || s.isEmpty() ? "Pending" : s;
  }
}
