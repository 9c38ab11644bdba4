package dev.stallwatch.rollback;

import dev.stallwatch.kube.Keys;
import dev.stallwatch.rollback.RollbackResult.Outcome;
import dev.stallwatch.rollback.RollbackResult.RevisionSummaryLine;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Restores the pod template a DaemonSet's ControllerRevision stores, as {@code kubectl rollout
 * undo} does, used by {@code stallwatch undo} and by the operator's auto-rollback — on an {@code
 * apps/v1} DaemonSet and on an OpenKruise Advanced DaemonSet alike ({@link DaemonSetApi}): the
 * Advanced one's ControllerRevisions are ordinary {@code apps/v1} ones it owns, storing its
 * template the same way, and its {@code spec.template} is patched the same way.
 *
 * <p>kubectl applies the revision's data as a strategic-merge patch with {@code $patch: replace}.
 * Strategic merge is not available everywhere (the embedded API server rejects it) and a JSON merge
 * patch would keep keys the stored template lacks, so this sends a JSON patch that replaces the
 * whole template, guarded by the resourceVersion read, and retries on conflict. It needs only the
 * {@code patch} verb on daemonsets.
 */
public final class RevisionRestorer {

  /** Conflicting writers (the controller updating status) are retried this many times. */
  static final int ATTEMPTS = 5;

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private final KubernetesClient client;

