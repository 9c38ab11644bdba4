package dev.stallwatch.kube.dump;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.rollout.Maintenance;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.OwnerRef;
import dev.stallwatch.rollout.PodView;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The analyzer's views of pods and nodes straight from one object's JSON, without a fabric8 model:
 * only the fields the analyzer reads are looked at. This is the fast path of {@link DumpReader};
 * anything unusual (a field of an unexpected JSON type, a missing name, a time that does not parse)
 * throws {@link Unusual}, and the reader then takes the fabric8 path ({@link KubeViews}) for that
 * one object, which decides, and words any error, exactly as before. For a well-formed object both
 * paths yield equal views ({@code TreeViewsTest}).
 */
public final class TreeViews {

  /** The fast path does not handle this object; take the fabric8 path. No stack trace. */
  static final class Unusual extends RuntimeException {
    private static final long serialVersionUID = 1L;
    static final Unusual INSTANCE = new Unusual();

    private Unusual() {
      super("unusual object", null, false, false);
    }
  }

  /**
   * Fields of a pod spec that fabric8 maps to lists: one of another type made the fabric8 path
   * reject the pod ("spec.tolerations: expected a list"), so the fast path leaves such pods to it.
   */
  private static final List<String> POD_SPEC_LISTS =
      List.of(
          "containers",
          "initContainers",
          "ephemeralContainers",
          "tolerations",
          "volumes",
          "imagePullSecrets",
          "hostAliases",
          "readinessGates",
          "topologySpreadConstraints",
          "resourceClaims",
          "schedulingGates");

  private TreeViews() {}

  /** The view of a pod, as {@link KubeViews#pod} makes it from the fabric8 model. */
  public static PodView pod(JsonNode pod) {
    JsonNode meta = object(pod.get("metadata"));
    if (meta == null) {
      throw Unusual.INSTANCE;
    }
    String name = text(meta.get("name"));
    if (name == null || name.isEmpty()) {
      throw Unusual.INSTANCE;
    }
    object(meta.get("annotations"));
    JsonNode spec = object(pod.get("spec"));
    JsonNode status = object(pod.get("status"));
    if (spec != null) {
      for (String list : POD_SPEC_LISTS) {
        array(spec.get(list));
      }
    }
    String nodeName = spec == null ? null : text(spec.get("nodeName"));
    return new PodView(
        text(meta.get("namespace")),
        name,
        text(meta.get("uid")),
        strings(meta.get("labels")),
        controller(meta.get("ownerReferences")),
        nodeName,
        targetNode(nodeName, spec),
        instant(meta.get("creationTimestamp")),
        instant(meta.get("deletionTimestamp")),
        status == null ? null : text(status.get("phase")),
        status == null ? null : text(status.get("reason")),
        status == null ? null : text(status.get("message")),
        podConditions(status == null ? null : status.get("conditions")),
        names(spec == null ? null : spec.get("initContainers"), "name"),
        names(spec == null ? null : spec.get("containers"), "image"),
        containerStatuses(status == null ? null : status.get("initContainerStatuses")),
        containerStatuses(status == null ? null : status.get("containerStatuses")));
  }

