package dev.stallwatch.sim;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * The simulated control plane on one fabric8 client: every {@link #tick} runs, in this order, the
 * API server's template-generation stand-in, the DaemonSet controller, the scheduler, the kubelets,
 * and the controller's status sync — each reading the current objects from the API and writing back
 * through it, so anyone watching sees the events a real cluster would produce. Deterministic for a
 * seed on a virtual clock.
 */
public final class ControlPlane {

  private final SimClock clock;
  private final TemplateGenerationKeeper keeper;
  private final DaemonSetController controller;
  private final Scheduler scheduler;
  private final Kubelet kubelet;
  private final NodeLifecycle nodes;

  public ControlPlane(KubernetesClient client, SimClock clock, KubeletScript script, long seed) {
    this(client, clock, script, seed, List.of());
  }

  /**
   * A control plane whose DaemonSet controller takes the nodes in {@code updateFirst} first, in
   * that order, when it picks nodes to update (see {@link Scenario#updateOrder()}).
   */
  public ControlPlane(
      KubernetesClient client,
      SimClock clock,
      KubeletScript script,
      long seed,
      List<String> updateFirst) {
    this.clock = clock;
    this.keeper = new TemplateGenerationKeeper(client);
    this.controller = new DaemonSetController(client, clock, seed, updateFirst);
    this.scheduler = new Scheduler(client, clock);
    this.kubelet = new Kubelet(client, clock, script);
    this.nodes = new NodeLifecycle(client, clock);
  }

  public SimClock clock() {
    return clock;
  }

  public DaemonSetController controller() {
    return controller;
  }

  public Scheduler scheduler() {
    return scheduler;
  }

  public Kubelet kubelet() {
    return kubelet;
  }

  public NodeLifecycle nodes() {
    return nodes;
  }

  /** One round of every component at the clock's current instant. */
  public SyncResult tick() {
    keeper.reconcileAll();
    SyncResult result = controller.syncAll();
    scheduler.schedulePending();
    kubelet.syncAll();
    controller.syncStatusAll();
    return result;
  }
}
