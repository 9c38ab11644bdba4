package dev.stallwatch.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A rollback runs this version against RolloutStalls a later release wrote, with fields this one
 * does not know (the CRD stays the later one: Helm does not roll CRDs back). An object of the
 * packaged CRD's schema with every property set and an unknown field beside them at every level
 * must read as it reads without them; a type of {@code dev.stallwatch.crd} that refuses unknown
 * fields (Jackson's default for records) fails here, as the release before this test did in
 * UpgradeRealClusterIT's rollback.
 */
class ForwardCompatibilityTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final String LATER = "fieldOfALaterRelease";

  @Test
  void everyLevelOfARolloutStallReadsPastFieldsOfALaterRelease() throws IOException {
    JsonNode schema = schema();

    RolloutStall known = read(instance(schema, false));
    RolloutStall later = read(instance(schema, true));

    // fabric8's own types (the conditions) keep what they do not know in additionalProperties.
    assertThat(later)
        .usingRecursiveComparison()
        .ignoringFieldsMatchingRegexes(".*additionalProperties")
        .isEqualTo(known);
    assertThat(known.getStatus().nodes()).singleElement().extracting("name").isEqualTo("x");
    assertThat(known.getSpec().daemonSet()).isEqualTo("x");
  }

  private static RolloutStall read(ObjectNode status) {
    return Serialization.unmarshal(status.toString(), RolloutStall.class);
  }

  private static JsonNode schema() throws IOException {
    JsonNode crd =
        new ObjectMapper(new YAMLFactory()).readTree(Path.of(RolloutStall.CRD_RESOURCE).toFile());
    return crd.path("spec").path("versions").get(0).path("schema").path("openAPIV3Schema");
  }

  /** An object of {@code schema} with every property set; {@code later}: unknown fields too. */
  private static ObjectNode instance(JsonNode schema, boolean later) {
    ObjectNode root = (ObjectNode) value(schema, later);
    root.put("apiVersion", "stallwatch.dev/v1alpha1");
    root.put("kind", "RolloutStall");
    root.set("metadata", F.objectNode().put("name", "x").put("namespace", "y"));
    return root;
  }

  private static JsonNode value(JsonNode schema, boolean later) {
    switch (schema.path("type").asText("object")) {
      case "object" -> {
        ObjectNode o = F.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").fields();
            it.hasNext(); ) {
          Map.Entry<String, JsonNode> p = it.next();
          if (!p.getKey().equals("metadata")) {
            o.set(p.getKey(), value(p.getValue(), later));
          }
        }
        if (later) {
          o.put(LATER, "a value this version has never seen");
          o.set(LATER + "Object", F.objectNode().put("deep", 1));
        }
        return o;
      }
      case "array" -> {
        ArrayNode a = F.arrayNode();
        a.add(value(schema.path("items"), later));
        return a;
      }
      case "integer" -> {
        return F.numberNode(1);
      }
      case "number" -> {
        return F.numberNode(1.5);
      }
      case "boolean" -> {
        return F.booleanNode(true);
      }
      default -> {
        return F.textNode(
            schema.path("format").asText().equals("date-time") ? "2026-12-04T00:00:00Z" : "x");
      }
    }
  }
}
