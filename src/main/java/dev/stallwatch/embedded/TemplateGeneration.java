package dev.stallwatch.embedded;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.sim.TemplateGenerationRule;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * What the API server's DaemonSet strategy does on every write, and the mock server does not (the
 * rule itself is {@link TemplateGenerationRule}'s): the annotation {@value
 * MetadataKeys#TEMPLATE_GENERATION_ANNOTATION} starts at 1 and moves up by one, in the same write,
 * whenever {@code spec.template} changes; otherwise it keeps its stored value whatever the client
 * sent. Pods carry it as {@code pod-template-generation}, so a write that changed the template
 * without it would, for a moment, make old pods look updated.
 */
final class TemplateGeneration {
  private static final ObjectMapper JSON = Serialization.jsonMapper();

  private TemplateGeneration() {}

  /** True for a write to a DaemonSet itself (not its status). */
  static boolean appliesTo(String path) {
    String p = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    return p.contains("/daemonsets") && !p.endsWith("/status");
  }

  /**
   * The object to store for a DaemonSet write.
   *
   * @param stored the object as stored before this write, or null on create
   * @param written the object this write would store
   */
  static String adjust(String stored, String written) {
    try {
      JsonNode before = stored == null ? null : JSON.readTree(stored);
      JsonNode after = JSON.readTree(written);
      if (!(after instanceof ObjectNode)) {
        return written;
      }
      long generation =
          before == null
              ? TemplateGenerationRule.onCreate(annotation(after))
              : TemplateGenerationRule.onUpdate(
                  TemplateGenerationRule.read(annotation(before), 1),
                  TemplateGenerationRule.changed(template(before), template(after)));
      String value = Long.toString(generation);
      if (value.equals(annotation(after))) {
        return written;
      }
      ((ObjectNode) after)
          .with("metadata")
          .with("annotations")
          .put(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION, value);
      return JSON.writeValueAsString(after);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      return written;
    }
  }

  private static String annotation(JsonNode ds) {
    JsonNode value =
        ds.path("metadata").path("annotations").path(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION);
    return value.isValueNode() ? value.asText() : null;
  }

  private static PodTemplateSpec template(JsonNode ds) throws JsonProcessingException {
    JsonNode template = ds.path("spec").path("template");
    return template.isObject() ? JSON.treeToValue(template, PodTemplateSpec.class) : null;
  }
}
