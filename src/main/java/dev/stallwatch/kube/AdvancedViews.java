package dev.stallwatch.kube;

import dev.stallwatch.rollout.AdvancedStrategy;
import dev.stallwatch.rollout.IntOrPercent;
import dev.stallwatch.rollout.PodTemplateView.Requirement;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads what an OpenKruise Advanced DaemonSet ({@code apps.kruise.io}) adds to an {@code apps/v1}
 * one. Its object maps onto fabric8's DaemonSet model, which keeps the fields it does not know
 * (partition, selector, paused, rollingUpdateType, lifecycle, scaleStrategy, updateRevision) as
 * additional properties; they are read from there. Nothing here throws on a misread field: what
 * kruise's controller cannot read is named on the verdict instead.
 */
public final class AdvancedViews {
  /** The Advanced DaemonSet versions stallwatch judges; other kruise versions are unsupported. */
  public static final List<String> VERSIONS =
      List.of(AdvancedStrategy.GROUP + "/v1beta1", AdvancedStrategy.GROUP + "/v1alpha1");

  private AdvancedViews() {}

  /** The Advanced DaemonSet's strategy; null for an {@code apps/v1} DaemonSet. */
  static AdvancedStrategy strategy(DaemonSet ds, String what) {
    String api = ds.getApiVersion() == null ? "" : ds.getApiVersion().trim();
    if (!AdvancedStrategy.isAdvanced(api)) {
      return null;
    }
    DaemonSetSpec spec = ds.getSpec();
    Map<String, Object> rolling =
        spec.getUpdateStrategy() == null || spec.getUpdateStrategy().getRollingUpdate() == null
            ? Map.of()
            : spec.getUpdateStrategy().getRollingUpdate().getAdditionalProperties();
    Partition partition = partition(rolling.get("partition"));
    Map<String, Object> lifecycle = map(spec.getAdditionalProperties().get("lifecycle"));
    Map<String, Object> scale = map(spec.getAdditionalProperties().get("scaleStrategy"));
    Map<String, String> annotations =
        ds.getMetadata().getAnnotations() == null ? Map.of() : ds.getMetadata().getAnnotations();
    Map<String, Object> status =
        ds.getStatus() == null ? Map.of() : ds.getStatus().getAdditionalProperties();
    Object revision = status.getOrDefault("updateRevision", status.get("daemonSetHash"));
    return new AdvancedStrategy(
        api,
        text(rolling.get("rollingUpdateType")),
        partition.value(),
        partition.note(),
        partition.readable(),
        selector(rolling.get("selector")),
        truth(rolling.get("paused")),
        lifecycle.get("preDelete") != null,
        truth(scale.get("partitionedScaling"))
            || "true"
                .equalsIgnoreCase(
                    annotations
                        .getOrDefault(AdvancedStrategy.PROGRESSIVE_CREATE_ANNOTATION, "")
                        .trim()),
        text(revision));
  }

  private record Partition(IntOrPercent value, String note, boolean readable) {}

  /**
   * {@code rollingUpdate.partition} as kruise's controller scales it: a number, or a string with a
   * percentage; a negative one works as 0; any other string is an error there, which stops the
   * rolling update.
   */
  private static Partition partition(Object raw) {
    if (raw == null) {
      return new Partition(null, "", true);
    }
    if (raw instanceof Number n) {
      return n.intValue() < 0
          ? new Partition(null, negative(raw), true)
          : new Partition(new IntOrPercent(n.intValue(), false), "", true);
    }
    String s = raw.toString().trim();
    if (s.endsWith("%")) {
      try {
        int v = Integer.parseInt(s.substring(0, s.length() - 1).trim());
        return v < 0
            ? new Partition(null, negative(raw), true)
            : new Partition(new IntOrPercent(v, true), "", true);
      } catch (NumberFormatException e) {
        // fall through: not a percentage either
      }
    }
    return new Partition(
        null,
        "rollingUpdate.partition \""
            + s
            + "\" is a string but not a percentage: kruise's controller cannot scale it and"
            + " updates no node until it is a number or a percentage",
        false);
  }

  private static String negative(Object raw) {
    return "rollingUpdate.partition " + raw + " is negative: kruise's controller holds no node";
  }

  private static AdvancedStrategy.Selector selector(Object raw) {
    Map<String, Object> m = map(raw);
    if (raw == null) {
      return null;
    }
    Map<String, String> labels = new LinkedHashMap<>();
    map(m.get("matchLabels")).forEach((k, v) -> labels.put(k, text(v)));
    List<Requirement> expressions = new ArrayList<>();
    if (m.get("matchExpressions") instanceof List<?> list) {
      for (Object o : list) {
        Map<String, Object> e = map(o);
        List<String> values = new ArrayList<>();
        if (e.get("values") instanceof List<?> vs) {
          vs.forEach(v -> values.add(text(v)));
        }
        expressions.add(new Requirement(text(e.get("key")), text(e.get("operator")), values));
      }
    }
    return new AdvancedStrategy.Selector(labels, expressions);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  private static String text(Object o) {
    return o == null ? "" : o.toString();
  }

  private static boolean truth(Object o) {
    return o instanceof Boolean b ? b : o != null && "true".equalsIgnoreCase(o.toString().trim());
  }
}