  public RevisionRestorer(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Rolls the {@code apps/v1} DaemonSet {@code namespace/name} back to {@code target}.
   *
   * @param dryRun compute and report, write nothing
   * @param by who rolls back, recorded in the {@link RollbackRecord} annotations
   * @param now when, for the record
   * @throws RollbackRefusedException when there is nothing (valid) to roll back to
   */
  public RollbackResult rollback(
      String namespace,
      String name,
      RollbackTarget target,
      boolean dryRun,
      String by,
      Instant now) {
    return rollback(DaemonSetApi.APPS_V1, namespace, name, target, dryRun, by, now);
  }

  /**
   * Rolls the DaemonSet {@code namespace/name} of {@code api} back to {@code target}.
   *
   * @param dryRun compute and report, write nothing
   * @param by who rolls back, recorded in the {@link RollbackRecord} annotations
   * @param now when, for the record
   * @throws RollbackRefusedException when there is nothing (valid) to roll back to
   */
  public RollbackResult rollback(
      DaemonSetApi api,
      String namespace,
      String name,
      RollbackTarget target,
      boolean dryRun,
      String by,
      Instant now) {
    for (int attempt = 1; ; attempt++) {
      DaemonSet ds = api.get(client, namespace, name);
      if (ds == null) {
        throw new RollbackRefusedException(
            api.qualified(name) + " not found in namespace " + namespace);
      }
      RevisionHistory history = RevisionHistory.of(ds, revisions(ds));
      Optional<RevisionHistory.Entry> current = history.current();
      checkStillCurrent(history, current, target);
      RevisionHistory.Entry to = resolve(history, target);
      if (to.template() == null) {
        throw new RollbackRefusedException(
            describe(ds) + ": revision " + to.number() + " stores no readable pod template");
      }
      List<String> fromImages = RevisionHistory.images(ds.getSpec().getTemplate());
      RevisionSummaryLine from =
          current.map(c -> new RevisionSummaryLine(c.number(), c.hash())).orElse(null);
      RevisionSummaryLine toLine = new RevisionSummaryLine(to.number(), to.hash());
      Outcome outcome =
          history.matchesDaemonSet(to)
              ? Outcome.ALREADY_MATCHES
              : dryRun ? Outcome.WOULD_ROLL_BACK : Outcome.ROLLED_BACK;
      if (outcome == Outcome.ROLLED_BACK) {
        RollbackRecord record =
            new RollbackRecord(
                current.map(RevisionHistory.Entry::hash).orElse(""), to.hash(), now, by);
        try {
          replaceTemplate(ds, to.template(), record.annotations());
        } catch (KubernetesClientException e) {
          if (e.getCode() == 409 && attempt < ATTEMPTS) {
            continue; // someone wrote the DaemonSet in between: read it again and redo
          }
          throw e;
        }
      }
      return new RollbackResult(
          Keys.of(namespace, name), outcome, from, toLine, fromImages, to.images());
    }
  }

  private List<ControllerRevision> revisions(DaemonSet ds) {
    // All of the namespace, not by selector: ownership decides, and a revision without the
    // selector's labels (written by hand, by an older controller) is still the DaemonSet's.
    return client
        .apps()
        .controllerRevisions()
        .inNamespace(ds.getMetadata().getNamespace())
        .list()
        .getItems();
  }

  private static void checkStillCurrent(
      RevisionHistory history, Optional<RevisionHistory.Entry> current, RollbackTarget target) {
    String expected = target.expectedCurrentHash();
    if (expected != null
        && !current.map(RevisionHistory.Entry::hash).filter(expected::equals).isPresent()) {
      throw new RollbackRefusedException(
          describe(history.daemonSet())
              + " no longer runs revision "
              + expected
              + " (now "
              + current.map(RevisionHistory.Entry::hash).orElse("an unrecorded template")
              + "); not rolling back");
    }
  }

  private static RevisionHistory.Entry resolve(RevisionHistory history, RollbackTarget target) {
    DaemonSet ds = history.daemonSet();
    if (target.revision() != null) {
      return history
          .number(target.revision())
          .orElseThrow(
              () ->
                  new RollbackRefusedException(
                      describe(ds) + " has no revision " + target.revision() + available(history)));
    }
    if (target.hash() != null) {
      return history
          .hash(target.hash())
          .orElseThrow(
              () ->
                  new RollbackRefusedException(
                      describe(ds)
                          + " has no revision with hash "
                          + target.hash()
                          + available(history)));
    }
    if (history.current().isEmpty() && !history.entries().isEmpty()) {
      // The controller has not recorded the template yet (right after an edit): the previous
      // revision is then unknown, and guessing could restore the revision the edit just replaced.
      throw new RollbackRefusedException(
          describe(ds)
              + ": the DaemonSet's template matches no ControllerRevision yet: the controller has"
              + " not recorded generation "
              + ds.getMetadata().getGeneration()
              + "; try again in a moment, or name one with --to-revision"
              + available(history));
    }
    return history
        .previous()
        .orElseThrow(
            () ->
                new RollbackRefusedException(
                    describe(ds)
                        + " has no previous revision to roll back to"
                        + available(history)));
  }

  private void replaceTemplate(
      DaemonSet ds, PodTemplateSpec template, Map<String, String> annotations) {
    Map<String, String> merged = new LinkedHashMap<>();
    if (ds.getMetadata().getAnnotations() != null) {
      merged.putAll(ds.getMetadata().getAnnotations());
    }
    merged.putAll(annotations);
    // A JSON patch (needs only the "patch" verb): "replace" swaps the whole template, and the
    // resourceVersion read above makes a concurrent write fail with 409 instead of being lost.
    List<Map<String, Object>> ops =
        List.of(
            Map.of(
                "op", "replace",
                "path", "/metadata/resourceVersion",
                "value", ds.getMetadata().getResourceVersion()),
            Map.of("op", "add", "path", "/metadata/annotations", "value", merged),
            Map.of("op", "replace", "path", "/spec/template", "value", template));
    DaemonSetApi.of(ds)
        .jsonPatch(
            client,
            ds.getMetadata().getNamespace(),
            ds.getMetadata().getName(),
            SERIALIZATION.asJson(ops));
  }

  private static String available(RevisionHistory history) {
    List<Long> numbers = history.numbers();
    return numbers.isEmpty()
        ? " (it owns no ControllerRevisions)"
        : " (revisions: "
            + numbers.stream().map(String::valueOf).collect(Collectors.joining(", "))
            + ")";
  }

  /**
   * How kubectl names the object: {@code daemonset.apps/NAME}, or {@code
   * daemonset.apps.kruise.io/NAME} for an Advanced DaemonSet.
   */
  static String describe(DaemonSet ds) {
    return DaemonSetApi.of(ds).qualified(ds.getMetadata().getName());
  }
}
