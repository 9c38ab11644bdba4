package dev.stallwatch.rollback;

import dev.stallwatch.kube.Keys;
import dev.stallwatch.rollout.RolloutVerdict;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.List;

/**
 * The operator's auto-rollback step for one reconcile: asks the {@link RollbackPolicy} and, when it
 * says so, rolls back with the same {@link RevisionRestorer} as {@code stallwatch undo}, guarded by
 * the stalled revision's hash. The DaemonSet's {@code apiVersion} says which one to patch: an
 * {@code apps/v1} DaemonSet, or an OpenKruise Advanced DaemonSet passed as its {@code
 * AdvancedDaemonSet.toDaemonSet()} ({@link DaemonSetApi}). Events, metrics and the RolloutStall
 * record are the caller's, from the returned {@link RollbackOutcome}.
 */
public final class AutoRollback {

  private final RollbackPolicy policy;
  private final RevisionRestorer restorer;

  public AutoRollback(RollbackPolicy policy, KubernetesClient client) {
    this.policy = policy;
    this.restorer = new RevisionRestorer(client);
  }

  /** What the policy decides for {@code ds} now, without acting on it. */
  public RollbackDecision decide(
      DaemonSet ds, RolloutVerdict verdict, List<RollbackRecord> prior, Instant now) {
    return policy.decide(verdict, ds.getMetadata().getAnnotations(), prior, now);
  }

  /**
   * Decides for {@code ds} given its current {@code verdict} and rolls back when due.
   *
   * @param prior the rollbacks recorded on the DaemonSet's RolloutStalls
   */
  public RollbackOutcome apply(
      DaemonSet ds, RolloutVerdict verdict, List<RollbackRecord> prior, Instant now) {
    return perform(ds, decide(ds, verdict, prior, now), now);
  }

  /** Does the rollback {@code decision} asks for (nothing when it asks for none). */
  public RollbackOutcome perform(DaemonSet ds, RollbackDecision decision, Instant now) {
    if (!decision.rollBack()) {
      return new RollbackOutcome(decision, null, null);
    }
    try {
      // An Advanced DaemonSet (its toDaemonSet(), apiVersion apps.kruise.io/…) is patched as one.
      RollbackResult result =
          restorer.rollback(
              DaemonSetApi.of(ds),
              ds.getMetadata().getNamespace(),
              ds.getMetadata().getName(),
              decision.target(),
              false,
              RollbackRecord.BY_OPERATOR,
              now);
      return new RollbackOutcome(decision, result, null);
    } catch (RollbackRefusedException e) {
      return new RollbackOutcome(decision, null, e.getMessage());
    } catch (KubernetesClientException e) {
      // Forbidden (the chart grants patch only with autoRollback.enabled), conflicts that outlived
      // the retries, an API server away: reported like a refusal, and tried again later.
      return new RollbackOutcome(
          decision,
          null,
          "could not roll back "
              + Keys.of(ds)
              + (DaemonSetApi.of(ds) == DaemonSetApi.APPS_V1
                  ? ""
                  : " (" + DaemonSetApi.of(ds).resource() + ")")
              + ": "
              + (e.getCode() > 0 ? "HTTP " + e.getCode() + ": " : "")
              + e.getMessage());
    }
  }
}
