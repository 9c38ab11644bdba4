package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The catalogue of named scenarios ({@code stallwatch demo --scenario NAME}). Each starts with
 * three GPU nodes running {@code gpu-operator/nvidia-container-toolkit} at {@value #OLD_TAG}, lets
 * the first rollout finish, and one minute in changes something.
 */
public final class Scenarios {

  public static final String NAMESPACE = "gpu-operator";
  public static final String DAEMON_SET = "nvidia-container-toolkit";
  public static final String OLD_TAG = "v1.16.2";
  public static final String NEW_TAG = "v1.17.0";
  public static final String REPO = "nvcr.io/nvidia/k8s/container-toolkit:";

  /** When every scenario makes its change. */
  public static final Duration CHANGE_AT = Duration.ofMinutes(1);

  private static final Map<String, Supplier<Scenario>> CATALOGUE = new LinkedHashMap<>();

  static {
    CATALOGUE.put("image-pull-stall", Scenarios::imagePullStall);
    CATALOGUE.put("healthy-rollout", Scenarios::healthyRollout);
    CATALOGUE.put("insufficient-gpu", Scenarios::insufficientGpu);
    CATALOGUE.put("toleration-dropped", Scenarios::tolerationDropped);
    CATALOGUE.put("node-selector-narrowed", Scenarios::nodeSelectorNarrowed);
    CATALOGUE.put("crash-loop", Scenarios::crashLoop);
    CATALOGUE.put("readiness-never", Scenarios::readinessNever);
    CATALOGUE.put("init-waiting-driver", Scenarios::initWaitingDriver);
    CATALOGUE.put("node-unreachable", Scenarios::nodeUnreachable);
    CATALOGUE.put("max-surge-no-room", Scenarios::maxSurgeNoRoom);
    CATALOGUE.put("host-port-conflict", Scenarios::hostPortConflict);
    CATALOGUE.put("container-creating-forever", Scenarios::containerCreatingForever);
    CATALOGUE.put("rollback", Scenarios::rollback);
  }

  /**
   * Former names {@link #named} still accepts (scripts written against them keep working); never
   * listed by {@link #names}.
   */
  private static final Map<String, String> ALIASES = Map.of("seed-story", "image-pull-stall");

  private Scenarios() {}

  /** The scenario names, in catalogue order. */
  public static List<String> names() {
    return List.copyOf(CATALOGUE.keySet());
  }

  /**
   * The scenario called {@code name}.
   *
   * @throws IllegalArgumentException naming the known scenarios when there is none of that name
   */
  public static Scenario named(String name) {
    Supplier<Scenario> s = CATALOGUE.get(ALIASES.getOrDefault(name, name));
    if (s == null) {
      throw new IllegalArgumentException(
          "no scenario named \"" + name + "\"; known: " + String.join(", ", names()));
    }
    return s.get();
  }

  private static Scenario.Builder gpuCluster(String name, String story, DaemonSet toolkit) {
    return Scenario.builder(name, story)
        .node(ScenarioObjects.node("gpu-node-1", 1))
        .node(ScenarioObjects.node("gpu-node-2", 1))
        .node(ScenarioObjects.node("gpu-node-3", 1))
        .daemonSet(toolkit);
  }

  private static Scenario.Builder gpuCluster(String name, String story) {
    return gpuCluster(name, story, ScenarioObjects.containerToolkit(OLD_TAG));
  }

  private static Scenario.Builder newTag(Scenario.Builder b) {
    return b.at(
        CHANGE_AT,
        "set image " + DAEMON_SET + "=" + REPO + NEW_TAG,
        c -> c.setImage(NAMESPACE, DAEMON_SET, DAEMON_SET, REPO + NEW_TAG));
  }

  static Scenario imagePullStall() {
    return newTag(
            gpuCluster(
                "image-pull-stall",
                "three GPU nodes; the new container-toolkit tag cannot be pulled, the rollout stops"
                    + " on the first node"))
        .kubelet(k -> k.image(REPO + NEW_TAG, ImageBehavior.unpullable()))
        .build();
  }

  static Scenario healthyRollout() {
    return newTag(gpuCluster("healthy-rollout", "the new tag pulls and gets ready on every node"))
        .build();
  }

  static Scenario insufficientGpu() {
    Scenario.Builder b =
        gpuCluster(
                "insufficient-gpu",
                "the new version asks for a GPU to validate the runtime, but training jobs hold"
                    + " every GPU")
            .at(
                CHANGE_AT,
                "add request nvidia.com/gpu: 1",
                c ->
                    c.editTemplate(
                        NAMESPACE,
                        DAEMON_SET,
                        t -> {
                          var ctr = t.getSpec().getContainers().get(0);
                          ctr.setImage(REPO + NEW_TAG);
                          ctr.getResources().getRequests().put("nvidia.com/gpu", new Quantity("1"));
                          ctr.getResources().setLimits(Map.of("nvidia.com/gpu", new Quantity("1")));
                          return t;
                        }));
    for (int i = 1; i <= 3; i++) {
      b.pod(ScenarioObjects.gpuWorkload("ml", "train-" + i, "gpu-node-" + i, 1));
    }
    return b.build();
  }

  static Scenario tolerationDropped() {
    var taint = ScenarioObjects.taint("nvidia.com/gpu", "present", "NoSchedule");
    return Scenario.builder(
            "toleration-dropped",
            "GPU nodes are tainted; the new template lost its toleration, DESIRED drops to 0 and the"
                + " old pods stay")
        .node(ScenarioObjects.node("gpu-node-1", 1, taint))
        .node(ScenarioObjects.node("gpu-node-2", 1, taint))
        .node(ScenarioObjects.node("gpu-node-3", 1, taint))
        .daemonSet(ScenarioObjects.containerToolkit(OLD_TAG))
        .at(
            CHANGE_AT,
            "new tag without the nvidia.com/gpu toleration",
            c ->
                c.editTemplate(
                    NAMESPACE,
                    DAEMON_SET,
                    t -> {
                      t.getSpec().getContainers().get(0).setImage(REPO + NEW_TAG);
                      t.getSpec().setTolerations(new ArrayList<>());
                      return t;
                    }))
        .build();
  }

  static Scenario nodeSelectorNarrowed() {
    var h100 = ScenarioObjects.node("gpu-node-1", 1);
    h100.getMetadata().getLabels().put("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3");
    var a100a = ScenarioObjects.node("gpu-node-2", 1);
    a100a.getMetadata().getLabels().put("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB");
    var a100b = ScenarioObjects.node("gpu-node-3", 1);
    a100b.getMetadata().getLabels().put("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB");
    return Scenario.builder(
            "node-selector-narrowed",
            "the new template selects only H100 nodes; the A100 nodes lose their toolkit pod")
        .node(h100)
        .node(a100a)
        .node(a100b)
        .daemonSet(ScenarioObjects.containerToolkit(OLD_TAG))
        .at(
            CHANGE_AT,
            "new tag with nodeSelector nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3",
            c ->
                c.editTemplate(
                    NAMESPACE,
                    DAEMON_SET,
                    t -> {
                      t.getSpec().getContainers().get(0).setImage(REPO + NEW_TAG);
                      t.getSpec()
                          .getNodeSelector()
                          .put("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3");
                      return t;
                    }))
        .build();
  }

  static Scenario crashLoop() {
    return newTag(gpuCluster("crash-loop", "the new tag starts and exits 1: CrashLoopBackOff"))
        .kubelet(k -> k.image(REPO + NEW_TAG, ImageBehavior.crashLoop()))
        .build();
  }

  static Scenario readinessNever() {
    return newTag(
            gpuCluster("readiness-never", "the new tag runs but its readiness probe never passes"))
        .kubelet(k -> k.image(REPO + NEW_TAG, ImageBehavior.neverReady()))
        .build();
  }

  static final String VALIDATOR = "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.9.0";

  static Scenario initWaitingDriver() {
    return gpuCluster(
            "init-waiting-driver",
            "the new template waits in an init container for a driver that never loads (Init:0/1)")
        .kubelet(k -> k.image(VALIDATOR, ImageBehavior.initWaitsForever()))
        .at(
            CHANGE_AT,
            "new tag with init container driver-validation",
            c ->
                c.editTemplate(
                    NAMESPACE,
                    DAEMON_SET,
                    t -> {
                      t.getSpec().getContainers().get(0).setImage(REPO + NEW_TAG);
                      t.getSpec()
                          .setInitContainers(
                              List.of(
                                  new ContainerBuilder()
                                      .withName("driver-validation")
                                      .withImage(VALIDATOR)
                                      .build()));
                      return t;
                    }))
        .build();
  }

  static Scenario nodeUnreachable() {
    return gpuCluster(
            "node-unreachable",
            "gpu-node-3 becomes unreachable, then a new tag; its old pod is deleted and stays"
                + " Terminating, holding the only unavailable slot: no other node moves")
        .at(CHANGE_AT, "gpu-node-3 stops posting status", c -> c.nodeUnreachable("gpu-node-3"))
        .at(
            CHANGE_AT.plusSeconds(30),
            "set image " + DAEMON_SET + "=" + REPO + NEW_TAG,
            c -> c.setImage(NAMESPACE, DAEMON_SET, DAEMON_SET, REPO + NEW_TAG))
        .build();
  }

  static Scenario maxSurgeNoRoom() {
    DaemonSet toolkit = ScenarioObjects.containerToolkit(OLD_TAG);
    toolkit.getSpec().getUpdateStrategy().getRollingUpdate().setMaxUnavailable(new IntOrString(0));
    toolkit.getSpec().getUpdateStrategy().getRollingUpdate().setMaxSurge(new IntOrString(1));
    var ctr = toolkit.getSpec().getTemplate().getSpec().getContainers().get(0);
    ctr.getResources().getRequests().put("nvidia.com/gpu", new Quantity("1"));
    ctr.getResources().setLimits(Map.of("nvidia.com/gpu", new Quantity("1")));
    return newTag(
            gpuCluster(
                "max-surge-no-room",
                "maxSurge 1, maxUnavailable 0: the surge pod needs the node's only GPU, which the"
                    + " old pod holds",
                toolkit))
        .build();
  }

  static final String DCGM_EXPORTER = "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.9-3.6.1-ubuntu22.04";

  /** The port the new template publishes on the host; dcgm-exporter's default. */
  static final int METRICS_PORT = 9400;

  static Scenario hostPortConflict() {
    return gpuCluster(
            "host-port-conflict",
            "the new tag publishes metrics on hostPort "
                + METRICS_PORT
                + ", which a dcgm-exporter pod started by hand on gpu-node-1 already holds: the"
                + " scheduler cannot place the new pod (Unschedulable, not a resource shortage)")
        .pod(
            ScenarioObjects.hostPortHolder(
                "monitoring", "dcgm-exporter-debug", "gpu-node-1", DCGM_EXPORTER, METRICS_PORT))
        .at(
            CHANGE_AT,
            "new tag with container port metrics " + METRICS_PORT + " on hostPort " + METRICS_PORT,
            c ->
                c.editTemplate(
                    NAMESPACE,
                    DAEMON_SET,
                    t -> {
                      var ctr = t.getSpec().getContainers().get(0);
                      ctr.setImage(REPO + NEW_TAG);
                      ctr.setPorts(
                          List.of(
                              new ContainerPortBuilder()
                                  .withName("metrics")
                                  .withContainerPort(METRICS_PORT)
                                  .withHostPort(METRICS_PORT)
                                  .withProtocol("TCP")
                                  .build()));
                      return t;
                    }))
        .build();
  }

  /** A ConfigMap the new template mounts and nobody created. */
  static final String MISSING_CONFIG_MAP = "nvidia-container-toolkit-config";

  static Scenario containerCreatingForever() {
    return gpuCluster(
            "container-creating-forever",
            "the new template mounts ConfigMap "
                + MISSING_CONFIG_MAP
                + ", which was never created: the kubelet cannot mount the volume and the pod sits"
                + " in ContainerCreating; no rule explains it (Unknown)")
        .at(
            CHANGE_AT,
            "new tag with a volume from ConfigMap " + MISSING_CONFIG_MAP,
            c ->
                c.editTemplate(
                    NAMESPACE,
                    DAEMON_SET,
                    t -> {
                      var ctr = t.getSpec().getContainers().get(0);
                      ctr.setImage(REPO + NEW_TAG);
                      ctr.setVolumeMounts(
                          List.of(
                              new VolumeMountBuilder()
                                  .withName("toolkit-config")
                                  .withMountPath("/etc/nvidia-container-toolkit")
                                  .withReadOnly(true)
                                  .build()));
                      t.getSpec()
                          .setVolumes(
                              List.of(
                                  new VolumeBuilder()
                                      .withName("toolkit-config")
                                      .withNewConfigMap()
                                      .withName(MISSING_CONFIG_MAP)
                                      .endConfigMap()
                                      .build()));
                      return t;
                    }))
        .build();
  }

  static Scenario rollback() {
    return newTag(
            gpuCluster(
                "rollback",
                "the image-pull stall, then kubectl rollout undo: the old revision comes back with a new"
                    + " number and every node converges"))
        .kubelet(k -> k.image(REPO + NEW_TAG, ImageBehavior.unpullable()))
        .at(
            CHANGE_AT.plusMinutes(9),
            "kubectl rollout undo daemonset/" + DAEMON_SET,
            c -> c.rollback(NAMESPACE, DAEMON_SET))
        .build();
  }
}
