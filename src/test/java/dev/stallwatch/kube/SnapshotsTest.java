package dev.stallwatch.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.kube.dump.Dump;
import dev.stallwatch.rollout.PodView;
import dev.stallwatch.rollout.RevisionView;
import dev.stallwatch.rollout.RolloutSnapshot;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotsTest {
  static final String DS = "nvidia-container-toolkit-daemonset";

  @Test
  void a_snapshot_keeps_the_pods_and_revisions_of_the_daemonsets_namespace_and_every_node() {
    Dump dump = KubeFixtures.dump("imagepull-stalled.json");
    ObjectNode foreign = KubeFixtures.json("imagepull-stalled.json", "Pod", DS + "-9qmzl");
    foreign.with("metadata").put("namespace", "other").put("name", "elsewhere");
    ObjectNode foreignRev =
        KubeFixtures.json("imagepull-stalled.json", "ControllerRevision", DS + "-6d4f9b8c7d");
    foreignRev.with("metadata").put("namespace", "other");
    List<Pod> pods = new java.util.ArrayList<>(objects("imagepull-stalled.json", Pod.class));
    pods.add(KubeFixtures.object(foreign, Pod.class));
    List<ControllerRevision> revs =
        new java.util.ArrayList<>(dump.revisions().stream().map(Dump.Entry::object).toList());
    revs.add(KubeFixtures.object(foreignRev, ControllerRevision.class));

    RolloutSnapshot s =
        Snapshots.of(
            dump.daemonSets().get(0).object(),
            pods,
            objects("imagepull-stalled.json", Node.class),
            revs);

    assertThat(s.daemonSet().name()).isEqualTo(DS);
    assertThat(s.pods()).extracting(PodView::namespace).containsOnly("gpu-operator").hasSize(3);
    assertThat(s.revisions()).extracting(RevisionView::revision).containsExactlyInAnyOrder(1L, 2L);
    assertThat(s.nodes()).hasSize(3);
  }

  static <T extends io.fabric8.kubernetes.api.model.HasMetadata> List<T> objects(
      String dump, Class<T> type) {
    try {
      List<T> out = new java.util.ArrayList<>();
      for (var item : KubeJson.MAPPER.readTree(KubeFixtures.path(dump).toFile()).get("items")) {
        if (type.getSimpleName().equals(item.path("kind").asText())) {
          out.add(KubeJson.MAPPER.treeToValue(item, type));
        }
      }
      return out;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void a_live_snapshot_leaves_out_an_unreadable_pod_node_or_revision_and_names_each() {
    Dump base = KubeFixtures.dump("imagepull-stalled.json");
    ObjectNode badPod = KubeFixtures.json("imagepull-stalled.json", "Pod", DS + "-9qmzl");
    badPod.with("metadata").put("creationTimestamp", "last tuesday");
    ObjectNode badNode = KubeFixtures.json("imagepull-stalled.json", "Node", "gpu-node-3");
    badNode.with("metadata").put("name", "gpu-node-4").put("creationTimestamp", "soon");
    List<Pod> pods = new java.util.ArrayList<>(objects("imagepull-stalled.json", Pod.class));
    pods.add(KubeFixtures.object(badPod, Pod.class));
    List<Node> nodes = new java.util.ArrayList<>(objects("imagepull-stalled.json", Node.class));
    nodes.add(KubeFixtures.object(badNode, Node.class));

    Snapshots.Live live =
        Snapshots.live(
            base.daemonSets().get(0).object(),
            pods,
            nodes,
            base.revisions().stream().map(Dump.Entry::object).toList(),
            Snapshots.Views.FRESH);

    assertThat(live.snapshot().pods()).hasSize(3);
    assertThat(live.snapshot().nodes()).hasSize(3);
    assertThat(live.snapshot().revisions()).hasSize(2);
    assertThat(live.snapshot().unreadableNodes()).containsExactly("gpu-node-4");
    assertThat(live.errors())
        .containsExactly(
            "Pod gpu-operator/"
                + DS
                + "-9qmzl: metadata.creationTimestamp: \"last tuesday\" is not an RFC 3339 time"
                + " like 2026-12-02T16:00:00Z",
            "Node gpu-node-4: metadata.creationTimestamp: \"soon\" is not an"
                + " RFC 3339 time like 2026-12-02T16:00:00Z");
  }

  @Test
  void a_live_snapshot_takes_the_views_it_is_given() {
    Dump base = KubeFixtures.dump("imagepull-stalled.json");
    List<String> converted = new java.util.ArrayList<>();
    Snapshots.Views counting =
        new Snapshots.Views(
            p -> {
              converted.add(p.getMetadata().getName());
              return KubeViews.pod(p);
            },
            KubeViews::node,
            KubeViews::revision);

    Snapshots.live(
        base.daemonSets().get(0).object(),
        objects("imagepull-stalled.json", Pod.class),
        objects("imagepull-stalled.json", Node.class),
        base.revisions().stream().map(Dump.Entry::object).toList(),
        counting);

    assertThat(converted).hasSize(3);
  }
}
