package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;

/**
 * The simulator's own reading of upstream's {@code updatedDesiredNodeCounts}, {@code SurgeCount},
 * {@code UnavailableCount} and {@code AllowsSurge}, on the DaemonSet object (not the analyzer's
 * {@code RolloutBudget}). Absent fields take the API's defaults (RollingUpdate, maxUnavailable 1,
 * maxSurge 0), which the mock server does not fill in.
 */
record UpdateBudget(int maxUnavailable, int maxSurge) {

  /** The budgets of {@code ds} for {@code desired} nodes; with both zero, maxUnavailable is 1. */
  static UpdateBudget of(DaemonSet ds, int desired) {
    if (!rollingUpdate(ds)) {
      return new UpdateBudget(desired > 0 ? 1 : 0, 0);
    }
    int unavailable = scaled(field(ds, true), 1, desired);
    int surge = scaled(field(ds, false), 0, desired);
    if (desired > 0 && unavailable == 0 && surge == 0) {
      unavailable = 1;
    }
    return new UpdateBudget(unavailable, surge);
  }

  /** Upstream {@code AllowsSurge}: a rolling update whose maxSurge scaled to one node is not 0. */
  static boolean allowsSurge(DaemonSet ds) {
    return rollingUpdate(ds) && scaled(field(ds, false), 0, 1) != 0;
  }

  private static boolean rollingUpdate(DaemonSet ds) {
    DaemonSetUpdateStrategy s = ds.getSpec().getUpdateStrategy();
    return s == null || s.getType() == null || "RollingUpdate".equals(s.getType());
  }

  private static IntOrString field(DaemonSet ds, boolean unavailable) {
    DaemonSetUpdateStrategy s = ds.getSpec().getUpdateStrategy();
    if (s == null || s.getRollingUpdate() == null) {
      return null;
    }
    return unavailable
        ? s.getRollingUpdate().getMaxUnavailable()
        : s.getRollingUpdate().getMaxSurge();
  }

  /** Upstream {@code GetScaledValueFromIntOrPercent(v, total, roundUp=true)}. */
  private static int scaled(IntOrString v, int fallback, int total) {
    if (v == null || (v.getIntVal() == null && v.getStrVal() == null)) {
      return fallback;
    }
    if (v.getIntVal() != null) {
      return v.getIntVal();
    }
    String s = v.getStrVal().trim();
    try {
      if (s.endsWith("%")) {
        int percent = Integer.parseInt(s.substring(0, s.length() - 1));
        return (int) Math.ceil(percent * (double) total / 100.0);
      }
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
