package dev.stallwatch.kube.dump;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.stallwatch.kube.KubeJson;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.testing.ScenarioFixture;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fast path (views straight from JSON) yields exactly the views of the fabric8 path ({@link
 * KubeViews}) for every pod and node of every fixture, and hands anything unusual to it.
 */
class TreeViewsTest {

  static Stream<Path> fixtures() throws IOException {
    List<Path> out = new ArrayList<>();
    for (Path dir : List.of(Path.of("src/test/resources/kube/dumps"), ScenarioFixture.DIR)) {
      try (Stream<Path> files = Files.list(dir)) {
        files.filter(f -> f.toString().matches(".*\\.(json|yaml)$")).sorted().forEach(out::add);
      }
    }
    return out.stream();
  }

  /** Every object with kind Pod or Node anywhere in a document. */
  static void objects(JsonNode node, String kind, List<JsonNode> out) {
    if (node.isObject()) {
      // an object, not a reference to one (an Event's involvedObject names its kind too)
      if (kind.equals(node.path("kind").asText()) && node.has("metadata")) {
        out.add(node);
        return;
      }
      node.forEach(child -> objects(child, kind, out));
    } else if (node.isArray()) {
      node.forEach(child -> objects(child, kind, out));
    }
  }

  static List<JsonNode> read(Path file, String kind) throws IOException {
    ObjectMapper mapper = file.toString().endsWith(".json") ? KubeJson.MAPPER : new YAMLMapper();
    List<JsonNode> out = new ArrayList<>();
    try (var it = mapper.readerFor(JsonNode.class).<JsonNode>readValues(file.toFile())) {
      while (it.hasNextValue()) {
        JsonNode doc = it.nextValue();
        if (doc != null) {
          objects(doc, kind, out);
        }
      }
    }
    return out;
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void pods_and_nodes_of_every_fixture_have_the_views_of_the_fabric8_path(Path file)
      throws IOException {
    for (JsonNode json : read(file, "Pod")) {
      JsonNode plain = KubeJson.MAPPER.readTree(KubeJson.MAPPER.writeValueAsString(json));
      assertThat(TreeViews.pod(plain))
          .as("%s: pod %s", file, json.path("metadata").path("name"))
          .isEqualTo(KubeViews.pod(KubeJson.MAPPER.treeToValue(plain, Pod.class)));
    }
    for (JsonNode json : read(file, "Node")) {
      JsonNode plain = KubeJson.MAPPER.readTree(KubeJson.MAPPER.writeValueAsString(json));
      assertThat(TreeViews.node(plain))
          .as("%s: node %s", file, json.path("metadata").path("name"))
          .isEqualTo(KubeViews.node(KubeJson.MAPPER.treeToValue(plain, Node.class)));
    }
  }

  @Test
  void the_large_generated_dump_has_the_views_of_the_fabric8_path() throws IOException {
    StringWriter out = new StringWriter();
    LargeDump.write(out, 30);
    List<JsonNode> pods = new ArrayList<>();
    List<JsonNode> nodes = new ArrayList<>();
    JsonNode dump = KubeJson.MAPPER.readTree(out.toString());
    objects(dump, "Pod", pods);
    objects(dump, "Node", nodes);
    assertThat(pods).hasSize(30);
    assertThat(nodes).hasSize(30);
    for (JsonNode pod : pods) {
      assertThat(TreeViews.pod(pod))
          .isEqualTo(KubeViews.pod(KubeJson.MAPPER.treeToValue(pod, Pod.class)));
    }
    for (JsonNode node : nodes) {
      assertThat(TreeViews.node(node))
          .isEqualTo(KubeViews.node(KubeJson.MAPPER.treeToValue(node, Node.class)));
    }
  }

  @Test
  void anything_unusual_is_left_to_the_fabric8_path() throws IOException {
    String pod =
        "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},"
            + "\"status\":{\"containerStatuses\":[{\"name\":\"c\",\"restartCount\":0}]}}";
    assertThat(TreeViews.pod(KubeJson.MAPPER.readTree(pod)).containerStatuses()).hasSize(1);
    for (String[] edit :
        new String[][] {
          {"\"restartCount\":0", "\"restartCount\":1.5"},
          {"\"restartCount\":0", "\"restartCount\":\"3\""},
          {"\"name\":\"p\",", ""},
          {"\"name\":\"p\"", "\"name\":\"\""},
          {"\"name\":\"p\"", "\"name\":7"},
          {"\"namespace\":\"ns\"}", "\"namespace\":\"ns\",\"labels\":[]}"},
          {"\"namespace\":\"ns\"}", "\"namespace\":\"ns\",\"creationTimestamp\":\"soon\"}"},
          {"\"status\":", "\"spec\":{\"tolerations\":\"everything\"},\"status\":"},
        }) {
      JsonNode json = KubeJson.MAPPER.readTree(pod.replace(edit[0], edit[1]));
      assertThatThrownBy(() -> TreeViews.pod(json))
          .as(edit[1])
          .isInstanceOf(TreeViews.Unusual.class);
    }
    ObjectNode node =
        (ObjectNode)
            KubeJson.MAPPER.readTree(
                "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\"},"
                    + "\"spec\":{\"unschedulable\":\"yes\"}}");
    assertThatThrownBy(() -> TreeViews.node(node)).isInstanceOf(TreeViews.Unusual.class);
  }
}
