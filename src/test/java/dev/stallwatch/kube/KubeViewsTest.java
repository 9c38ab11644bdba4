package dev.stallwatch.kube;

import static dev.stallwatch.kube.KubeFixtures.json;
import static dev.stallwatch.kube.KubeFixtures.object;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.kube.dump.TreeViews;
import dev.stallwatch.rollout.DaemonSetView;
import dev.stallwatch.rollout.IntOrPercent;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.OwnerRef;
import dev.stallwatch.rollout.PodTemplateView;
import dev.stallwatch.rollout.PodView;
import dev.stallwatch.rollout.RevisionView;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class KubeViewsTest {
  static final String STALLED = "imagepull-stalled.json";
  static final String DS = "nvidia-container-toolkit-daemonset";

  static DaemonSet ds(ObjectNode json) {
    return object(json, DaemonSet.class);
  }

  static ObjectNode dsJson() {
    return json(STALLED, "DaemonSet", DS);
  }

  @Nested
  class DaemonSets {
    @Test
    void a_kubectl_daemonset_maps_identity_generation_strategy_and_status() {
      DaemonSetView v = KubeViews.daemonSet(ds(dsJson()));

      assertThat(v.ref().toString()).isEqualTo("gpu-operator/" + DS);
      assertThat(v.ref().uid()).isEqualTo("8c1f0b0e-6a43-4c1e-9d3a-2f1b7e5d9a10");
      assertThat(v.generation()).isEqualTo(2);
      assertThat(v.templateGeneration()).isEqualTo(2L);
      assertThat(v.strategy().onDelete()).isFalse();
      assertThat(v.strategy().maxUnavailable()).isEqualTo(new IntOrPercent(1, false));
      assertThat(v.strategy().maxSurge()).isEqualTo(IntOrPercent.ZERO);
      assertThat(v.minReadySeconds()).isZero();
      assertThat(v.created()).isEqualTo(Instant.parse("2026-11-20T09:12:44Z"));
      assertThat(v.status().observedGeneration()).isEqualTo(2L);
      assertThat(v.status().counts())
          .isEqualTo(new dev.stallwatch.rollout.Counts(3, 3, 2, 1, 2, 1, 0));
      assertThat(v.template().images())
          .containsExactly("nvcr.io/nvidia/k8s/container-toolkit:v1.17.9-ubuntu20.04");
      assertThat(v.template().nodeSelector())
          .containsEntry("nvidia.com/gpu.deploy.container-toolkit", "true");
      assertThat(v.template().tolerations())
          .containsExactly(
              new PodTemplateView.Toleration("nvidia.com/gpu", "Exists", "", "NoSchedule", null));
      assertThat(v.template().initContainers())
          .extracting(PodTemplateView.Container::name)
          .containsExactly("driver-validation");
      assertThat(v.template().canonical()).isNotBlank();
    }

    @Test
    void an_invalid_max_unavailable_names_object_field_and_value() {
      ObjectNode json = dsJson();
      json.with("metadata").put("namespace", "gpu").put("name", "nvidia-toolkit");
      json.with("spec").with("updateStrategy").with("rollingUpdate").put("maxUnavailable", "abc");

      assertThatThrownBy(() -> KubeViews.daemonSet(ds(json)))
          .isInstanceOf(InvalidObjectException.class)
          .hasMessage(
              "DaemonSet gpu/nvidia-toolkit: spec.updateStrategy.rollingUpdate.maxUnavailable:"
                  + " \"abc\" is neither an integer nor a percentage like \"25%\"");
    }

    @Test
    void a_negative_max_surge_is_invalid() {
      ObjectNode json = dsJson();
      json.with("spec").with("updateStrategy").with("rollingUpdate").put("maxSurge", -1);

      assertThatThrownBy(() -> KubeViews.daemonSet(ds(json)))
          .isInstanceOf(InvalidObjectException.class)
          .hasMessageContaining("spec.updateStrategy.rollingUpdate.maxSurge");
    }

    @Test
    void percentages_and_on_delete_are_read() {
      ObjectNode json = dsJson();
      json.with("spec").with("updateStrategy").put("type", "OnDelete");
      json.with("spec").with("updateStrategy").with("rollingUpdate").put("maxUnavailable", "25%");

      DaemonSetView.UpdateStrategy s = KubeViews.daemonSet(ds(json)).strategy();

      assertThat(s.onDelete()).isTrue();
      assertThat(s.maxUnavailable()).isEqualTo(new IntOrPercent(25, true));
    }

    @Test
    void an_absent_rolling_update_takes_the_api_defaults() {
      ObjectNode json = dsJson();
      json.with("spec").with("updateStrategy").remove("rollingUpdate");

      assertThat(KubeViews.daemonSet(ds(json)).strategy())
          .isEqualTo(DaemonSetView.UpdateStrategy.DEFAULT);

      json.with("spec").remove("updateStrategy");
      assertThat(KubeViews.daemonSet(ds(json)).strategy())
          .isEqualTo(DaemonSetView.UpdateStrategy.DEFAULT);
    }

    @Test
    void an_absent_status_is_null_and_absent_numbers_are_zero() {
      ObjectNode json = dsJson();
      json.remove("status");
      assertThat(KubeViews.daemonSet(ds(json)).status()).isNull();

      json.putObject("status").put("desiredNumberScheduled", 3);
      DaemonSetView.Status status = KubeViews.daemonSet(ds(json)).status();
      assertThat(status.desiredNumberScheduled()).isEqualTo(3);
      assertThat(status.numberAvailable()).isZero();
      assertThat(status.observedGeneration()).isNull();
    }

    @Test
    void a_status_without_desired_number_scheduled_is_not_the_controllers_report() {
      // kstatus's dsBadStatus: read as "0 desired" it looked complete (peers/kstatus-bad-status).
      ObjectNode json = dsJson();
      json.putObject("status").put("observedGeneration", 1).put("currentReplicas", 1);

      assertThat(KubeViews.daemonSet(ds(json)).status()).isNull();
    }

    @Test
    void an_unparsable_template_generation_makes_the_daemonset_invalid_an_absent_one_is_null() {
      ObjectNode json = dsJson();
      json.with("metadata")
          .with("annotations")
          .put(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION, "abc");
      assertThatThrownBy(() -> KubeViews.daemonSet(ds(json)))
          .isInstanceOf(InvalidObjectException.class)
          .hasMessageContaining(
              "metadata.annotations[deprecated.daemonset.template.generation]: \"abc\" is not an"
                  + " integer");

      json.with("metadata").with("annotations").remove(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION);
      assertThat(KubeViews.daemonSet(ds(json)).templateGeneration()).isNull();
    }

    @Test
    void a_bad_timestamp_names_the_field() {
      ObjectNode json = dsJson();
      json.with("metadata").put("creationTimestamp", "yesterday");

      assertThatThrownBy(() -> KubeViews.daemonSet(ds(json)))
          .isInstanceOf(InvalidObjectException.class)
          .hasMessage(
              "DaemonSet gpu-operator/"
                  + DS
                  + ": metadata.creationTimestamp: \"yesterday\" is not an RFC 3339 time like"
                  + " 2026-12-02T16:00:00Z");
    }

    @Test
    void a_daemonset_without_spec_or_template_is_invalid() {
      ObjectNode json = dsJson();
      json.with("spec").remove("template");
      assertThatThrownBy(() -> KubeViews.daemonSet(ds(json)))
          .hasMessage("DaemonSet gpu-operator/" + DS + ": spec.template: is missing");
    }
  }

  @Nested
  class Pods {
    @Test
    void a_pod_stuck_pulling_its_image_keeps_owner_node_and_container_states() {
      PodView p = KubeViews.pod(object(STALLED, "Pod", DS + "-x7k2p", Pod.class));

      assertThat(p.owner())
          .isEqualTo(new OwnerRef("DaemonSet", DS, "8c1f0b0e-6a43-4c1e-9d3a-2f1b7e5d9a10"));
      assertThat(p.nodeName()).isEqualTo("gpu-node-1");
      assertThat(p.targetNode()).isEqualTo("gpu-node-1");
      assertThat(p.phase()).isEqualTo("Pending");
      assertThat(p.labels()).containsEntry(MetadataKeys.REVISION_HASH_LABEL, "7c9d5f6b84");
      assertThat(p.created()).isEqualTo(Instant.parse("2026-12-02T16:00:03Z"));
      assertThat(p.deletionTimestamp()).isNull();
      assertThat(p.images())
          .containsExactly("nvcr.io/nvidia/k8s/container-toolkit:v1.17.9-ubuntu20.04");
      assertThat(p.initContainerNames()).containsExactly("driver-validation");
      assertThat(p.condition("Ready"))
          .get()
          .extracting(PodView.Condition::status)
          .isEqualTo("False");
      PodView.ContainerStatus main = p.containerStatuses().get(0);
      assertThat(main.waiting()).isTrue();
      assertThat(main.waitingReason()).isEqualTo("ImagePullBackOff");
      assertThat(main.waitingMessage()).startsWith("Back-off pulling image");
      PodView.ContainerStatus init = p.initContainerStatuses().get(0);
      assertThat(init.terminated()).isTrue();
      assertThat(init.terminatedReason()).isEqualTo("Completed");
      assertThat(init.terminatedExitCode()).isZero();
    }

    @Test
    void an_unscheduled_pod_targets_the_node_its_affinity_pins() {
      PodView p = KubeViews.pod(object("insufficient-gpu.json", "Pod", DS + "-p5t9x", Pod.class));

      assertThat(p.nodeName()).isEmpty();
      assertThat(p.targetNode()).isEqualTo("gpu-node-1");
      assertThat(p.condition("PodScheduled").get().reason()).isEqualTo("Unschedulable");
      assertThat(p.condition("PodScheduled").get().message())
          .contains("Insufficient nvidia.com/gpu");
    }

    @Test
    void an_affinity_with_several_names_or_another_operator_pins_no_node() {
      ObjectNode json = json("insufficient-gpu.json", "Pod", DS + "-p5t9x");
      ObjectNode field =
          (ObjectNode)
              json.at(
                  "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution"
                      + "/nodeSelectorTerms/0/matchFields/0");
      field.putArray("values").add("gpu-node-1").add("gpu-node-2");
      assertThat(KubeViews.pod(object(json, Pod.class)).targetNode()).isEmpty();

      field.putArray("values").add("gpu-node-2");
      field.put("operator", "NotIn");
      assertThat(KubeViews.pod(object(json, Pod.class)).targetNode()).isEmpty();
    }

    @Test
    void the_owner_is_the_controller_else_the_only_reference() {
      OwnerReference gc = ref("ReplicaSet", "rs", null);
      OwnerReference controller = ref("DaemonSet", "ds", true);
      assertThat(KubeViews.controller(List.of(gc, controller)))
          .isEqualTo(new OwnerRef("DaemonSet", "ds", "uid-ds"));
      assertThat(KubeViews.controller(List.of(gc)))
          .isEqualTo(new OwnerRef("ReplicaSet", "rs", "uid-rs"));
      assertThat(KubeViews.controller(List.of(gc, ref("Node", "n", false)))).isNull();
      assertThat(KubeViews.controller(null)).isNull();
    }

    @Test
    void only_the_conditions_the_analysis_reads_are_kept_and_only_they_must_be_readable() {
      ObjectNode json = json(STALLED, "Pod", DS + "-x7k2p");
      var conditions = json.with("status").withArray("conditions");
      conditions.addObject().put("type", "Initialized").put("lastTransitionTime", "soon");
      conditions.addObject().put("type", "ContainersReady").put("status", "False");
      conditions.addObject().put("status", "True"); // no type

      PodView p = KubeViews.pod(object(json, Pod.class));

      assertThat(p.conditions())
          .extracting(PodView.Condition::type)
          .containsExactly("Ready", "PodScheduled")
          .allMatch(PodView::readsCondition);
      assertThat(TreeViews.pod(json)).isEqualTo(p);
    }

    @Test
    void a_terminating_pod_carries_its_deletion_timestamp() {
      ObjectNode json = json(STALLED, "Pod", DS + "-9qmzl");
      json.with("metadata").put("deletionTimestamp", "2026-12-02T16:00:01Z");

      PodView p = KubeViews.pod(object(json, Pod.class));

      assertThat(p.terminating()).isTrue();
      assertThat(p.deletionTimestamp()).isEqualTo(Instant.parse("2026-12-02T16:00:01Z"));
    }

    private OwnerReference ref(String kind, String name, Boolean controller) {
      return new OwnerReferenceBuilder()
          .withKind(kind)
          .withName(name)
          .withUid("uid-" + name)
          .withController(controller)
          .build();
    }
  }

  @Nested
  class Nodes {
    @Test
    void a_ready_gpu_node_maps_labels_taints_and_ready_condition() {
      NodeView n = KubeViews.node(object(STALLED, "Node", "gpu-node-1", Node.class));

      assertThat(n.name()).isEqualTo("gpu-node-1");
      assertThat(n.labels()).containsEntry("nvidia.com/gpu.present", "true");
      assertThat(n.taints())
          .containsExactly(new NodeView.Taint("nvidia.com/gpu", "present", "NoSchedule", null));
      assertThat(n.unschedulable()).isFalse();
      assertThat(n.ready().status()).isEqualTo("True");
      assertThat(n.ready().reason()).isEqualTo("KubeletReady");
    }

    @Test
    void a_cordoned_unreachable_node_maps_its_taint_time_and_unknown_readiness() {
      ObjectNode json = json(STALLED, "Node", "gpu-node-2");
      json.with("spec").put("unschedulable", true);
      json.with("spec")
          .putArray("taints")
          .addObject()
          .put("key", "node.kubernetes.io/unreachable")
          .put("effect", "NoExecute")
          .put("timeAdded", "2026-12-02T15:59:17Z");
      ((ObjectNode) json.at("/status/conditions/3")).put("status", "Unknown");

      NodeView n = KubeViews.node(object(json, Node.class));

      assertThat(n.unschedulable()).isTrue();
      assertThat(n.taints())
          .containsExactly(
              new NodeView.Taint(
                  "node.kubernetes.io/unreachable",
                  "",
                  "NoExecute",
                  Instant.parse("2026-12-02T15:59:17Z")));
      assertThat(n.ready().status()).isEqualTo("Unknown");
    }

    @Test
    void a_node_without_conditions_has_no_ready_condition() {
      ObjectNode json = json(STALLED, "Node", "gpu-node-3");
      json.remove("status");
      assertThat(KubeViews.node(object(json, Node.class)).ready()).isNull();
    }
  }

  @Nested
  class Revisions {
    @Test
    void the_revision_matching_the_template_has_the_same_canonical_form() {
      DaemonSetView ds = KubeViews.daemonSet(ds(dsJson()));
      RevisionView current =
          KubeViews.revision(
              object(STALLED, "ControllerRevision", DS + "-7c9d5f6b84", ControllerRevision.class));
      RevisionView previous =
          KubeViews.revision(
              object(STALLED, "ControllerRevision", DS + "-6d4f9b8c7d", ControllerRevision.class));

      assertThat(current.hash()).isEqualTo("7c9d5f6b84");
      assertThat(current.revision()).isEqualTo(2);
      assertThat(current.owner().name()).isEqualTo(DS);
      assertThat(current.template().canonical()).isEqualTo(ds.template().canonical());
      assertThat(previous.template().canonical()).isNotEqualTo(ds.template().canonical());
      assertThat(previous.template().images())
          .containsExactly("nvcr.io/nvidia/k8s/container-toolkit:v1.17.4-ubuntu20.04");
      assertThat(current.template().canonical()).doesNotContain("$patch");
    }

    @Test
    void the_canonical_form_ignores_key_order_nulls_and_empty_objects() {
      ObjectNode rev = json(STALLED, "ControllerRevision", DS + "-7c9d5f6b84");
      ObjectNode template = (ObjectNode) rev.at("/data/spec/template");
      ObjectNode reordered = KubeJson.MAPPER.createObjectNode();
      reordered.set("spec", template.get("spec"));
      reordered.putNull("status");
      reordered.set("metadata", template.get("metadata"));
      reordered.putObject("extra");
      ((ObjectNode) rev.at("/data/spec")).set("template", reordered);

      RevisionView v = KubeViews.revision(object(rev, ControllerRevision.class));

      assertThat(v.template().canonical())
          .isEqualTo(KubeViews.daemonSet(ds(dsJson())).template().canonical());
    }

    @Test
    void a_revision_without_hash_label_takes_the_name_suffix() {
      ObjectNode rev = json(STALLED, "ControllerRevision", DS + "-6d4f9b8c7d");
      rev.with("metadata").with("labels").remove(MetadataKeys.REVISION_HASH_LABEL);
      assertThat(KubeViews.revision(object(rev, ControllerRevision.class)).hash())
          .isEqualTo("6d4f9b8c7d");
    }

    @Test
    void unreadable_revision_data_leaves_the_template_unknown_but_keeps_the_revision() {
      ObjectNode rev = json(STALLED, "ControllerRevision", DS + "-6d4f9b8c7d");
      rev.put("data", "not a template");
      RevisionView v = KubeViews.revision(object(rev, ControllerRevision.class));
      assertThat(v.template()).isNull();
      assertThat(v.revision()).isEqualTo(1);

      rev.remove("data");
      assertThat(KubeViews.revision(object(rev, ControllerRevision.class)).template()).isNull();

      rev.putObject("data").putObject("spec").putArray("template");
      assertThat(KubeViews.revision(object(rev, ControllerRevision.class)).template()).isNull();
    }

    @Test
    void revision_data_given_as_a_json_string_is_read() throws Exception {
      ObjectNode rev = json(STALLED, "ControllerRevision", DS + "-7c9d5f6b84");
      rev.put("data", KubeJson.MAPPER.writeValueAsString(rev.get("data")));
      RevisionView v = KubeViews.revision(object(rev, ControllerRevision.class));
      assertThat(v.template().images())
          .containsExactly("nvcr.io/nvidia/k8s/container-toolkit:v1.17.9-ubuntu20.04");
    }
  }

  @Test
  void null_label_and_selector_values_read_as_empty_strings() {
    ObjectNode pod = json(STALLED, "Pod", DS + "-x7k2p");
    pod.with("metadata").with("labels").putNull(MetadataKeys.TEMPLATE_GENERATION_LABEL);
    ObjectNode node = json(STALLED, "Node", "gpu-node-1");
    node.with("metadata").with("labels").putNull("nvidia.com/gpu.present");
    ObjectNode ds = dsJson();
    ds.with("metadata").with("annotations").putNull("team");
    ((ObjectNode) ds.at("/spec/template/spec/nodeSelector")).putNull("zone");

    assertThat(KubeViews.pod(object(pod, Pod.class)).labels())
        .containsEntry(MetadataKeys.TEMPLATE_GENERATION_LABEL, "");
    assertThat(KubeViews.node(object(node, Node.class)).labels())
        .containsEntry("nvidia.com/gpu.present", "");
    DaemonSetView view = KubeViews.daemonSet(ds(ds));
    assertThat(view.annotations()).containsEntry("team", "");
    assertThat(view.template().nodeSelector()).containsEntry("zone", "");
  }

  @Test
  void resource_requests_are_kept_as_written() {
    DaemonSetView ds =
        KubeViews.daemonSet(object("insufficient-gpu.json", "DaemonSet", DS, DaemonSet.class));
    assertThat(ds.template().containers().get(0).requests())
        .isEqualTo(Map.of("cpu", "100m", "memory", "64Mi", "nvidia.com/gpu", "1"));
  }
}
