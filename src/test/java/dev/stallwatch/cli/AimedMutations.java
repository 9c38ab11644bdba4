package dev.stallwatch.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.rollout.MetadataKeys;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;

/**
 * The mutations {@link DiagnoseFuzzTest} aims at what users' dumps get wrong: Events, apiVersions,
 * numbers and annotations. Each takes the seeded {@link Random}, so a failure reproduces.
 */
final class AimedMutations {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** Numeric fields the mapping and the analyzer read, by kind. */
  private static final List<String> NUMBERS =
      List.of(
          "metadata/generation",
          "status/observedGeneration",
          "status/desiredNumberScheduled",
          "status/currentNumberScheduled",
          "status/numberReady",
          "status/updatedNumberScheduled",
          "status/numberAvailable",
          "status/numberUnavailable",
          "status/numberMisscheduled",
          "spec/minReadySeconds",
          "spec/revisionHistoryLimit",
          "spec/updateStrategy/rollingUpdate/maxUnavailable",
          "spec/updateStrategy/rollingUpdate/maxSurge",
          "revision",
          "count",
          "status/containerStatuses/0/restartCount",
          "status/initContainerStatuses/0/state/terminated/exitCode",
          "spec/containers/0/resources/requests/cpu",
          "status/allocatable/nvidia.com~1gpu",
          "spec/template/spec/containers/0/ports/0/hostPort",
          "spec/terminationGracePeriodSeconds");

  private static final List<String> API_VERSIONS =
      List.of(
          "apps/v1beta2",
          "extensions/v1beta1",
          "apps.kruise.io/v1alpha1",
          "apps/v2",
          "v1",
          "events.k8s.io/v1",
          "APPS/V1",
          " apps/v1",
          "",
          "apps/");

  private static final List<String> ANNOTATIONS =
      List.of(
          MetadataKeys.TEMPLATE_GENERATION_ANNOTATION,
          MetadataKeys.TEMPLATE_GENERATION_ANNOTATION,
          MetadataKeys.ALLOW_NODE_EXCLUSION,
          "kubectl.kubernetes.io/last-applied-configuration",
          "x".repeat(300));

  private AimedMutations() {}

  /** An Event, often about the DaemonSet, often broken. */
  static ObjectNode event(Random r) {
    ObjectNode e = NODES.objectNode();
    boolean newApi = r.nextInt(4) == 0;
    e.put("apiVersion", newApi ? "events.k8s.io/v1" : "v1");
    e.put("kind", "Event");
    ObjectNode meta = e.putObject("metadata");
    meta.put("name", "nvidia-container-toolkit.18" + r.nextInt(1000));
    meta.put("namespace", pick(r, "gpu-operator", "gpu-operator", "default"));
    meta.put("creationTimestamp", pick(r, "2026-12-02T16:00:00Z", "2026-12-02T09:00:00Z", "bad"));
    ObjectNode subject = e.putObject(newApi ? "regarding" : "involvedObject");
    subject.put("kind", pick(r, "DaemonSet", "DaemonSet", "Pod", "daemonset", ""));
    subject.put("name", pick(r, "nvidia-container-toolkit", "nvidia-container-toolkit", "other"));
    subject.put("namespace", "gpu-operator");
    subject.put("apiVersion", "apps/v1");
    e.put(newApi ? "type" : "type", pick(r, "Warning", "Warning", "Normal", "warning", ""));
    e.put("reason", pick(r, "FailedCreate", "FailedCreate", "FailedCreate ", "SuccessfulCreate"));
    e.put(
        newApi ? "note" : "message",
        pick(
            r,
            "Error creating: pods \"nvidia-container-toolkit-x\" is forbidden: exceeded quota",
            "Error creating: admission webhook \"x\" denied the request",
            "",
            "m".repeat(4_000)));
    e.put(
        newApi ? "eventTime" : "lastTimestamp",
        pick(r, "2026-12-02T16:10:00Z", "2026-12-02T16:10:00.123456Z", "2026-13-45T99:99:99Z", ""));
    if (r.nextBoolean()) {
      e.put("firstTimestamp", "2026-12-02T15:00:00Z");
    }
    e.put("count", r.nextInt(1000));
    // Then break one field of it.
    if (r.nextBoolean()) {
      String[] fields = {
        "type", "reason", "message", "lastTimestamp", "count", "involvedObject", "metadata"
      };
      String field = fields[r.nextInt(fields.length)];
      JsonNode value = garbage(r);
      if (value == null) {
        e.remove(field);
      } else {
        e.set(field, value);
      }
    }
    return e;
  }

