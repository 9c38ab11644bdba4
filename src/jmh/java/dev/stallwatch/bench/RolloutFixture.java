package dev.stallwatch.bench;

import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.operator.cache.CachePruning;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.PodView;
import dev.stallwatch.rollout.RolloutSnapshot;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One DaemonSet rollout on {@code nodes} nodes as the API server would hand it to an informer:
 * kubelet-shaped nodes (labels, Ready and the other conditions, capacity), the DaemonSet with
 * {@code maxUnavailable: 10%}, its two ControllerRevisions, and one pod per node shaped the way the
 * DaemonSet controller creates them (owner, hash and generation labels, node-pinning affinity,
 * default tolerations) with a kubelet-written status.
 */
public final class RolloutFixture {
  /** Where the rollout stands. */
  public enum State {
    /** Every node runs an available pod of the new revision. */
    HEALTHY,
    /** Half the nodes updated, 10% with a new pod starting (under stall-after), the rest old. */
    MID_ROLLOUT,
    /** As mid-rollout, but the 10% new pods have been in ImagePullBackOff for an hour. */
    STALLED
  }

  public static final Instant NOW = Instant.parse("2026-12-03T10:00:00Z");
  static final String NS = "kube-system";
  static final String NAME = "fluent-bit";
  static final String UID = "5d6c1b7e-0000-4000-8000-000000000001";
  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  public final List<Node> nodes = new ArrayList<>();
  public final List<Pod> pods = new ArrayList<>();
  public final List<ControllerRevision> revisions = new ArrayList<>();
  public final DaemonSet daemonSet;

  public RolloutFixture(int nodeCount, State state) {
    for (int i = 0; i < nodeCount; i++) {
      nodes.add(node(String.format("node-%05d", i)));
    }
    revisions.add(revision(1));
    revisions.add(revision(2));
    daemonSet = daemonSet(state == State.HEALTHY ? 2 : 2, nodeCount);
    int updating = nodeCount / 10;
    for (int i = 0; i < nodeCount; i++) {
      String node = nodes.get(i).getMetadata().getName();
      if (state == State.HEALTHY || i < nodeCount / 2) {
        pods.add(pod(node, 2, NOW.minusSeconds(3600), Status.READY));
      } else if (i < nodeCount / 2 + updating) {
        pods.add(
            state == State.STALLED
                ? pod(node, 2, NOW.minusSeconds(3600), Status.PULL_BACKOFF)
                : pod(node, 2, NOW.minusSeconds(20), Status.PULL_BACKOFF));
      } else {
        pods.add(pod(node, 1, NOW.minusSeconds(86_400), Status.READY));
      }
    }
  }

  /**
   * The analyzer's input: views of the cached (pruned) objects, nodes and pods in a fixed shuffled
   * order — an informer's cache hands them out in hash order, not sorted by name.
   */
  public RolloutSnapshot snapshot() {
    List<PodView> podViews =
        new ArrayList<>(pods.stream().map(CachePruning::pod).map(KubeViews::pod).toList());
    List<NodeView> nodeViews =
        new ArrayList<>(nodes.stream().map(CachePruning::node).map(KubeViews::node).toList());
    Collections.shuffle(podViews, new Random(12));
    Collections.shuffle(nodeViews, new Random(34));
    return new RolloutSnapshot(
        KubeViews.daemonSet(CachePruning.daemonSet(daemonSet)),
        podViews,
        nodeViews,
        revisions.stream().map(CachePruning::revision).map(KubeViews::revision).toList());
  }

  static String hash(int revision) {
    return "6f7d8c9b" + revision;
  }

  static String image(int revision) {
    return "cr.fluentbit.io/fluent/fluent-bit:3." + revision;
  }

