package dev.stallwatch.operator.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class CachePruningTest {
  private final KubernetesSerialization json = new KubernetesSerialization();

  /** A DaemonSet pod as a real API server returns it, with the bulk a cache does not need. */
  static Pod toolkitPod() {
    return new PodBuilder()
        .withNewMetadata()
        .withName("nvidia-container-toolkit-x7k2p")
        .withNamespace("gpu-operator")
        .withUid("3f1c")
        .withResourceVersion("4711")
        .withCreationTimestamp("2026-12-02T10:00:00Z")
        .addToLabels(MetadataKeys.REVISION_HASH_LABEL, "7f6c8d9b4")
        .addToLabels(MetadataKeys.TEMPLATE_GENERATION_LABEL, "2")
        .addToLabels("app", "nvidia-container-toolkit")
        .addToAnnotations("kubectl.kubernetes.io/restartedAt", "2026-12-01T00:00:00Z")
        .addNewOwnerReference()
        .withApiVersion("apps/v1")
        .withKind("DaemonSet")
        .withName("nvidia-container-toolkit")
        .withUid("uid-1")
        .withController(true)
        .endOwnerReference()
        .withManagedFields(
            new ManagedFieldsEntryBuilder()
                .withManager("kube-controller-manager")
                .withOperation("Update")
                .withApiVersion("v1")
                .withFieldsType("FieldsV1")
                .withNewFieldsV1()
                .addToAdditionalProperties(
                    "f:metadata",
                    Map.of(
                        "f:labels",
                        Map.of("f:app", Map.of(), "f:pod-template-generation", Map.of())))
                .addToAdditionalProperties(
                    "f:spec", Map.of("f:containers", Map.of("k:{\"name\":\"toolkit\"}", Map.of())))
                .endFieldsV1()
                .build(),
            new ManagedFieldsEntryBuilder()
                .withManager("kubelet")
                .withOperation("Update")
                .withSubresource("status")
                .withNewFieldsV1()
                .addToAdditionalProperties(
                    "f:status", Map.of("f:conditions", Map.of("k:{\"type\":\"Ready\"}", Map.of())))
                .endFieldsV1()
                .build())
        .endMetadata()
        .withNewSpec()
        .withNodeName("gpu-node-1")
        .withServiceAccountName("nvidia-container-toolkit")
        .addNewContainer()
        .withName("toolkit")
        .withImage("nvcr.io/nvidia/k8s/container-toolkit:v1.14.9")
        .withCommand("/bin/bash", "-c")
        .withArgs("nvidia-toolkit --restart-mode=systemd /usr/local/nvidia")
        .addNewEnv()
        .withName("RUNTIME_ARGS")
        .withValue(
            "--socket /runtime/sock-dir/containerd.sock --config /runtime/config-dir/config.toml")
        .endEnv()
        .addNewEnv()
        .withName("CONTAINERD_RUNTIME_CLASS")
        .withValue("nvidia")
        .endEnv()
        .addNewVolumeMount()
        .withName("host-root")
        .withMountPath("/host")
        .endVolumeMount()
        .withNewResources()
        .addToRequests("cpu", new Quantity("100m"))
        .endResources()
        .endContainer()
        .addNewVolume()
        .withName("host-root")
        .withNewHostPath()
        .withPath("/")
        .endHostPath()
        .endVolume()
        .addNewToleration()
        .withKey("nvidia.com/gpu")
        .withOperator("Exists")
        .withEffect("NoSchedule")
        .endToleration()
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .withHostIP("10.0.0.11")
        .addNewPodIP()
        .withIp("10.244.1.7")
        .endPodIP()
        .addNewCondition()
        .withType("Ready")
        .withStatus("False")
        .endCondition()
        .addNewContainerStatus()
        .withName("toolkit")
        .withImage("nvcr.io/nvidia/k8s/container-toolkit:v1.14.9")
        .withReady(false)
        .withRestartCount(0)
        .withNewState()
        .withNewWaiting()
        .withReason("ImagePullBackOff")
        .withMessage("Back-off pulling image")
        .endWaiting()
        .endState()
        .endContainerStatus()
        .endStatus()
        .build();
  }

  @Test
  void aPrunedPodKeepsWhatTheAnalyzerReadsAndIsLessThanHalfTheBytes() {
    Pod pod = toolkitPod();
    Pod pruned = CachePruning.pod(pod);

    assertThat(pruned.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(pruned.getMetadata().getLabels()).isEqualTo(pod.getMetadata().getLabels());
    assertThat(pruned.getMetadata().getOwnerReferences())
        .isEqualTo(pod.getMetadata().getOwnerReferences());
    assertThat(pruned.getSpec().getNodeName()).isEqualTo("gpu-node-1");
    assertThat(pruned.getSpec().getContainers().get(0).getImage())
        .isEqualTo("nvcr.io/nvidia/k8s/container-toolkit:v1.14.9");
    assertThat(pruned.getSpec().getContainers().get(0).getEnv()).isNullOrEmpty();
    assertThat(pruned.getSpec().getVolumes()).isNullOrEmpty();
    // Of the status only what the view reads: addresses, IDs, QoS class, start times are dropped.
    assertThat(pruned.getStatus().getPhase()).isEqualTo("Pending");
    assertThat(pruned.getStatus().getConditions()).isEqualTo(pod.getStatus().getConditions());
    assertThat(pruned.getStatus().getContainerStatuses())
        .isEqualTo(pod.getStatus().getContainerStatuses());
    assertThat(pruned.getStatus().getHostIP()).isNull();
    assertThat(pruned.getStatus().getPodIPs()).isNullOrEmpty();
    // Bound: the affinity (read only to place an unbound pod) is dropped.
    assertThat(pruned.getSpec().getAffinity()).isNull();

    int before = bytes(pod);
    int after = bytes(pruned);
    System.out.printf("bytes per cached pod: %d before pruning, %d after%n", before, after);
    assertThat(after).isLessThan(before / 2);
  }

  @Test
  void anUnboundPodKeepsTheAffinityThatPlacesIt() {
    Pod pending =
        new PodBuilder(toolkitPod())
            .editSpec()
            .withNodeName(null)
            .withNewAffinity()
            .withNewNodeAffinity()
            .withNewRequiredDuringSchedulingIgnoredDuringExecution()
            .addNewNodeSelectorTerm()
            .addNewMatchField()
            .withKey("metadata.name")
            .withOperator("In")
            .withValues("gpu-node-2")
            .endMatchField()
            .endNodeSelectorTerm()
            .endRequiredDuringSchedulingIgnoredDuringExecution()
            .endNodeAffinity()
            .endAffinity()
            .endSpec()
            .build();

    Pod pruned = CachePruning.pod(pending);

    assertThat(pruned.getSpec().getAffinity()).isEqualTo(pending.getSpec().getAffinity());
    assertThat(KubeViews.pod(pruned).targetNode()).isEqualTo("gpu-node-2");
    assertThat(RolloutEventSources.targetNode(pruned)).containsExactly("gpu-node-2");
  }

  @Test
  void theCachedPodCarriesItsViewAndOnlyTheIdentityItsOtherReadersRead() {
    Pod pod = toolkitPod();

    CachedPod cached = CachedPod.of(pod);

    assertThat(CachedPod.view(cached)).isEqualTo(KubeViews.pod(pod));
    assertThat(cached.getSpec()).isNull();
    assertThat(cached.getStatus()).isNull();
    assertThat(cached.getMetadata().getLabels()).isEmpty();
    assertThat(cached.getMetadata().getManagedFields()).isEmpty();
    assertThat(cached.getMetadata().getOwnerReferences())
        .isEqualTo(pod.getMetadata().getOwnerReferences());
    assertThat(cached.getMetadata().getResourceVersion()).isEqualTo("4711");
    assertThat(RolloutEventSources.targetNode(cached)).containsExactly("gpu-node-1");
    assertThat(cached).isNotEqualTo(CachedPod.of(pod)); // one object version: equal to itself
  }

  @Test
  void aCachedPodThatCannotBeReadReportsWhyWhenItsViewIsRead() {
    Pod bad =
        new PodBuilder(toolkitPod())
            .editMetadata()
            .withCreationTimestamp("yesterday")
            .endMetadata()
            .build();

    CachedPod cached = CachedPod.of(bad);

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> CachedPod.view(cached))
        .isInstanceOf(dev.stallwatch.kube.InvalidObjectException.class)
        .hasMessageContaining("nvidia-container-toolkit-x7k2p")
        .hasMessageContaining("metadata.creationTimestamp");
    assertThat(RolloutEventSources.targetNode(cached)).containsExactly("gpu-node-1");
  }

  @Test
  void aPrunedNodeKeepsLabelsTaintsReadyAndAllocatableOnly() {
    Node node =
        json.unmarshal(
            """
            {"kind":"Node","metadata":{"name":"n1","labels":{"a":"1","b":"2"}},
             "spec":{"podCIDR":"10.244.1.0/24","providerID":"kwok://n1","unschedulable":true,
               "taints":[{"key":"k","effect":"NoSchedule"}]},
             "status":{"allocatable":{"cpu":"4"},"capacity":{"cpu":"4"},
               "conditions":[{"type":"MemoryPressure","status":"False"},
                 {"type":"Ready","status":"True","lastHeartbeatTime":"2026-12-03T10:00:00Z",
                  "lastTransitionTime":"2026-12-01T00:00:00Z"}],
               "images":[{"names":["big:1"],"sizeBytes":1}],"nodeInfo":{"kubeletVersion":"v1"}}}
            """,
            Node.class);

    Node pruned = CachePruning.node(node);

    assertThat(pruned.getMetadata().getLabels()).isEqualTo(Map.of("a", "1", "b", "2"));
    assertThat(pruned.getSpec().getTaints()).isEqualTo(node.getSpec().getTaints());
    assertThat(pruned.getSpec().getUnschedulable()).isTrue();
    assertThat(pruned.getSpec().getPodCIDR()).isNull();
    assertThat(pruned.getStatus().getConditions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getType()).isEqualTo("Ready");
              assertThat(c.getLastHeartbeatTime()).isNull();
            });
    assertThat(pruned.getStatus().getAllocatable()).isEqualTo(node.getStatus().getAllocatable());
    assertThat(pruned.getStatus().getImages()).isNullOrEmpty();
    assertThat(NodeChange.matters(pruned, node)).isFalse();
  }

  @Test
  void theAnalyzerSeesThePrunedPodAndNodeExactlyAsTheOriginals() {
    Pod pod = toolkitPod();
    assertThat(KubeViews.pod(CachePruning.pod(pod))).isEqualTo(KubeViews.pod(pod));
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("gpu-node-1")
            .withCreationTimestamp("2026-12-01T00:00:00Z")
            .addToLabels("nvidia.com/gpu.present", "true")
            .endMetadata()
            .withNewSpec()
            .addNewTaint()
            .withKey("nvidia.com/gpu")
            .withEffect("NoSchedule")
            .endTaint()
            .endSpec()
            .withNewStatus()
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .withLastHeartbeatTime("2026-12-02T10:00:00Z")
            .withLastTransitionTime("2026-12-01T00:00:00Z")
            .endCondition()
            .addNewCondition()
            .withType("DrainInProgress")
            .withStatus("True")
            .withLastHeartbeatTime("2026-12-02T10:00:00Z")
            .withLastTransitionTime("2026-12-02T09:00:00Z")
            .endCondition()
            .addNewCondition()
            .withType("MemoryPressure")
            .withStatus("False")
            .endCondition()
            .addNewImage()
            .withNames("nvcr.io/nvidia/k8s/container-toolkit:v1.14.3")
            .withSizeBytes(123456789L)
            .endImage()
            .endStatus()
            .build();
    assertThat(KubeViews.node(CachePruning.node(node))).isEqualTo(KubeViews.node(node));
    // A maintenance condition is read (KEP-5683); the others are pruned.
    assertThat(KubeViews.node(node).maintenance())
        .containsExactly(
            new dev.stallwatch.rollout.Maintenance.Signal(
                "DrainInProgress", java.time.Instant.parse("2026-12-02T09:00:00Z")));
    assertThat(CachePruning.node(node).getStatus().getConditions())
        .extracting(c -> c.getType())
        .containsExactly("Ready", "DrainInProgress");
    assertThat(bytes(CachePruning.node(node))).isLessThan(bytes(node));
  }

  @Test
  void aRevisionOfAnotherOwnerKeepsOnlyItsMetadata() {
    ControllerRevision statefulSetRevision =
        new ControllerRevisionBuilder()
            .withNewMetadata()
            .withName("db-5b8c")
            .withNamespace("data")
            .addNewOwnerReference()
            .withKind("StatefulSet")
            .withName("db")
            .endOwnerReference()
            .endMetadata()
            .withRevision(3L)
            .withData(Map.of("spec", Map.of("template", Map.of("big", "x".repeat(500)))))
            .build();
    ControllerRevision pruned = CachePruning.revision(statefulSetRevision);
    assertThat(pruned.getData()).isNull();
    assertThat(pruned.getRevision()).isEqualTo(3L);
  }

  @Test
  void aDaemonSetLosesManagedFieldsAndLastAppliedButKeepsItsOwnAnnotations() {
    DaemonSet ds =
        new DaemonSetBuilder()
            .withNewMetadata()
            .withName("toolkit")
            .addToAnnotations(CachePruning.LAST_APPLIED, "{\"huge\":true}")
            .addToAnnotations(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION, "2")
            .withManagedFields(new ManagedFieldsEntryBuilder().withManager("kubectl").build())
            .endMetadata()
            .withNewSpec()
            .withMinReadySeconds(10)
            .endSpec()
            .build();
    DaemonSet pruned = CachePruning.daemonSet(ds);
    assertThat(pruned.getMetadata().getAnnotations())
        .containsOnlyKeys(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION);
    assertThat(pruned.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(pruned.getSpec()).isEqualTo(ds.getSpec());
  }

  @Test
  void aDaemonSetWithAMegabyteOfAnnotationsIsCachedWithOnlyTheOnesTheOperatorReads() {
    DaemonSetBuilder huge =
        new DaemonSetBuilder()
            .withNewMetadata()
            .withName("toolkit")
            .addToAnnotations(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION, "2")
            .addToAnnotations(MetadataKeys.AUTO_ROLLBACK, "true")
            .addToAnnotations(MetadataKeys.ROLLED_BACK_FROM, "abc")
            .endMetadata()
            .withNewSpec()
            .withMinReadySeconds(10)
            .endSpec();
    for (int i = 0; i < 16; i++) {
      huge.editMetadata()
          .addToAnnotations("example.com/blob-" + i, "x".repeat(64 * 1024))
          .endMetadata();
    }
    DaemonSet ds = huge.build();
    assertThat(bytes(ds)).isGreaterThan(1 << 20);

    DaemonSet pruned = CachePruning.daemonSet(ds);

    assertThat(pruned.getMetadata().getAnnotations())
        .containsOnlyKeys(
            MetadataKeys.TEMPLATE_GENERATION_ANNOTATION,
            MetadataKeys.AUTO_ROLLBACK,
            MetadataKeys.ROLLED_BACK_FROM);
    assertThat(bytes(pruned)).isLessThan(1024);
    assertThat(ds.getMetadata().getAnnotations()).hasSize(19); // the informer's object is untouched
  }

  @Test
  void aNodeWithTwoHundredLabelsKeepsThemForNodeSelectorsAndAffinity() {
    var node =
        new io.fabric8.kubernetes.api.model.NodeBuilder()
            .withNewMetadata()
            .withName("node-1")
            .endMetadata()
            .build();
    for (int i = 0; i < 200; i++) {
      node.getMetadata().getLabels().put("example.com/feature-" + i, "value-" + i);
    }

    var pruned = CachePruning.node(node);

    assertThat(pruned.getMetadata().getLabels()).hasSize(200);
    assertThat(bytes(pruned)).isLessThan(bytes(node) + 1);
  }

  private int bytes(Object o) {
    return json.asJson(o).getBytes(StandardCharsets.UTF_8).length;
  }
}
