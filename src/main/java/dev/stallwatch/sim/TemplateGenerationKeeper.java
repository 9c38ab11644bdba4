package dev.stallwatch.sim;

import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.Map;

/**
 * Stands in for the API server's DaemonSet strategy ({@link TemplateGenerationRule}, the rule the
 * embedded API server applies too) on servers that lack it, such as a bare mock: it sets the
 * annotation {@value MetadataKeys#TEMPLATE_GENERATION_ANNOTATION} to 1 on a new DaemonSet and bumps
 * it whenever the pod template changes. Without it, pods of an old template would carry the current
 * {@code pod-template-generation} label and count as updated. It runs first in every tick, so a
 * template changed by anyone (scenario, {@code kubectl}, {@code stallwatch undo}) is seen with its
 * new generation before the controller acts.
 */
final class TemplateGenerationKeeper {

  private record Seen(PodTemplateSpec template, long generation) {}

  private final KubernetesClient client;
  private final Map<String, Seen> seen = new HashMap<>();

  TemplateGenerationKeeper(KubernetesClient client) {
    this.client = client;
  }

  void reconcileAll() {
    for (DaemonSet ds : client.apps().daemonSets().inAnyNamespace().list().getItems()) {
      reconcile(ds);
    }
  }

  private void reconcile(DaemonSet ds) {
    String uid = ds.getMetadata().getUid();
    PodTemplateSpec template = ds.getSpec().getTemplate();
    String raw =
        ds.getMetadata().getAnnotations() == null
            ? null
            : ds.getMetadata().getAnnotations().get(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION);
    Seen before = seen.get(uid);
    long want;
    if (before == null) {
      want = TemplateGenerationRule.onCreate(raw);
    } else {
      long current = TemplateGenerationRule.read(raw, before.generation());
      boolean changed = TemplateGenerationRule.changed(before.template(), template);
      // A server that keeps the annotation itself (a real one) may already have bumped it.
      want =
          changed
              ? Math.max(current, TemplateGenerationRule.onUpdate(before.generation(), true))
              : current;
    }
    seen.put(uid, new Seen(template, want));
    if (!Long.toString(want).equals(raw)) {
      client
          .resource(ds)
          .edit(
              d -> {
                Map<String, String> a =
                    d.getMetadata().getAnnotations() == null
                        ? new HashMap<>()
                        : new HashMap<>(d.getMetadata().getAnnotations());
                a.put(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION, Long.toString(want));
                d.getMetadata().setAnnotations(a);
                return d;
              });
    }
  }
}
