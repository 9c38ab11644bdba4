package dev.stallwatch.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.rollout.PodView;
import dev.stallwatch.rollout.RevisionView;
import dev.stallwatch.rollout.RolloutSnapshot;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotsTest {
  static final String DS = "nvidia-container-toolkit-daemonset";

  Dump dump(String name) {
    return new DumpReader(java.io.InputStream.nullInputStream())
        .read(List.of(KubeFixtures.path(name).toString()));
  }

  @Test
  void a_snapshot_keeps_the_pods_and_revisions_of_the_daemonsets_namespace_and_every_node() {
    Dump dump = dump("imagepull-stalled.json");
    ObjectNode foreign = KubeFixtures.json("imagepull-stalled.json", "Pod", DS + "-9qmzl");
    foreign.with("metadata").put("namespace", "other").put("name", "elsewhere");
    ObjectNode foreignRev =
        KubeFixtures.json("imagepull-stalled.json", "ControllerRevision", DS + "-6d4f9b8c7d");
    foreignRev.with("metadata").put("namespace", "other");
    List<Pod> pods =
        new java.util.ArrayList<>(dump.pods().stream().map(Dump.Entry::object).toList());
    pods.add(KubeFixtures.object(foreign, Pod.class));
    List<ControllerRevision> revs =
        new java.util.ArrayList<>(dump.revisions().stream().map(Dump.Entry::object).toList());
    revs.add(KubeFixtures.object(foreignRev, ControllerRevision.class));

    RolloutSnapshot s =
        Snapshots.of(
            dump.daemonSets().get(0).object(),
            pods,
            dump.nodes().stream().map(Dump.Entry::object).toList(),
            revs);

    assertThat(s.daemonSet().name()).isEqualTo(DS);
    assertThat(s.pods()).extracting(PodView::namespace).containsOnly("gpu-operator").hasSize(3);
    assertThat(s.revisions()).extracting(RevisionView::revision).containsExactlyInAnyOrder(1L, 2L);
    assertThat(s.nodes()).hasSize(3);
  }

  @Test
  void a_dump_groups_into_one_snapshot_per_daemonset() {
    Snapshots.Grouped g = Snapshots.group(dump("imagepull-stalled.json"));
    assertThat(g.errors()).isEmpty();
    assertThat(g.snapshots())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.pods()).hasSize(3);
              assertThat(s.nodes()).hasSize(3);
              assertThat(s.revisions()).hasSize(2);
            });
  }

  @Test
  void a_malformed_daemonset_is_left_out_with_an_error_and_the_others_are_grouped() {
    String file = KubeFixtures.path("one-malformed-daemonset.json").toString();
    Snapshots.Grouped g = Snapshots.group(dump("one-malformed-daemonset.json"));

    assertThat(g.snapshots()).extracting(s -> s.daemonSet().name()).containsExactly(DS);
    assertThat(g.errors())
        .containsExactly(
            file
                + " items[0]: DaemonSet gpu-operator/dcgm-exporter:"
                + " spec.updateStrategy.rollingUpdate.maxUnavailable: \"abc\" is neither an"
                + " integer nor a percentage like \"25%\"");
  }

  @Test
  void a_malformed_pod_or_node_is_dropped_with_an_error() {
    Dump base = dump("imagepull-stalled.json");
    ObjectNode badPod = KubeFixtures.json("imagepull-stalled.json", "Pod", DS + "-9qmzl");
    badPod.with("metadata").put("creationTimestamp", "last tuesday");
    ObjectNode badNode = KubeFixtures.json("imagepull-stalled.json", "Node", "gpu-node-3");
    badNode.with("metadata").put("name", "gpu-node-4").put("creationTimestamp", "soon");
    Dump dump =
        new Dump(
            base.daemonSets(),
            List.of(
                base.pods().get(0),
                new Dump.Entry<>(KubeFixtures.object(badPod, Pod.class), "x.json items[2]")),
            List.of(
                base.nodes().get(0),
                new Dump.Entry<>(KubeFixtures.object(badNode, Node.class), "x.json items[9]")),
            base.revisions(),
            base.ignored(),
            List.of());

    Snapshots.Grouped g = Snapshots.group(dump);

    assertThat(g.snapshots().get(0).pods()).hasSize(1);
    assertThat(g.snapshots().get(0).nodes()).hasSize(1);
    assertThat(g.errors())
        .containsExactly(
            "x.json items[2]: Pod gpu-operator/"
                + DS
                + "-9qmzl: metadata.creationTimestamp: \"last tuesday\" is not an RFC 3339 time"
                + " like 2026-12-02T16:00:00Z",
            "x.json items[9]: Node gpu-node-4: metadata.creationTimestamp: \"soon\" is not an"
                + " RFC 3339 time like 2026-12-02T16:00:00Z");
  }

  @Test
  void a_live_snapshot_leaves_out_an_unreadable_pod_node_or_revision_and_names_each() {
    Dump base = dump("imagepull-stalled.json");
    ObjectNode badPod = KubeFixtures.json("imagepull-stalled.json", "Pod", DS + "-9qmzl");
    badPod.with("metadata").put("creationTimestamp", "last tuesday");
    ObjectNode badNode = KubeFixtures.json("imagepull-stalled.json", "Node", "gpu-node-3");
    badNode.with("metadata").put("name", "gpu-node-4").put("creationTimestamp", "soon");
    List<Pod> pods =
        new java.util.ArrayList<>(base.pods().stream().map(Dump.Entry::object).toList());
    pods.add(KubeFixtures.object(badPod, Pod.class));
    List<Node> nodes =
        new java.util.ArrayList<>(base.nodes().stream().map(Dump.Entry::object).toList());
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
    Dump base = dump("imagepull-stalled.json");
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
        base.pods().stream().map(Dump.Entry::object).toList(),
        base.nodes().stream().map(Dump.Entry::object).toList(),
        base.revisions().stream().map(Dump.Entry::object).toList(),
        counting);

    assertThat(converted).hasSize(3);
  }
}
