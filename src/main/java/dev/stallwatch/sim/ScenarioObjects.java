package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/** Ready-made objects for scenarios: nodes with capacity, DaemonSets, workload pods. */
public final class ScenarioObjects {

  private ScenarioObjects() {}

  /** A Ready node with 8 cpu, 32Gi memory, 110 pods and {@code gpus} nvidia.com/gpu (0: none). */
  public static Node node(String name, int gpus, Taint... taints) {
    Map<String, Quantity> allocatable = new TreeMap<>();
    allocatable.put("cpu", new Quantity("8"));
    allocatable.put("memory", new Quantity("32Gi"));
    allocatable.put("pods", new Quantity("110"));
    Map<String, String> labels = new TreeMap<>();
    labels.put("kubernetes.io/hostname", name);
    labels.put("kubernetes.io/os", "linux");
    if (gpus > 0) {
      allocatable.put("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
      labels.put("nvidia.com/gpu.present", "true");
    }
    String since = Instant.EPOCH.toString();
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withTaints(taints)
        .endSpec()
        .withNewStatus()
        .withAllocatable(allocatable)
        .withCapacity(allocatable)
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .withReason("KubeletReady")
        .withMessage("kubelet is posting ready status")
        .withLastHeartbeatTime(since)
        .withLastTransitionTime(since)
        .endCondition()
        .endStatus()
        .build();
  }

  /** A node taint. */
  public static Taint taint(String key, String value, String effect) {
    return new Taint(effect, key, null, value);
  }

  /**
   * A RollingUpdate DaemonSet (maxUnavailable 1) with one container {@code name} running {@code
   * image}, requesting 100m cpu and 64Mi memory.
   */
  public static DaemonSetBuilder daemonSet(String namespace, String name, String image) {
    Map<String, String> selector = Map.of("app", name);
    return new DaemonSetBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNewSelector()
        .withMatchLabels(selector)
        .endSelector()
        .withNewUpdateStrategy()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        .withNewMaxUnavailable(1)
        .withNewMaxSurge(0)
        .endRollingUpdate()
        .endUpdateStrategy()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(selector)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName(name)
        .withImage(image)
        .withNewResources()
        .addToRequests("cpu", new Quantity("100m"))
        .addToRequests("memory", new Quantity("64Mi"))
        .endResources()
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec();
  }

  /** The image-pull stall's DaemonSet: gpu-operator/nvidia-container-toolkit on GPU nodes. */
  public static DaemonSet containerToolkit(String tag) {
    return daemonSet(
            "gpu-operator",
            "nvidia-container-toolkit",
            "nvcr.io/nvidia/k8s/container-toolkit:" + tag)
        .editSpec()
        .editTemplate()
        .editSpec()
        .addToNodeSelector("nvidia.com/gpu.present", "true")
        .addNewToleration()
        .withKey("nvidia.com/gpu")
        .withOperator("Exists")
        .withEffect("NoSchedule")
        .endToleration()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  /** A running workload pod bound to {@code node} that holds {@code gpus} GPUs. */
  public static Pod gpuWorkload(String namespace, String name, String node, int gpus) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewToleration()
        .withKey("nvidia.com/gpu")
        .withOperator("Exists")
        .withEffect("NoSchedule")
        .endToleration()
        .addNewContainer()
        .withName("train")
        .withImage("registry.example.com/ml/train:2.4")
        .withNewResources()
        .addToRequests("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
        .addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /**
   * A running pod bound to {@code node}, not owned by any controller, whose container {@code name}
   * holds host port {@code port} (TCP), e.g. an exporter someone started by hand.
   */
  public static Pod hostPortHolder(
      String namespace, String name, String node, String image, int port) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withLabels(Map.of("app", name))
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName(name)
        .withImage(image)
        .addNewPort()
        .withName("metrics")
        .withContainerPort(port)
        .withHostPort(port)
        .withProtocol("TCP")
        .endPort()
        .withNewResources()
        .addToRequests("cpu", new Quantity("100m"))
        .addToRequests("memory", new Quantity("128Mi"))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }
}
