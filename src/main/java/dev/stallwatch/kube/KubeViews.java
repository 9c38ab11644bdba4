package dev.stallwatch.kube;

import dev.stallwatch.rollout.DaemonSetView;
import dev.stallwatch.rollout.EventView;
import dev.stallwatch.rollout.IntOrPercent;
import dev.stallwatch.rollout.Maintenance;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.ObjectRef;
import dev.stallwatch.rollout.OwnerRef;
import dev.stallwatch.rollout.PodTemplateView;
import dev.stallwatch.rollout.PodView;
import dev.stallwatch.rollout.RevisionView;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDaemonSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Turns fabric8 model objects into the analyzer's views. Absent fields take the values the API
 * server would default them to; a field that cannot mean anything (a budget of {@code "abc"}, a
 * timestamp that is not RFC 3339) is an {@link InvalidObjectException} naming object and field.
 */
public final class KubeViews {

  private static final String NODE_NAME_FIELD = "metadata.name";

  private KubeViews() {}

  /** The analyzer's view of a DaemonSet. */
  public static DaemonSetView daemonSet(DaemonSet ds) {
    String what = describe(ds);
    ObjectMeta meta = meta(ds);
    DaemonSetSpec spec = ds.getSpec();
    if (spec == null) {
      throw InvalidObjectException.field(what, "spec", "is missing");
    }
    PodTemplateView template = PodTemplates.view(spec.getTemplate(), what, "spec.template");
    return new DaemonSetView(
        new ObjectRef(meta.getNamespace(), meta.getName(), meta.getUid()),
        meta.getGeneration() == null ? 0 : meta.getGeneration(),
        templateGeneration(meta.getAnnotations(), what),
        strings(meta.getAnnotations()),
        template,
        strategy(spec.getUpdateStrategy(), what),
        spec.getMinReadySeconds() == null ? 0 : spec.getMinReadySeconds(),
        status(ds.getStatus()),
        instant(meta.getCreationTimestamp(), what, "metadata.creationTimestamp"),
        AdvancedViews.strategy(ds, what));
  }

  /** The analyzer's view of a pod. */
  public static PodView pod(Pod pod) {
    String what = describe(pod);
    ObjectMeta meta = meta(pod);
    PodSpec spec = Optional.ofNullable(pod.getSpec()).orElseGet(PodSpec::new);
    PodStatus status = Optional.ofNullable(pod.getStatus()).orElseGet(PodStatus::new);
    return new PodView(
        meta.getNamespace(),
        meta.getName(),
        meta.getUid(),
        strings(meta.getLabels()),
        controller(meta.getOwnerReferences()),
        spec.getNodeName(),
        targetNode(spec),
        instant(meta.getCreationTimestamp(), what, "metadata.creationTimestamp"),
        instant(meta.getDeletionTimestamp(), what, "metadata.deletionTimestamp"),
        status.getPhase(),
        status.getReason(),
        status.getMessage(),
        map(
            status.getConditions(),
            c -> PodView.readsCondition(c.getType()),
            c -> podCondition(c, what)),
        map(spec.getInitContainers(), c -> Objects.toString(c.getName(), "")),
        map(spec.getContainers(), c -> Objects.toString(c.getImage(), "")),
        map(status.getInitContainerStatuses(), KubeViews::containerStatus),
        map(status.getContainerStatuses(), KubeViews::containerStatus));
  }

  /** The analyzer's view of a node. */
  public static NodeView node(Node node) {
    String what = describe(node);
    ObjectMeta meta = meta(node);
    var spec = node.getSpec();
    List<NodeView.Taint> taints =
        spec == null
            ? List.of()
            : map(
                spec.getTaints(),
                t ->
                    new NodeView.Taint(
                        t.getKey(),
                        t.getValue(),
                        t.getEffect(),
                        instant(t.getTimeAdded(), what, "spec.taints[].timeAdded")));
    NodeView.Condition ready = null;
    List<Maintenance.Signal> maintenance = new ArrayList<>();
    if (node.getStatus() != null && node.getStatus().getConditions() != null) {
      for (NodeCondition c : node.getStatus().getConditions()) {
        if (c != null
            && Maintenance.isSignalCondition(c.getType())
            && "True".equals(c.getStatus())) {
          maintenance.add(
              new Maintenance.Signal(
                  c.getType(),
                  instant(
                      c.getLastTransitionTime(),
                      what,
                      "status.conditions[" + c.getType() + "].lastTransitionTime")));
        }
        if (c != null && "Ready".equals(c.getType())) {
          ready =
              new NodeView.Condition(
                  c.getStatus(),
                  c.getReason(),
                  c.getMessage(),
                  instant(
                      c.getLastTransitionTime(),
                      what,
                      "status.conditions[Ready].lastTransitionTime"));
        }
      }
    }
    return new NodeView(
        meta.getName(),
        strings(meta.getLabels()),
        taints,
        spec != null && Boolean.TRUE.equals(spec.getUnschedulable()),
        ready,
        instant(meta.getCreationTimestamp(), what, "metadata.creationTimestamp"),
        maintenance);
  }