  /** One aimed mutation of one item: an apiVersion, a number or an annotation. */
  static void mutate(ArrayNode items, Random r) {
    if (items.isEmpty()) {
      return;
    }
    JsonNode picked = items.get(r.nextInt(items.size()));
    if (!(picked instanceof ObjectNode item)) {
      return;
    }
    switch (r.nextInt(3)) {
      case 0 -> apiVersion(item, r);
      case 1 -> number(item, r);
      default -> annotation(item, r);
    }
  }

  private static void apiVersion(ObjectNode item, Random r) {
    switch (r.nextInt(4)) {
      case 0 -> item.remove("apiVersion");
      case 1 -> item.set("apiVersion", garbage(r));
      default -> item.put("apiVersion", API_VERSIONS.get(r.nextInt(API_VERSIONS.size())));
    }
  }

  private static void number(ObjectNode item, Random r) {
    String path = NUMBERS.get(r.nextInt(NUMBERS.size()));
    int slash = path.lastIndexOf('/');
    JsonNode parent = slash < 0 ? item : item.at("/" + path.substring(0, slash));
    String key = path.substring(slash + 1).replace("~1", "/");
    if (!(parent instanceof ObjectNode obj)) {
      return;
    }
    JsonNode value = oddNumber(r);
    if (value == null) {
      obj.remove(key);
    } else {
      obj.set(key, value);
    }
  }

  private static void annotation(ObjectNode item, Random r) {
    JsonNode meta = item.get("metadata");
    if (!(meta instanceof ObjectNode metadata)) {
      return;
    }
    JsonNode existing = metadata.get("annotations");
    ObjectNode annotations =
        existing instanceof ObjectNode obj ? obj : metadata.putObject("annotations");
    String key = ANNOTATIONS.get(r.nextInt(ANNOTATIONS.size()));
    switch (r.nextInt(12)) {
      case 0 -> annotations.put(key, "abc");
      case 1 -> annotations.put(key, "");
      case 2 -> annotations.put(key, "-1");
      case 3 -> annotations.put(key, "1.5");
      case 4 -> annotations.put(key, "99999999999999999999999");
      case 5 -> annotations.put(key, "9".repeat(10_000));
      case 6 -> annotations.put(key, 2);
      case 7 -> annotations.putNull(key);
      case 8 -> annotations.set(key, NODES.objectNode().put("a", "b"));
      case 9 -> annotations.put(key, " 2 ");
      case 10 -> metadata.put("annotations", "not a map");
      default -> annotations.put(key, "0x2");
    }
  }

  /** 1.5, 1e30, -1, huge, a string, null, …; null means "remove the field". */
  static JsonNode oddNumber(Random r) {
    return switch (r.nextInt(16)) {
      case 0 -> null;
      case 1 -> NODES.numberNode(1.5);
      case 2 -> NODES.numberNode(1e30);
      case 3 -> NODES.numberNode(-1);
      case 4 -> NODES.numberNode(Long.MAX_VALUE);
      case 5 -> NODES.numberNode(new BigInteger("1" + "0".repeat(40)));
      case 6 -> NODES.numberNode(new BigDecimal("1E+400"));
      case 7 -> NODES.textNode("3");
      case 8 -> NODES.textNode("abc");
      case 9 -> NODES.nullNode();
      case 10 -> NODES.booleanNode(true);
      case 11 -> NODES.numberNode(2.0);
      case 12 -> NODES.numberNode(-0.0);
      case 13 -> NODES.numberNode(Integer.MIN_VALUE);
      case 14 -> NODES.textNode("150%");
      default -> NODES.numberNode(Integer.MAX_VALUE + 1L);
    };
  }

  private static JsonNode garbage(Random r) {
    return switch (r.nextInt(7)) {
      case 0 -> null;
      case 1 -> NODES.nullNode();
      case 2 -> NODES.numberNode(42);
      case 3 -> NODES.objectNode();
      case 4 -> NODES.arrayNode().add("x");
      case 5 -> NODES.booleanNode(false);
      default -> NODES.textNode("");
    };
  }

  @SafeVarargs
  private static <T> T pick(Random r, T... options) {
    return options[r.nextInt(options.length)];
  }
}
