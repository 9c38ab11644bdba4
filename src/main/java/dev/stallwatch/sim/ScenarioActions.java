package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import java.util.function.UnaryOperator;

/**
 * What a scenario's timed events may do: the edits a person makes to a DaemonSet and what happens
 * to a node. The simulator plays them ({@link SimulatedCluster}); so can anything else that should
 * tell the same story — the real-cluster tests play the catalogue against real controllers through
 * this interface, so a scenario's change is written once.
 */
public interface ScenarioActions {

  /**
   * Sets the image of one container of the DaemonSet's template (like {@code kubectl set image}).
   */
  void setImage(String namespace, String daemonSet, String container, String image);

  /** Changes the DaemonSet's pod template. */
  void editTemplate(String namespace, String daemonSet, UnaryOperator<PodTemplateSpec> edit);

  /** {@code kubectl rollout undo}: the template of the newest other revision comes back. */
  void rollback(String namespace, String daemonSet);

  /** The node's kubelet reports NotReady (e.g. its container runtime is down). */
  void nodeNotReady(String node);

  /** The node's kubelet stops posting status: the node becomes unreachable. */
  void nodeUnreachable(String node);

  /** The node's kubelet reports Ready again. */
  void nodeReady(String node);
}