  /**
   * The analyzer's view of a ControllerRevision. A revision whose stored template cannot be read
   * still counts (its hash and number are known); its template is then null.
   */
  public static RevisionView revision(ControllerRevision rev) {
    String what = describe(rev);
    ObjectMeta meta = meta(rev);
    OwnerRef owner = controller(meta.getOwnerReferences());
    return new RevisionView(
        meta.getName(),
        revisionHash(meta, owner),
        rev.getRevision() == null ? 0 : rev.getRevision(),
        instant(meta.getCreationTimestamp(), what, "metadata.creationTimestamp"),
        owner,
        PodTemplates.fromRevisionData(rev.getData()));
  }

  /** The analyzer's view of a core/v1 Event. */
  public static EventView event(io.fabric8.kubernetes.api.model.Event e) {
    String what = describe(e);
    ObjectMeta meta = meta(e);
    Instant last = instant(e.getLastTimestamp(), what, "lastTimestamp");
    if (last == null && e.getEventTime() != null) {
      last = instant(e.getEventTime().getTime(), what, "eventTime");
    }
    if (last == null) {
      last = instant(meta.getCreationTimestamp(), what, "metadata.creationTimestamp");
    }
    var about = e.getInvolvedObject();
    return new EventView(
        e.getType(),
        e.getReason(),
        e.getMessage(),
        last,
        about == null ? null : about.getKind(),
        about == null ? null : about.getName(),
        about == null ? null : about.getUid());
  }

  /** {@code Kind namespace/name}, how every message names an object. */
  public static String describe(HasMetadata obj) {
    String kind = obj.getKind() == null ? obj.getClass().getSimpleName() : obj.getKind();
    ObjectMeta meta = obj.getMetadata();
    if (meta == null || meta.getName() == null) {
      return kind + " without metadata.name";
    }
    return kind
        + " "
        + new ObjectRef(meta.getNamespace(), meta.getName(), meta.getUid()).toString();
  }

