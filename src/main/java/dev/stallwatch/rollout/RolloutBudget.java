package dev.stallwatch.rollout;

/**
 * How many nodes may be unavailable, and how many may run a surge pod, during a rolling update —
 * upstream's {@code updatedDesiredNodeCounts}: percentages of DESIRED rounded up, and when both
 * come out as zero on a non-empty DaemonSet, maxUnavailable is 1.
 */
public record RolloutBudget(int maxUnavailable, int maxSurge) {

  /** Resolves the strategy's budgets for {@code desired} nodes. */
  public static RolloutBudget of(DaemonSetView.UpdateStrategy strategy, int desired) {
    int unavailable = strategy.maxUnavailable().scaledTo(desired);
    int surge = strategy.maxSurge().scaledTo(desired);
    if (desired > 0 && unavailable == 0 && surge == 0) {
      unavailable = 1;
    }
    return new RolloutBudget(unavailable, surge);
  }

  /** Upstream {@code AllowsSurge}: the strategy asks for surge at all (before scaling). */
  public static boolean allowsSurge(DaemonSetView.UpdateStrategy strategy) {
    return !strategy.onDelete() && strategy.maxSurge().value() > 0;
  }
}
