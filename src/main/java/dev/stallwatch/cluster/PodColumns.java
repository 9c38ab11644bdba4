package dev.stallwatch.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * The Pod columns of {@code kubectl get pods}: READY as ready/total containers, STATUS as kubectl
 * derives it (a waiting or terminated container's reason wins over the phase, {@code Init:} while
 * init containers run, {@code Terminating} once deleted), RESTARTS with the last restart's age.
 */
final class PodColumns {

  private PodColumns() {}

  static List<TableColumn> all() {
    return List.of(
        TableColumn.nameColumn(),
        TableColumn.of(
            "Ready", "string", "Ready containers of all containers.", (o, now) -> ready(o)),
        TableColumn.of(
            "Status", "string", "The aggregate status of the containers.", (o, now) -> status(o)),
        TableColumn.of("Restarts", "string", "Restarts of all containers.", PodColumns::restarts),
        TableColumn.ageColumn(),
        TableColumn.wide(
            "IP", "The pod IP.", (o, now) -> o.path("status").path("podIP").asText("<none>")),
        TableColumn.wide(
            "Node",
            "The node the pod is bound to.",
            (o, now) -> o.path("spec").path("nodeName").asText("<none>")),
        TableColumn.wide(
            "Nominated Node",
            "The node nominated by preemption.",
            (o, now) -> o.path("status").path("nominatedNodeName").asText("<none>")),
        TableColumn.wide("Readiness Gates", "Readiness gates.", (o, now) -> readinessGates(o)));
  }

  static String ready(JsonNode pod) {
    int total = pod.path("spec").path("containers").size();
    int ready = 0;
    for (JsonNode s : pod.path("status").path("containerStatuses")) {
      if (s.path("ready").asBoolean(false)) {
        ready++;
      }
    }
    return ready + "/" + total;
  }

  static String status(JsonNode pod) {
    JsonNode status = pod.path("status");
    String reason = status.path("reason").asText("");
    if (reason.isEmpty()) {
      reason = status.path("phase").asText("Unknown");
    }
    String init = initStatus(pod);
    if (init != null) {
      reason = init;
    } else {
      boolean running = false;
      JsonNode containers = status.path("containerStatuses");
      for (int i = containers.size() - 1; i >= 0; i--) {
        JsonNode state = containers.get(i).path("state");
        String waiting = state.path("waiting").path("reason").asText("");
        JsonNode terminated = state.path("terminated");
        if (!waiting.isEmpty()) {
          reason = waiting;
        } else if (!terminated.isMissingNode()) {
          reason = terminatedReason(terminated, "");
        } else if (!state.path("running").isMissingNode()
            && containers.get(i).path("ready").asBoolean(false)) {
          running = true;
        }
      }
      // A restarting container that already completed once still counts as running.
      if (reason.equals("Completed") && running) {
        reason = "Running";
      }
    }
    if (!pod.path("metadata").path("deletionTimestamp").asText("").isEmpty()) {
      reason = "NodeLost".equals(status.path("reason").asText()) ? "Unknown" : "Terminating";
    }
    return reason;
  }

  /** {@code Init:...} while an init container has not finished, else {@code null}. */
  private static String initStatus(JsonNode pod) {
    JsonNode inits = pod.path("status").path("initContainerStatuses");
    int total = pod.path("spec").path("initContainers").size();
    for (int i = 0; i < inits.size(); i++) {
      JsonNode state = inits.get(i).path("state");
      JsonNode terminated = state.path("terminated");
      if (!terminated.isMissingNode() && terminated.path("exitCode").asInt(0) == 0) {
        continue;
      }
      if (!terminated.isMissingNode()) {
        return terminatedReason(terminated, "Init:");
      }
      String waiting = state.path("waiting").path("reason").asText("");
      if (!waiting.isEmpty() && !waiting.equals("PodInitializing")) {
        return "Init:" + waiting;
      }
      return "Init:" + i + "/" + total;
    }
    return null;
  }

  private static String terminatedReason(JsonNode terminated, String prefix) {
    String reason = terminated.path("reason").asText("");
    if (!reason.isEmpty()) {
      return prefix + reason;
    }
    int signal = terminated.path("signal").asInt(0);
    return signal != 0
        ? prefix + "Signal:" + signal
        : prefix + "ExitCode:" + terminated.path("exitCode").asInt(0);
  }

  static String restarts(JsonNode pod, Instant now) {
    long restarts = 0;
    Instant lastRestart = null;
    for (JsonNode s : pod.path("status").path("containerStatuses")) {
      restarts += s.path("restartCount").asLong(0);
      String finished = s.path("lastState").path("terminated").path("finishedAt").asText("");
      Instant at = parse(finished);
      if (at != null && (lastRestart == null || at.isAfter(lastRestart))) {
        lastRestart = at;
      }
    }
    if (restarts > 0 && lastRestart != null) {
      return restarts + " (" + HumanAge.of(java.time.Duration.between(lastRestart, now)) + " ago)";
    }
    return Long.toString(restarts);
  }

  private static Instant parse(String timestamp) {
    try {
      return timestamp.isEmpty() ? null : Instant.parse(timestamp);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static String readinessGates(JsonNode pod) {
    JsonNode gates = pod.path("spec").path("readinessGates");
    if (gates.isEmpty()) {
      return "<none>";
    }
    int passed = 0;
    for (JsonNode gate : gates) {
      String type = gate.path("conditionType").asText();
      for (JsonNode c : pod.path("status").path("conditions")) {
        if (type.equals(c.path("type").asText()) && "True".equals(c.path("status").asText())) {
          passed++;
        }
      }
    }
    return passed + "/" + gates.size();
  }
}
