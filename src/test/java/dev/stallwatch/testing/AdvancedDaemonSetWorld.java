package dev.stallwatch.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A small cluster around one OpenKruise Advanced DaemonSet, as kruise's controller leaves it: the
 * DaemonSet {@code kruise/agent} (revision {@code old1} rolled to {@code new2}, 10 minutes before
 * {@code now}), its two ControllerRevisions, nodes {@code node-1}… and one pod per node in the
 * state given. Kruise labels its pods {@code controller-revision-hash} only (no {@code
 * pod-template-generation}) and names the new revision in {@code status.updateRevision} (v1beta1)
 * or {@code status.daemonSetHash} (v1alpha1).
 */
public final class AdvancedDaemonSetWorld {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static final String NAMESPACE = "kruise";
  public static final String NAME = "agent";

  /** One pod's state in the world. */
  public enum Pod {
    OLD_READY,
    NEW_READY,
    NEW_IMAGE_PULL,
    NONE,
    OLD_PRE_DELETE,
    NEW_IN_PLACE_PULLING
  }

  public final ObjectNode ds;
  final Map<String, Pod> pods = new LinkedHashMap<>();
  final Map<String, Map<String, String>> nodeLabels = new LinkedHashMap<>();
  final String apiVersion;
  private final Instant now;

  public AdvancedDaemonSetWorld(String apiVersion, Instant now, Pod... states) {
    this.apiVersion = apiVersion;
    this.now = now;
    for (int i = 0; i < states.length; i++) {
      pods.put("node-" + (i + 1), states[i]);
      nodeLabels.put("node-" + (i + 1), new LinkedHashMap<>());
    }
    ds = JSON.createObjectNode();
    ds.put("apiVersion", apiVersion);
    ds.put("kind", "DaemonSet");
    ObjectNode meta = ds.putObject("metadata");
    meta.put("name", NAME);
    meta.put("namespace", NAMESPACE);
    meta.put("uid", "uid-agent");
    meta.put("generation", 2);
    meta.put("creationTimestamp", at(Duration.ofHours(-26)));
    ObjectNode spec = ds.putObject("spec");
    spec.putObject("selector").putObject("matchLabels").put("app", "agent");
    ObjectNode template = spec.putObject("template");
    template.putObject("metadata").putObject("labels").put("app", "agent");
    container(template.putObject("spec"), "registry.example/agent:2.0");
    ObjectNode strategy = spec.putObject("updateStrategy");
    strategy.put("type", "RollingUpdate");
    ObjectNode rolling = strategy.putObject("rollingUpdate");
    rolling.put("rollingUpdateType", "Standard");
    rolling.put("maxUnavailable", 1);
    rolling.put("maxSurge", 0);
    ObjectNode status = ds.putObject("status");
    status.put("observedGeneration", 2);
    int n = states.length;
    int withPod = (int) pods.values().stream().filter(p -> p != Pod.NONE).count();
    int updated = (int) pods.values().stream().filter(p -> p.name().startsWith("NEW")).count();
    int ready = (int) pods.values().stream().filter(p -> p.name().endsWith("READY")).count();
    status.put("desiredNumberScheduled", n);
    status.put("currentNumberScheduled", withPod);
    status.put("updatedNumberScheduled", updated);
    status.put("numberReady", ready);
    status.put("numberAvailable", ready);
    status.put("numberUnavailable", n - ready);
    status.put("numberMisscheduled", 0);
    status.put(apiVersion.endsWith("v1alpha1") ? "daemonSetHash" : "updateRevision", "new2");
  }

  public AdvancedDaemonSetWorld rolling(Consumer<ObjectNode> change) {
    change.accept((ObjectNode) ds.path("spec").path("updateStrategy").path("rollingUpdate"));
    return this;
  }

  public AdvancedDaemonSetWorld spec(Consumer<ObjectNode> change) {
    change.accept((ObjectNode) ds.path("spec"));
    return this;
  }

  public AdvancedDaemonSetWorld label(String node, String key, String value) {
    nodeLabels.get(node).put(key, value);
    return this;
  }

  /** Every object, as a {@code kind: List}. */
  public JsonNode dump() {
    ObjectNode list = JSON.createObjectNode();
    list.put("apiVersion", "v1");
    list.put("kind", "List");
    ArrayNode items = list.putArray("items");
    items.add(ds);
    items.add(revision("old1", 1, "registry.example/agent:1.0", at(Duration.ofHours(-26))));
    items.add(revision("new2", 2, "registry.example/agent:2.0", at(Duration.ofMinutes(-10))));
    nodeLabels.forEach((name, labels) -> items.add(node(name, labels)));
    pods.forEach(
        (node, state) -> {
          if (state != Pod.NONE) {
            items.add(pod(node, state));
          }
        });
    return list;
  }

