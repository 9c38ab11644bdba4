package dev.stallwatch.kube;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.rollout.PodTemplateView;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Pod templates as the analyzer sees them, from a DaemonSet's {@code spec.template} or from what a
 * ControllerRevision stores, with one canonical form for both so they compare as upstream's {@code
 * Match} does. The one place revision data is parsed ({@link #storedTemplate}), written ({@link
 * #revisionData}) and compared with a template ({@link #matches}): the analyzer's views, {@code
 * rollback} and the simulator all go through here.
 */
public final class PodTemplates {

  /** Upstream stores the template as a strategic-merge patch carrying this directive. */
  private static final String PATCH_DIRECTIVE = "$patch";

  /** Writes revision data with sorted keys, so equal templates store equal bytes. */
  private static final ObjectMapper SORTED =
      KubeJson.MAPPER.copy().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

  private PodTemplates() {}

  /** The view of a template; {@code what}/{@code field} name it in errors. */
  public static PodTemplateView view(PodTemplateSpec template, String what, String field) {
    if (template == null) {
      throw InvalidObjectException.field(what, field, "is missing");
    }
    PodSpec spec = template.getSpec() == null ? new PodSpec() : template.getSpec();
    return new PodTemplateView(
        template.getMetadata() == null
            ? null
            : KubeViews.strings(template.getMetadata().getLabels()),
        KubeViews.strings(spec.getNodeSelector()),
        requiredNodeAffinity(spec.getAffinity()),
        KubeViews.map(
            spec.getTolerations(),
            t ->
                new PodTemplateView.Toleration(
                    t.getKey(),
                    t.getOperator(),
                    t.getValue(),
                    t.getEffect(),
                    t.getTolerationSeconds())),
        spec.getNodeName(),
        Boolean.TRUE.equals(spec.getHostNetwork()),
        KubeViews.map(spec.getInitContainers(), PodTemplates::container),
        KubeViews.map(spec.getContainers(), PodTemplates::container),
        canonical(template));
  }

  /**
   * The template a ControllerRevision's {@code data} stores ({@code
   * {"spec":{"template":{…,"$patch":"replace"}}}}), or null when it holds none that can be read.
   */
  public static PodTemplateView fromRevisionData(Object data) {
    PodTemplateSpec template = storedTemplate(data);
    if (template == null) {
      return null;
    }
    try {
      return view(template, "ControllerRevision data", "spec.template");
    } catch (RuntimeException e) {
      return null; // an unreadable stored template only means "cannot match by template"
    }
  }

  /**
   * The one parse of a ControllerRevision's {@code data} into the template it stores: {@code
   * {"spec":{"template":{…,"$patch":"replace"}}}} (a strategic-merge patch, as upstream stores it;
   * as a map, a {@code JsonNode} or JSON text). Null when it holds none that can be read.
   */
  public static PodTemplateSpec storedTemplate(Object data) {
    if (data == null) {
      return null;
    }
    try {
      JsonNode node = data instanceof JsonNode j ? j : KubeJson.MAPPER.valueToTree(data);
      if (node != null && node.isTextual()) {
        node = KubeJson.MAPPER.readTree(node.asText());
      }
      JsonNode template = node == null ? null : node.path("spec").path("template");
      if (template == null || !template.isObject()) {
        return null;
      }
      ObjectNode copy = ((ObjectNode) template).deepCopy();
      copy.remove(PATCH_DIRECTIVE);
      return KubeJson.MAPPER.treeToValue(copy, PodTemplateSpec.class);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * What a ControllerRevision of {@code template} stores in {@code .data}, as upstream's {@code
   * getPatch} writes it: {@code {"spec":{"template":{…,"$patch":"replace"}}}}, keys sorted.
   */
  public static Map<String, Object> revisionData(PodTemplateSpec template) {
    @SuppressWarnings("unchecked")
    Map<String, Object> tpl = SORTED.convertValue(template, LinkedHashMap.class);
    tpl.put(PATCH_DIRECTIVE, "replace");
    return Map.of("spec", Map.of("template", tpl));
  }

  /**
   * Upstream's {@code Match(ds, history)}: the revision's {@code data} stores {@code template}. A
   * semantic compare of the two templates ({@link #canonical}: key order, nulls, empty objects and
   * lists do not count), never the hash label. False when the data holds no readable template.
   */
  public static boolean matches(PodTemplateSpec template, Object revisionData) {
    return sameTemplate(template, storedTemplate(revisionData));
  }

  /** True when both templates are present and equal in {@link #canonical} form. */
  public static boolean sameTemplate(PodTemplateSpec a, PodTemplateSpec b) {
    if (a == null || b == null) {
      return false;
    }
    String ca = canonical(a);
    return ca != null && ca.equals(canonical(b));
  }

  /**
   * A canonical JSON of a template: keys sorted, nulls, empty objects, empty lists and {@code
   * $patch} dropped. Equal templates give equal strings whichever way they were read.
   */
  public static String canonical(PodTemplateSpec template) {
    JsonNode tree = KubeJson.MAPPER.valueToTree(template);
    try {
      return KubeJson.MAPPER.writeValueAsString(normalize(tree));
    } catch (JsonProcessingException e) {
      return null; // cannot happen for a tree; null means "unknown" to the analyzer
    }
  }

  private static JsonNode normalize(JsonNode node) {
    if (node.isObject()) {
      Map<String, JsonNode> sorted = new TreeMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode value = normalize(e.getValue());
        if (!PATCH_DIRECTIVE.equals(e.getKey()) && !absent(value)) {
          sorted.put(e.getKey(), value);
        }
      }
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      sorted.forEach(out::set);
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      node.forEach(item -> out.add(normalize(item)));
      return out;
    }
    return node;
  }

  private static boolean absent(JsonNode value) {
    return value == null
        || value.isNull()
        || value.isMissingNode()
        || (value.isContainerNode() && value.isEmpty());
  }

  private static List<PodTemplateView.NodeSelectorTerm> requiredNodeAffinity(Affinity affinity) {
    if (affinity == null
        || affinity.getNodeAffinity() == null
        || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
      return null;
    }
    var terms =
        affinity
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms();
    List<PodTemplateView.NodeSelectorTerm> out = new ArrayList<>();
    for (var term :
        terms == null ? List.<io.fabric8.kubernetes.api.model.NodeSelectorTerm>of() : terms) {
      if (term != null) {
        out.add(
            new PodTemplateView.NodeSelectorTerm(
                KubeViews.map(term.getMatchExpressions(), PodTemplates::requirement),
                KubeViews.map(term.getMatchFields(), PodTemplates::requirement)));
      }
    }
    return out;
  }

  private static PodTemplateView.Requirement requirement(NodeSelectorRequirement r) {
    return new PodTemplateView.Requirement(
        r.getKey(),
        r.getOperator(),
        r.getValues() == null ? null : r.getValues().stream().filter(Objects::nonNull).toList());
  }

  private static PodTemplateView.Container container(Container c) {
    Map<String, String> requests = new LinkedHashMap<>();
    if (c.getResources() != null && c.getResources().getRequests() != null) {
      for (Map.Entry<String, Quantity> e : c.getResources().getRequests().entrySet()) {
        if (e.getKey() != null && e.getValue() != null) {
          requests.put(e.getKey(), quantity(e.getValue()));
        }
      }
    }
    // A limit without a request (usual for nvidia.com/gpu) is what the scheduler counts.
    if (c.getResources() != null && c.getResources().getLimits() != null) {
      for (Map.Entry<String, Quantity> e : c.getResources().getLimits().entrySet()) {
        if (e.getKey() != null && e.getValue() != null) {
          requests.putIfAbsent(e.getKey(), quantity(e.getValue()));
        }
      }
    }
    List<Integer> hostPorts =
        c.getPorts() == null
            ? List.of()
            : c.getPorts().stream()
                .filter(p -> p != null && p.getHostPort() != null && p.getHostPort() > 0)
                .map(p -> p.getHostPort())
                .toList();
    return new PodTemplateView.Container(c.getName(), c.getImage(), requests, hostPorts);
  }

  /** A quantity as written in the manifest ({@code 500m}, {@code 1Gi}, {@code 2}). */
  static String quantity(Quantity q) {
    String amount = q.getAmount() == null ? "" : q.getAmount();
    return q.getFormat() == null ? amount : amount + q.getFormat();
  }
}
