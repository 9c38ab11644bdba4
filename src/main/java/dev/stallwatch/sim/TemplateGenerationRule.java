package dev.stallwatch.sim;

import dev.stallwatch.kube.PodTemplates;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;

/**
 * The API server's DaemonSet strategy for the annotation {@code
 * deprecated.daemonset.template.generation} ({@code MetadataKeys.TEMPLATE_GENERATION_ANNOTATION}),
 * the one copy of the rule: a new DaemonSet starts at the value written, else 1; an update keeps
 * the stored value and adds one when {@code spec.template} changed (semantically: as apimachinery's
 * {@code Semantic.DeepEqual}, nil and empty alike). The embedded API server applies it on every
 * write; the simulator applies it after the fact on servers that do not.
 */
public final class TemplateGenerationRule {
  private TemplateGenerationRule() {}

  /** The annotation's value; {@code fallback} when absent or not a number. */
  public static long read(String value, long fallback) {
    try {
      return value == null || value.isBlank() ? fallback : Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  /** The generation of a DaemonSet created with annotation value {@code written}. */
  public static long onCreate(String written) {
    return read(written, 1);
  }

  /** The generation after an update of a DaemonSet whose stored generation is {@code stored}. */
  public static long onUpdate(long stored, boolean templateChanged) {
    return templateChanged ? stored + 1 : stored;
  }

  /** Whether an update changed the pod template (key order, nulls and empties do not count). */
  public static boolean changed(PodTemplateSpec before, PodTemplateSpec after) {
    if (before == null || after == null) {
      return before != after;
    }
    return !PodTemplates.sameTemplate(before, after);
  }
}
