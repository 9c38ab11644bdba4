package dev.stallwatch.kube.dump;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.kube.KubeFixtures;
import dev.stallwatch.kube.KubeJson;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DumpSnapshotsTest {
  static final String DS = "nvidia-container-toolkit-daemonset";

  @Test
  void a_dump_groups_into_one_snapshot_per_daemonset() {
    DumpSnapshots.Grouped g = DumpSnapshots.group(KubeFixtures.dump("imagepull-stalled.json"));
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
    DumpSnapshots.Grouped g =
        DumpSnapshots.group(KubeFixtures.dump("one-malformed-daemonset.json"));

    assertThat(g.snapshots()).extracting(s -> s.daemonSet().name()).containsExactly(DS);
    assertThat(g.errors())
        .containsExactly(
            file
                + " items[0]: DaemonSet gpu-operator/dcgm-exporter:"
                + " spec.updateStrategy.rollingUpdate.maxUnavailable: \"abc\" is neither an"
                + " integer nor a percentage like \"25%\"");
  }

  @Test
  void a_malformed_pod_or_node_is_dropped_with_an_error(@TempDir Path dir) throws IOException {
    ObjectNode badPod = KubeFixtures.json("imagepull-stalled.json", "Pod", DS + "-9qmzl");
    badPod.with("metadata").put("creationTimestamp", "last tuesday");
    ObjectNode badNode = KubeFixtures.json("imagepull-stalled.json", "Node", "gpu-node-3");
    badNode.with("metadata").put("name", "gpu-node-4").put("creationTimestamp", "soon");
    ObjectNode list =
        (ObjectNode) KubeJson.MAPPER.readTree(KubeFixtures.path("imagepull-stalled.json").toFile());
    ArrayNode items = list.withArray("items");
    items.add(badPod.deepCopy().put("kind", "Pod"));
    items.add(badNode);
    // the original pod is read first; the edited copy is then a duplicate: rename it
    ((ObjectNode) items.get(items.size() - 2).get("metadata")).put("name", DS + "-zzzzz");
    Path file = dir.resolve("x.json");
    KubeJson.MAPPER.writeValue(file.toFile(), list);
    int podAt = items.size() - 2;

    DumpSnapshots.Grouped g = DumpSnapshots.group(KubeFixtures.dump(file));

    assertThat(g.snapshots().get(0).pods()).hasSize(3);
    assertThat(g.snapshots().get(0).nodes()).hasSize(3);
    assertThat(g.snapshots().get(0).unreadableNodes()).contains("gpu-node-4");
    assertThat(g.errors())
        .containsExactly(
            file
                + " items["
                + podAt
                + "]: Pod gpu-operator/"
                + DS
                + "-zzzzz: metadata.creationTimestamp: \"last tuesday\" is not an RFC 3339 time"
                + " like 2026-12-02T16:00:00Z",
            file
                + " items["
                + (podAt + 1)
                + "]: Node gpu-node-4: metadata.creationTimestamp: \"soon\" is not an"
                + " RFC 3339 time like 2026-12-02T16:00:00Z");
  }
}