  private static ObjectMeta meta(HasMetadata obj) {
    ObjectMeta meta = obj.getMetadata();
    if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
      throw new InvalidObjectException(describe(obj) + ": metadata.name is missing");
    }
    return meta;
  }

  /**
   * The template generation the controller wrote. One that is not an integer would make every pod
   * look old (upstream's {@code IsPodUpdated} compares it with the pods' labels), so it is an
   * invalid DaemonSet rather than a silent "not updated".
   */
  private static Long templateGeneration(Map<String, String> annotations, String what) {
    String raw =
        annotations == null ? null : annotations.get(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION);
    if (raw == null) {
      return null;
    }
    try {
      return Long.parseLong(raw.trim());
    } catch (NumberFormatException e) {
      throw InvalidObjectException.field(
          what,
          "metadata.annotations[" + MetadataKeys.TEMPLATE_GENERATION_ANNOTATION + "]",
          "\""
              + raw
              + "\" is not an integer (the DaemonSet controller writes the template generation"
              + " there; pods are matched against it)");
    }
  }

  private static DaemonSetView.UpdateStrategy strategy(DaemonSetUpdateStrategy s, String what) {
    if (s == null) {
      return DaemonSetView.UpdateStrategy.DEFAULT;
    }
    boolean onDelete = "OnDelete".equals(s.getType());
    RollingUpdateDaemonSet rolling = s.getRollingUpdate();
    if (rolling == null) {
      return new DaemonSetView.UpdateStrategy(onDelete, null, null);
    }
    String path = "spec.updateStrategy.rollingUpdate.";
    return new DaemonSetView.UpdateStrategy(
        onDelete,
        budget(rolling.getMaxUnavailable(), what, path + "maxUnavailable"),
        budget(rolling.getMaxSurge(), what, path + "maxSurge"));
  }

  private static IntOrPercent budget(IntOrString raw, String what, String field) {
    if (raw == null || raw.getValue() == null) {
      return null;
    }
    try {
      return IntOrPercent.parse(raw.getValue());
    } catch (IllegalArgumentException e) {
      throw InvalidObjectException.field(what, field, e.getMessage());
    }
  }

  private static DaemonSetView.Status status(DaemonSetStatus s) {
    // The controller always writes desiredNumberScheduled; a status without it is not the
    // controller's report, and reading it as "0 desired" would make the rollout look complete.
    if (s == null || s.getDesiredNumberScheduled() == null) {
      return null;
    }
    return new DaemonSetView.Status(
        s.getObservedGeneration(),
        orZero(s.getDesiredNumberScheduled()),
        orZero(s.getCurrentNumberScheduled()),
        orZero(s.getNumberReady()),
        orZero(s.getUpdatedNumberScheduled()),
        orZero(s.getNumberAvailable()),
        orZero(s.getNumberUnavailable()),
        orZero(s.getNumberMisscheduled()));
  }

  /**
   * The node a pod is meant for, as its view's {@link PodView#targetNode} (empty when none),
   * without making the view: for the operator's pod index, which reads it for every pod event.
   */
  public static String targetNode(Pod pod) {
    String node = pod.getSpec() == null ? null : targetNode(pod.getSpec());
    return node == null ? "" : node;
  }

  /**
   * The node a pod is meant for: {@code spec.nodeName}, else the node its required node affinity
   * pins with {@code matchFields metadata.name In [node]} (how the DaemonSet controller creates
   * pods since scheduling moved to the default scheduler).
   */
  static String targetNode(PodSpec spec) {
    if (spec.getNodeName() != null && !spec.getNodeName().isEmpty()) {
      return spec.getNodeName();
    }
    if (spec.getAffinity() == null
        || spec.getAffinity().getNodeAffinity() == null
        || spec.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
            == null) {
      return "";
    }
    List<NodeSelectorTerm> terms =
        spec.getAffinity()
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms();
    for (NodeSelectorTerm term : terms == null ? List.<NodeSelectorTerm>of() : terms) {
      for (NodeSelectorRequirement req :
          term == null || term.getMatchFields() == null
              ? List.<NodeSelectorRequirement>of()
              : term.getMatchFields()) {
        if (req != null && NODE_NAME_FIELD.equals(req.getKey()) && "In".equals(req.getOperator())) {
          List<String> values = req.getValues();
          return values != null && values.size() == 1 ? values.get(0) : "";
        }
      }
    }
    return "";
  }

  /** The owner with {@code controller: true}, else the only owner, else null. */
  static OwnerRef controller(List<OwnerReference> refs) {
    if (refs == null || refs.isEmpty()) {
      return null;
    }
    for (OwnerReference ref : refs) {
      if (ref != null && Boolean.TRUE.equals(ref.getController())) {
        return new OwnerRef(ref.getKind(), ref.getName(), ref.getUid());
      }
    }
    OwnerReference only = refs.size() == 1 ? refs.get(0) : null;
    return only == null ? null : new OwnerRef(only.getKind(), only.getName(), only.getUid());
  }

  private static String revisionHash(ObjectMeta meta, OwnerRef owner) {
    Map<String, String> labels = meta.getLabels();
    if (labels != null && labels.get(MetadataKeys.REVISION_HASH_LABEL) != null) {
      return labels.get(MetadataKeys.REVISION_HASH_LABEL);
    }
    String name = meta.getName();
    if (owner != null && owner.name() != null && name.startsWith(owner.name() + "-")) {
      return name.substring(owner.name().length() + 1);
    }
    int dash = name.lastIndexOf('-');
    return dash < 0 ? name : name.substring(dash + 1);
  }

  private static PodView.Condition podCondition(PodCondition c, String what) {
    return new PodView.Condition(
        c.getType(),
        c.getStatus(),
        c.getReason(),
        c.getMessage(),
        instant(c.getLastTransitionTime(), what, "status.conditions[].lastTransitionTime"));
  }

  private static PodView.ContainerStatus containerStatus(
      io.fabric8.kubernetes.api.model.ContainerStatus s) {
    ContainerState state = Optional.ofNullable(s.getState()).orElseGet(ContainerState::new);
    var waiting = state.getWaiting();
    var terminated = state.getTerminated();
    return new PodView.ContainerStatus(
        s.getName(),
        s.getImage(),
        Boolean.TRUE.equals(s.getReady()),
        orZero(s.getRestartCount()),
        waiting == null ? null : waiting.getReason(),
        waiting == null ? null : waiting.getMessage(),
        state.getRunning() != null,
        terminated == null ? null : terminated.getReason(),
        terminated == null ? null : terminated.getExitCode(),
        terminated == null ? null : terminated.getMessage(),
        terminated == null || terminated.getSignal() == null ? 0 : terminated.getSignal());
  }

  /** Parses an API timestamp (RFC 3339, optionally with fractions); null stays null. */
  static Instant instant(String text, String what, String field) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(text.trim()).toInstant();
    } catch (DateTimeParseException e) {
      throw InvalidObjectException.field(
          what, field, "\"" + text + "\" is not an RFC 3339 time like 2026-12-02T16:00:00Z");
    }
  }

  static <T, R> List<R> map(List<T> items, Function<T, R> f) {
    return map(items, t -> true, f);
  }

  /** {@code f} of each non-null item that {@code kept} accepts, in order. */
  static <T, R> List<R> map(List<T> items, java.util.function.Predicate<T> kept, Function<T, R> f) {
    if (items == null) {
      return List.of();
    }
    return items.stream().filter(Objects::nonNull).filter(kept).map(f).toList();
  }

  /**
   * A label, annotation or selector map the views can hold: a null value (JSON {@code null}) is the
   * empty string, as the API server would store it; a null key is dropped.
   */
  static Map<String, String> strings(Map<String, String> map) {
    if (map == null) {
      return Map.of();
    }
    Map<String, String> out = new java.util.LinkedHashMap<>();
    map.forEach(
        (k, v) -> {
          if (k != null) {
            out.put(k, v == null ? "" : v);
          }
        });
    return out;
  }

  private static int orZero(Integer n) {
    return n == null ? 0 : n;
  }
}