  private ObjectNode revision(String hash, int number, String image, String created) {
    ObjectNode r = JSON.createObjectNode();
    r.put("apiVersion", "apps/v1");
    r.put("kind", "ControllerRevision");
    ObjectNode meta = r.putObject("metadata");
    meta.put("name", "agent-" + hash);
    meta.put("namespace", NAMESPACE);
    meta.put("creationTimestamp", created);
    meta.putObject("labels").put("controller-revision-hash", hash);
    owner(meta);
    r.put("revision", number);
    ObjectNode template = r.putObject("data").putObject("spec").putObject("template");
    template.putObject("metadata").putObject("labels").put("app", "agent");
    container(template.putObject("spec"), image);
    template.put("$patch", "replace");
    return r;
  }

  private void owner(ObjectNode meta) {
    ObjectNode o = meta.putArray("ownerReferences").addObject();
    o.put("apiVersion", apiVersion);
    o.put("kind", "DaemonSet");
    o.put("name", "agent");
    o.put("uid", "uid-agent");
    o.put("controller", true);
  }

  private ObjectNode node(String name, Map<String, String> labels) {
    ObjectNode n = JSON.createObjectNode();
    n.put("apiVersion", "v1");
    n.put("kind", "Node");
    ObjectNode meta = n.putObject("metadata");
    meta.put("name", name);
    ObjectNode l = meta.putObject("labels");
    l.put("kubernetes.io/hostname", name);
    labels.forEach(l::put);
    ObjectNode ready = n.putObject("status").putArray("conditions").addObject();
    ready.put("type", "Ready");
    ready.put("status", "True");
    ready.put("lastTransitionTime", at(Duration.ofHours(-27)));
    return n;
  }

  /** The pod of {@code state} on {@code node}. */
  public ObjectNode pod(String node, Pod state) {
    boolean isNew = state.name().startsWith("NEW");
    ObjectNode p = JSON.createObjectNode();
    p.put("apiVersion", "v1");
    p.put("kind", "Pod");
    ObjectNode meta = p.putObject("metadata");
    meta.put("name", "agent-" + node);
    meta.put("namespace", NAMESPACE);
    meta.put("uid", "uid-" + node);
    boolean createdNew = isNew && state != Pod.NEW_IN_PLACE_PULLING;
    meta.put(
        "creationTimestamp",
        createdNew ? at(Duration.ofMinutes(-9)) : at(Duration.ofHours(-26).plusMinutes(1)));
    ObjectNode labels = meta.putObject("labels");
    labels.put("app", "agent");
    labels.put("controller-revision-hash", isNew ? "new2" : "old1");
    if (state == Pod.OLD_PRE_DELETE) {
      labels.put("lifecycle.apps.kruise.io/state", "PreparingDelete");
    }
    owner(meta);
    ObjectNode spec = p.putObject("spec");
    spec.put("nodeName", node);
    container(spec, isNew ? "registry.example/agent:2.0" : "registry.example/agent:1.0");
    ObjectNode status = p.putObject("status");
    status.put("phase", state == Pod.NEW_IMAGE_PULL ? "Pending" : "Running");
    ArrayNode conditions = status.putArray("conditions");
    boolean ready =
        state.name().endsWith("READY")
            || state == Pod.OLD_PRE_DELETE
            || state == Pod.NEW_IN_PLACE_PULLING;
    ObjectNode c = conditions.addObject();
    c.put("type", "Ready");
    c.put("status", ready ? "True" : "False");
    c.put(
        "lastTransitionTime",
        createdNew
            ? at(Duration.ofMinutes(-9).plusSeconds(10))
            : at(Duration.ofHours(-26).plusMinutes(1).plusSeconds(10)));
    if (state == Pod.NEW_IN_PLACE_PULLING) {
      ObjectNode gate = conditions.addObject();
      gate.put("type", "InPlaceUpdateReady");
      gate.put("status", "False");
      gate.put("lastTransitionTime", at(Duration.ofMinutes(-2)));
    }
    ObjectNode cs = status.putArray("containerStatuses").addObject();
    cs.put("name", "agent");
    cs.put("image", isNew ? "registry.example/agent:2.0" : "registry.example/agent:1.0");
    cs.put("ready", ready);
    cs.put("restartCount", 0);
    if (state == Pod.NEW_IMAGE_PULL) {
      ObjectNode waiting = cs.putObject("state").putObject("waiting");
      waiting.put("reason", "ImagePullBackOff");
      waiting.put("message", "Back-off pulling image \"registry.example/agent:2.0\"");
    } else {
      cs.putObject("state")
          .putObject("running")
          .put("startedAt", at(Duration.ofHours(-26).plusMinutes(1).plusSeconds(5)));
    }
    return p;
  }

  private static void container(ObjectNode podSpec, String image) {
    ObjectNode c = podSpec.putArray("containers").addObject();
    c.put("name", "agent");
    c.put("image", image);
  }

  private String at(Duration offset) {
    return now.plus(offset).toString();
  }
}