  /** The view of a node, as {@link KubeViews#node} makes it from the fabric8 model. */
  static NodeView node(JsonNode node) {
    JsonNode meta = object(node.get("metadata"));
    if (meta == null) {
      throw Unusual.INSTANCE;
    }
    String name = text(meta.get("name"));
    if (name == null || name.isEmpty()) {
      throw Unusual.INSTANCE;
    }
    JsonNode spec = object(node.get("spec"));
    List<NodeView.Taint> taints = List.of();
    boolean unschedulable = false;
    if (spec != null) {
      JsonNode list = array(spec.get("taints"));
      if (list != null) {
        taints = new ArrayList<>(list.size());
        for (JsonNode t : list) {
          if (t.isNull()) {
            continue;
          }
          object(t);
          taints.add(
              new NodeView.Taint(
                  text(t.get("key")),
                  text(t.get("value")),
                  text(t.get("effect")),
                  instant(t.get("timeAdded"))));
        }
      }
      unschedulable = Boolean.TRUE.equals(bool(spec.get("unschedulable")));
    }
    NodeView.Condition ready = null;
    List<Maintenance.Signal> maintenance = new ArrayList<>();
    JsonNode status = object(node.get("status"));
    JsonNode conditions = status == null ? null : array(status.get("conditions"));
    if (conditions != null) {
      for (JsonNode c : conditions) {
        if (c.isNull()) {
          continue;
        }
        object(c);
        String type = text(c.get("type"));
        if (Maintenance.isSignalCondition(type) && "True".equals(text(c.get("status")))) {
          maintenance.add(new Maintenance.Signal(type, instant(c.get("lastTransitionTime"))));
        }
        if ("Ready".equals(type)) {
          ready =
              new NodeView.Condition(
                  text(c.get("status")),
                  text(c.get("reason")),
                  text(c.get("message")),
                  instant(c.get("lastTransitionTime")));
        }
      }
    }
    return new NodeView(
        name,
        strings(meta.get("labels")),
        taints,
        unschedulable,
        ready,
        instant(meta.get("creationTimestamp")),
        maintenance);
  }

  private static List<PodView.Condition> podConditions(JsonNode node) {
    JsonNode list = array(node);
    if (list == null || list.isEmpty()) {
      return List.of();
    }
    List<PodView.Condition> out = new ArrayList<>(list.size());
    for (JsonNode c : list) {
      if (c.isNull()) {
        continue;
      }
      object(c);
      if (!PodView.readsCondition(text(c.get("type")))) {
        continue;
      }
      out.add(
          new PodView.Condition(
              text(c.get("type")),
              text(c.get("status")),
              text(c.get("reason")),
              text(c.get("message")),
              instant(c.get("lastTransitionTime"))));
    }
    return out;
  }

  private static List<PodView.ContainerStatus> containerStatuses(JsonNode node) {
    JsonNode list = array(node);
    if (list == null || list.isEmpty()) {
      return List.of();
    }
    List<PodView.ContainerStatus> out = new ArrayList<>(list.size());
    for (JsonNode s : list) {
      if (s.isNull()) {
        continue;
      }
      object(s);
      JsonNode state = object(s.get("state"));
      JsonNode waiting = state == null ? null : object(state.get("waiting"));
      JsonNode running = state == null ? null : object(state.get("running"));
      JsonNode terminated = state == null ? null : object(state.get("terminated"));
      JsonNode restarts = s.get("restartCount");
      out.add(
          new PodView.ContainerStatus(
              text(s.get("name")),
              text(s.get("image")),
              Boolean.TRUE.equals(bool(s.get("ready"))),
              restarts == null || restarts.isNull() ? 0 : integer(restarts),
              waiting == null ? null : text(waiting.get("reason")),
              waiting == null ? null : text(waiting.get("message")),
              running != null,
              terminated == null ? null : text(terminated.get("reason")),
              terminated == null ? null : exitCode(terminated.get("exitCode")),
              terminated == null ? null : text(terminated.get("message")),
              terminated == null ? 0 : signal(terminated.get("signal"))));
    }
    return out;
  }

  private static int signal(JsonNode n) {
    return n == null || n.isNull() ? 0 : integer(n);
  }

  private static Integer exitCode(JsonNode n) {
    return n == null || n.isNull() ? null : integer(n);
  }

  /** The field {@code field} of every item of a list of objects, "" where absent. */
  private static List<String> names(JsonNode node, String field) {
    JsonNode list = array(node);
    if (list == null || list.isEmpty()) {
      return List.of();
    }
    List<String> out = new ArrayList<>(list.size());
    for (JsonNode c : list) {
      if (c.isNull()) {
        continue;
      }
      object(c);
      String value = text(c.get(field));
      out.add(value == null ? "" : value);
    }
    return out;
  }

