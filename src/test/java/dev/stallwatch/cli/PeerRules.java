package dev.stallwatch.cli;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The DaemonSet rules of three other tools, re-expressed from reading their sources (not copied),
 * so that {@link PeerVerdictsTest} can check the peer verdicts its table claims for cases their own
 * tests do not cover. Each reads only the DaemonSet object, as the tools do.
 *
 * <ul>
 *   <li>kubectl: {@code DaemonSetStatusViewer.Status} in kubernetes/kubectl {@code
 *       pkg/polymorphichelpers/rollout_status.go}
 *   <li>kstatus: {@code checkGenericProperties} ({@code generic.go}) then {@code
 *       daemonsetConditions} ({@code core.go}) in kubernetes-sigs/cli-utils {@code
 *       pkg/kstatus/status}
 *   <li>Argo CD: {@code getAppsv1DaemonSetHealth} in argoproj/gitops-engine {@code
 *       pkg/health/health_daemonset.go}
 * </ul>
 */
final class PeerRules {
  private PeerRules() {}

  /** What {@code kubectl rollout status daemonset/NAME} reports for this object. */
  static String kubectl(JsonNode ds) {
    if (!"RollingUpdate".equals(ds.at("/spec/updateStrategy/type").asText(""))) {
      return "error: only for RollingUpdate";
    }
    long generation = ds.at("/metadata/generation").asLong(0);
    JsonNode st = ds.path("status");
    if (generation > st.path("observedGeneration").asLong(0)) {
      return "waits: spec update not observed";
    }
    long desired = st.path("desiredNumberScheduled").asLong(0);
    long updated = st.path("updatedNumberScheduled").asLong(0);
    long available = st.path("numberAvailable").asLong(0);
    if (updated < desired) {
      return "waits: " + updated + " of " + desired + " updated";
    }
    if (available < desired) {
      return "waits: " + available + " of " + desired + " available";
    }
    return "done";
  }

  /** kstatus's {@code Compute} for an apps/v1 DaemonSet: status and reason. */
  static String kstatus(JsonNode ds) {
    if (!ds.at("/metadata/deletionTimestamp").asText("").isEmpty()) {
      return "Terminating";
    }
    JsonNode generation = ds.at("/metadata/generation");
    JsonNode observed = ds.at("/status/observedGeneration");
    if (!generation.isMissingNode()
        && !observed.isMissingNode()
        && generation.asLong() != observed.asLong()) {
      return "InProgress (LatestGenerationNotObserved)";
    }
    if (generation.isMissingNode()) {
      return "InProgress (NoGeneration)";
    }
    if (observed.isMissingNode()) {
      return "InProgress (NoObservedGeneration)";
    }
    JsonNode st = ds.path("status");
    long desired = st.path("desiredNumberScheduled").asLong(-1);
    if (!st.has("desiredNumberScheduled")) {
      return "InProgress (NoDesiredNumber)";
    }
    if (desired > st.path("currentNumberScheduled").asLong(0)) {
      return "InProgress (LessCurrent)";
    }
    if (desired > st.path("updatedNumberScheduled").asLong(0)) {
      return "InProgress (LessUpdated)";
    }
    if (desired > st.path("numberAvailable").asLong(0)) {
      return "InProgress (LessAvailable)";
    }
    if (desired > st.path("numberReady").asLong(0)) {
      return "InProgress (LessReady)";
    }
    return "Current";
  }

  /** Argo CD's built-in health of an apps/v1 DaemonSet. */
  static String argoCd(JsonNode ds) {
    long generation = ds.at("/metadata/generation").asLong(0);
    JsonNode st = ds.path("status");
    if (generation > st.path("observedGeneration").asLong(0)) {
      return "Progressing";
    }
    if ("OnDelete".equals(ds.at("/spec/updateStrategy/type").asText(""))) {
      return "Healthy";
    }
    long desired = st.path("desiredNumberScheduled").asLong(0);
    if (st.path("updatedNumberScheduled").asLong(0) < desired
        || st.path("numberAvailable").asLong(0) < desired) {
      return "Progressing";
    }
    return "Healthy";
  }
}
