package dev.stallwatch.embedded;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.rollout.Durations;
import dev.stallwatch.rollout.PodState;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * The Pod columns of {@code kubectl get pods}: READY as ready/total containers, STATUS as kubectl
 * derives it (the analyzer's {@link PodState}), RESTARTS with the last restart's age.
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

  /**
   * STATUS as the analyzer's {@link PodState} derives it (the one copy); {@code Unknown} for a pod
   * that cannot be read.
   */
  static String status(JsonNode pod) {
    try {
      return PodState.of(KubeViews.pod(Serialization.jsonMapper().treeToValue(pod, Pod.class)));
    } catch (JsonProcessingException | RuntimeException e) {
      return "Unknown";
    }
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
      return restarts
          + " ("
          + Durations.age(java.time.Duration.between(lastRestart, now))
          + " ago)";
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