  /** As {@link KubeViews#targetNode}: nodeName, else the node a matchFields term pins. */
  private static String targetNode(String nodeName, JsonNode spec) {
    if (nodeName != null && !nodeName.isEmpty()) {
      return nodeName;
    }
    JsonNode affinity = spec == null ? null : object(spec.get("affinity"));
    JsonNode nodeAffinity = affinity == null ? null : object(affinity.get("nodeAffinity"));
    JsonNode required =
        nodeAffinity == null
            ? null
            : object(nodeAffinity.get("requiredDuringSchedulingIgnoredDuringExecution"));
    JsonNode terms = required == null ? null : array(required.get("nodeSelectorTerms"));
    if (terms == null) {
      return "";
    }
    for (JsonNode term : terms) {
      if (term.isNull()) {
        continue;
      }
      object(term);
      array(term.get("matchExpressions"));
      JsonNode fields = array(term.get("matchFields"));
      if (fields == null) {
        continue;
      }
      for (JsonNode req : fields) {
        if (req.isNull()) {
          continue;
        }
        object(req);
        JsonNode values = array(req.get("values"));
        if (values != null) {
          for (JsonNode v : values) {
            if (!v.isNull()) {
              text(v);
            }
          }
        }
        if ("metadata.name".equals(text(req.get("key")))
            && "In".equals(text(req.get("operator")))) {
          if (values == null || values.size() != 1) {
            return "";
          }
          String value = text(values.get(0));
          return value == null ? "" : value;
        }
      }
    }
    return "";
  }

  /** As {@link KubeViews#controller}: the controlling owner, else the only one, else null. */
  private static OwnerRef controller(JsonNode node) {
    JsonNode refs = array(node);
    if (refs == null || refs.isEmpty()) {
      return null;
    }
    OwnerRef found = null;
    for (JsonNode ref : refs) {
      if (ref.isNull()) {
        continue;
      }
      object(ref);
      OwnerRef owner =
          new OwnerRef(text(ref.get("kind")), text(ref.get("name")), text(ref.get("uid")));
      if (found == null && Boolean.TRUE.equals(bool(ref.get("controller")))) {
        found = owner;
      }
    }
    if (found != null) {
      return found;
    }
    if (refs.size() != 1 || refs.get(0).isNull()) {
      return null;
    }
    JsonNode only = refs.get(0);
    return new OwnerRef(text(only.get("kind")), text(only.get("name")), text(only.get("uid")));
  }

  /** As {@link KubeViews#strings}: a string map; a null value is "". */
  private static Map<String, String> strings(JsonNode node) {
    JsonNode map = object(node);
    if (map == null || map.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : map.properties()) {
      JsonNode v = e.getValue();
      out.put(e.getKey(), v.isNull() ? "" : text(v));
    }
    return out;
  }

  private static Instant instant(JsonNode node) {
    String text = text(node);
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(text.trim()).toInstant();
    } catch (DateTimeParseException e) {
      throw Unusual.INSTANCE; // the fabric8 path words the error
    }
  }

  /** A string, null for absent or JSON null; any other type is unusual. */
  private static String text(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual()) {
      throw Unusual.INSTANCE;
    }
    return node.textValue();
  }

  private static Boolean bool(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isBoolean()) {
      throw Unusual.INSTANCE;
    }
    return node.booleanValue();
  }

  private static int integer(JsonNode node) {
    if (!node.isInt()) {
      throw Unusual.INSTANCE;
    }
    return node.intValue();
  }

  /** An object, null for absent or JSON null; any other type is unusual. */
  private static JsonNode object(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isObject()) {
      throw Unusual.INSTANCE;
    }
    return node;
  }

  private static JsonNode array(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isArray()) {
      throw Unusual.INSTANCE;
    }
    return node;
  }
}