  static Node node(String name) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("beta.kubernetes.io/arch", "amd64");
    labels.put("beta.kubernetes.io/os", "linux");
    labels.put("kubernetes.io/arch", "amd64");
    labels.put("kubernetes.io/hostname", name);
    labels.put("kubernetes.io/os", "linux");
    labels.put("node.kubernetes.io/instance-type", "m6i.2xlarge");
    labels.put("topology.kubernetes.io/region", "eu-west-1");
    labels.put("topology.kubernetes.io/zone", "eu-west-1a");
    labels.put("type", "kwok");
    String t = "2026-12-01T00:00:00Z";
    String beat = "2026-12-03T09:59:50Z";
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withUid("node-uid-" + name)
        .withResourceVersion("1")
        .withLabels(labels)
        .withAnnotations(Map.of("node.alpha.kubernetes.io/ttl", "0", "kwok.x-k8s.io/node", "fake"))
        .withCreationTimestamp(t)
        .endMetadata()
        .withNewSpec()
        .withProviderID("kwok://" + name)
        .endSpec()
        .withNewStatus()
        .addToCapacity("cpu", new io.fabric8.kubernetes.api.model.Quantity("32"))
        .addToCapacity("memory", new io.fabric8.kubernetes.api.model.Quantity("256Gi"))
        .addToCapacity("pods", new io.fabric8.kubernetes.api.model.Quantity("110"))
        .addToAllocatable("cpu", new io.fabric8.kubernetes.api.model.Quantity("32"))
        .addToAllocatable("memory", new io.fabric8.kubernetes.api.model.Quantity("256Gi"))
        .addToAllocatable("pods", new io.fabric8.kubernetes.api.model.Quantity("110"))
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .withReason("KubeletReady")
        .withMessage("kubelet is posting ready status")
        .withLastHeartbeatTime(beat)
        .withLastTransitionTime(t)
        .endCondition()
        .addNewCondition()
        .withType("MemoryPressure")
        .withStatus("False")
        .withReason("KubeletHasSufficientMemory")
        .withLastHeartbeatTime(beat)
        .withLastTransitionTime(t)
        .endCondition()
        .addNewCondition()
        .withType("DiskPressure")
        .withStatus("False")
        .withReason("KubeletHasNoDiskPressure")
        .withLastHeartbeatTime(beat)
        .withLastTransitionTime(t)
        .endCondition()
        .addNewCondition()
        .withType("PIDPressure")
        .withStatus("False")
        .withReason("KubeletHasSufficientPID")
        .withLastHeartbeatTime(beat)
        .withLastTransitionTime(t)
        .endCondition()
        .addNewAddress()
        .withType("InternalIP")
        .withAddress("10.0.0.1")
        .endAddress()
        .withNewNodeInfo()
        .withKubeletVersion("v1.36.3")
        .withArchitecture("amd64")
        .withOperatingSystem("linux")
        .endNodeInfo()
        .endStatus()
        .build();
  }

  static PodTemplateSpec template(int revision) {
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .withLabels(Map.of("app", NAME))
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName(NAME)
        .withImage(image(revision))
        .withNewResources()
        .addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity("100m"))
        .addToRequests("memory", new io.fabric8.kubernetes.api.model.Quantity("128Mi"))
        .endResources()
        .endContainer()
        .addNewToleration()
        .withOperator("Exists")
        .endToleration()
        .endSpec()
        .build();
  }

  private static OwnerReference owner() {
    return new OwnerReferenceBuilder()
        .withApiVersion("apps/v1")
        .withKind("DaemonSet")
        .withName(NAME)
        .withUid(UID)
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  static ControllerRevision revision(int n) {
    @SuppressWarnings("unchecked")
    Map<String, Object> template = new LinkedHashMap<>(JSON.convertValue(template(n), Map.class));
    template.put("$patch", "replace");
    return new ControllerRevisionBuilder()
        .withNewMetadata()
        .withNamespace(NS)
        .withName(NAME + "-" + hash(n))
        .withUid("rev-uid-" + n)
        .withResourceVersion(String.valueOf(n))
        .withLabels(Map.of("app", NAME, "controller-revision-hash", hash(n)))
        .withCreationTimestamp(NOW.minusSeconds(86_400L * (3 - n)).toString())
        .withOwnerReferences(owner())
        .endMetadata()
        .withRevision((long) n)
        .withData(Map.of("spec", Map.of("template", template)))
        .build();
  }

  static DaemonSet daemonSet(int revision, int desired) {
    return new DaemonSetBuilder()
        .withNewMetadata()
        .withNamespace(NS)
        .withName(NAME)
        .withUid(UID)
        .withResourceVersion("100")
        .withGeneration((long) revision)
        .withCreationTimestamp(NOW.minusSeconds(3 * 86_400L).toString())
        .withAnnotations(
            Map.of("deprecated.daemonset.template.generation", String.valueOf(revision)))
        .endMetadata()
        .withNewSpec()
        .withNewSelector()
        .withMatchLabels(Map.of("app", NAME))
        .endSelector()
        .withTemplate(template(revision))
        .withNewUpdateStrategy()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        .withNewMaxUnavailable("10%")
        .endRollingUpdate()
        .endUpdateStrategy()
        .endSpec()
        .withNewStatus()
        .withObservedGeneration((long) revision)
        .withDesiredNumberScheduled(desired)
        .withCurrentNumberScheduled(desired)
        .withNumberReady(desired)
        .withUpdatedNumberScheduled(desired)
        .withNumberAvailable(desired)
        .endStatus()
        .build();
  }

  private enum Status {
    READY,
    PULL_BACKOFF
  }

  static Pod pod(String node, int revision, Instant created, Status status) {
    String t = created.toString();
    String started = created.plusSeconds(3).toString();
    boolean ready = status == Status.READY;
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("app", NAME);
    labels.put("controller-revision-hash", hash(revision));
    labels.put("pod-template-generation", String.valueOf(revision));
    String name = NAME + "-" + Integer.toHexString(node.hashCode() * 31 + revision);
    PodTemplateSpec template = template(revision);
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(NS)
        .withName(name)
        .withUid("pod-uid-" + name + "-" + node)
        .withResourceVersion("1")
        .withGenerateName(NAME + "-")
        .withLabels(labels)
        .withCreationTimestamp(t)
        .withOwnerReferences(owner())
        .endMetadata()
        .withNewSpecLike(template.getSpec())
        .withNodeName(node)
        .withNewAffinity()
        .withNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
        .addNewNodeSelectorTerm()
        .addNewMatchField()
        .withKey("metadata.name")
        .withOperator("In")
        .withValues(node)
        .endMatchField()
        .endNodeSelectorTerm()
        .endRequiredDuringSchedulingIgnoredDuringExecution()
        .endNodeAffinity()
        .endAffinity()
        .addNewToleration()
        .withKey("node.kubernetes.io/not-ready")
        .withOperator("Exists")
        .withEffect("NoExecute")
        .endToleration()
        .addNewToleration()
        .withKey("node.kubernetes.io/unreachable")
        .withOperator("Exists")
        .withEffect("NoExecute")
        .endToleration()
        .addNewToleration()
        .withKey("node.kubernetes.io/disk-pressure")
        .withOperator("Exists")
        .withEffect("NoSchedule")
        .endToleration()
        .endSpec()
        .withNewStatus()
        .withPhase(ready ? "Running" : "Pending")
        .withHostIP("10.0.0.1")
        .withPodIP("10.244.0.1")
        .withStartTime(t)
        .addNewCondition()
        .withType("PodScheduled")
        .withStatus("True")
        .withLastTransitionTime(t)
        .endCondition()
        .addNewCondition()
        .withType("Initialized")
        .withStatus("True")
        .withLastTransitionTime(t)
        .endCondition()
        .addNewCondition()
        .withType("ContainersReady")
        .withStatus(ready ? "True" : "False")
        .withLastTransitionTime(started)
        .endCondition()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .withReason(ready ? null : "ContainersNotReady")
        .withMessage(ready ? null : "containers with unready status: [" + NAME + "]")
        .withLastTransitionTime(started)
        .endCondition()
        .addToContainerStatuses(
            ready
                ? new ContainerStatusBuilder()
                    .withName(NAME)
                    .withImage(image(revision))
                    .withImageID("docker-pullable://" + image(revision) + "@sha256:abc")
                    .withContainerID("containerd://" + name)
                    .withReady(true)
                    .withStarted(true)
                    .withRestartCount(0)
                    .withNewState()
                    .withNewRunning(started)
                    .endState()
                    .build()
                : new ContainerStatusBuilder()
                    .withName(NAME)
                    .withImage(image(revision))
                    .withImageID("")
                    .withReady(false)
                    .withStarted(false)
                    .withRestartCount(0)
                    .withNewState()
                    .withNewWaiting()
                    .withReason("ImagePullBackOff")
                    .withMessage("Back-off pulling image \"" + image(revision) + "\"")
                    .endWaiting()
                    .endState()
                    .build())
        .endStatus()
        .build();
  }
}
