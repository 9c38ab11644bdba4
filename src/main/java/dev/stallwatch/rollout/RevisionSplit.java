package dev.stallwatch.rollout;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Decides which revision is new and which is old, and whether a pod runs the new one.
 *
 * <p>New: the ControllerRevision whose template equals the DaemonSet's (upstream {@code Match}),
 * else the one with the highest {@code .revision}. Old: the newest other revision still run by a
 * pod, else the revision just before the new one. Without ControllerRevisions, pods are new when
 * their {@code pod-template-generation} label equals the DaemonSet's template generation.
 */
final class RevisionSplit {
  private final DaemonSetView ds;
  private final RevisionView newRevision;
  private final String newHash;
  private final String templateGeneration; // as the pod label carries it; null when unknown
  private final RevisionSummary newSummary;
  private final RevisionSummary oldSummary;
  private final PodTemplateView oldTemplate;
  private final boolean nothingEarlier;
  private final java.time.Instant rolloutStart;

  private RevisionSplit(DaemonSetView ds, List<RevisionView> revisions, List<PodView> pods) {
    this.ds = ds;
    this.templateGeneration =
        ds.templateGeneration() == null ? null : ds.templateGeneration().toString();
    this.newRevision = pickNew(ds, revisions).orElse(null);
    // Interned as the pods' labels are (PodView.Derived): the usual new pod matches by identity.
    this.newHash = newRevision == null ? "" : newRevision.hash().intern();
    List<PodView> oldPods = new ArrayList<>();
    for (int i = 0, n = pods.size(); i < n; i++) {
      PodView pod = pods.get(i);
      if (!isNew(pod)) {
        oldPods.add(pod);
      }
    }
    this.newSummary = summarizeNew(pods);
    this.rolloutStart = rolloutStart(newRevision, revisions);
    RevisionView oldRevision = pickOld(revisions, oldPods).orElse(null);
    this.nothingEarlier = newRevision != null && oldRevision == null && oldPods.isEmpty();
    if (oldRevision != null) {
      this.oldSummary = summarize(oldRevision);
      this.oldTemplate = oldRevision.template();
    } else {
      this.oldSummary = summarizeUnknownOld(oldPods);
      this.oldTemplate = null;
    }
  }

  /** Splits {@code pods} (the DaemonSet's own) by the DaemonSet's own {@code revisions}. */
  static RevisionSplit of(DaemonSetView ds, List<RevisionView> revisions, List<PodView> pods) {
    return new RevisionSplit(ds, revisions, pods);
  }

  /** Upstream {@code IsPodUpdated} against the new revision's hash and the template generation. */
  boolean isNew(PodView pod) {
    // Two reads of facts the pod's view decided when it was made; no per-analysis map.
    return PodAvailability.isUpdated(pod, newHash, templateGeneration);
  }

  String newHash() {
    return newHash;
  }

  RevisionView newRevision() {
    return newRevision;
  }

  RevisionSummary newSummary() {
    return newSummary;
  }

  RevisionSummary oldSummary() {
    return oldSummary;
  }

  /** The old revision's template, when a ControllerRevision stores it. */
  PodTemplateView oldTemplate() {
    return oldTemplate;
  }

  /**
   * Whether the DaemonSet's ControllerRevisions hold no revision before the new one and no pod runs
   * another: nothing to roll back to. False when the input has no ControllerRevisions (then it
   * cannot tell).
   */
  boolean nothingEarlier() {
    return nothingEarlier;
  }

  /**
   * The earliest instant the rollout to the new revision can have begun: the new revision's
   * creation — or, when a rollback re-used an older revision, the creation of the newest revision
   * (the DaemonSet ran that one before it was rolled back). Null when unknown.
   */
  java.time.Instant rolloutStart() {
    return rolloutStart;
  }

  private static java.time.Instant rolloutStart(
      RevisionView newRevision, List<RevisionView> revisions) {
    if (newRevision == null || newRevision.created() == null) {
      return null;
    }
    return revisions.stream()
        .map(RevisionView::created)
        .filter(Objects::nonNull)
        .max(Comparator.naturalOrder())
        .filter(newest -> newest.isAfter(newRevision.created()))
        .orElse(newRevision.created());
  }

  private static Optional<RevisionView> pickNew(DaemonSetView ds, List<RevisionView> revisions) {
    Comparator<RevisionView> byRevision =
        Comparator.comparingLong(RevisionView::revision).thenComparing(RevisionView::name);
    if (ds.template() != null && ds.template().canonical() != null) {
      Optional<RevisionView> matching =
          revisions.stream().filter(r -> r.stores(ds.template())).max(byRevision);
      if (matching.isPresent()) {
        return matching;
      }
    }
    return revisions.stream().max(byRevision);
  }

  private Optional<RevisionView> pickOld(List<RevisionView> revisions, List<PodView> oldPods) {
    List<RevisionView> others =
        revisions.stream().filter(r -> !Objects.equals(r, newRevision)).toList();
    // One pass over the old pods, not one per revision: a DaemonSet keeps up to 10 revisions.
    Set<String> oldHashes = new HashSet<>();
    for (PodView pod : oldPods) {
      String hash = pod.derived().revisionHash();
      if (hash != null) {
        oldHashes.add(hash);
      }
    }
    Optional<RevisionView> runByPod =
        others.stream()
            .filter(r -> oldHashes.contains(r.hash()))
            .max(Comparator.comparingLong(RevisionView::revision));
    if (runByPod.isPresent() || !oldPods.isEmpty()) {
      return runByPod;
    }
    long ceiling = newRevision == null ? Long.MAX_VALUE : newRevision.revision();
    return others.stream()
        .filter(r -> r.revision() < ceiling)
        .max(Comparator.comparingLong(RevisionView::revision));
  }

  private RevisionSummary summarizeNew(List<PodView> pods) {
    if (newRevision != null) {
      return summarize(newRevision);
    }
    if (ds.templateGeneration() == null) {
      return null;
    }
    // No ControllerRevisions in the input: describe the new revision by its pods and template.
    String hash =
        pods.stream()
            .filter(this::isNew)
            .map(p -> p.labels().get(MetadataKeys.REVISION_HASH_LABEL))
            .filter(Objects::nonNull)
            .findFirst()
            .orElse("");
    return new RevisionSummary(
        hash,
        null,
        ds.template() == null ? List.of() : ds.template().images(),
        ds.templateGeneration());
  }

  private RevisionSummary summarize(RevisionView revision) {
    List<String> images =
        revision.template() != null
            ? revision.template().images()
            : (revision == newRevision && ds.template() != null
                ? ds.template().images()
                : List.of());
    return new RevisionSummary(revision.hash(), revision.revision(), images);
  }

  /** Old pods whose revision is not among the input's revisions: describe the newest of them. */
  private static RevisionSummary summarizeUnknownOld(List<PodView> oldPods) {
    return oldPods.stream()
        .max(
            Comparator.comparingLong(RevisionSplit::templateGenerationOf)
                .thenComparing(PodView::created, Comparator.nullsFirst(Comparator.naturalOrder())))
        .map(
            p ->
                new RevisionSummary(
                    p.labels().getOrDefault(MetadataKeys.REVISION_HASH_LABEL, ""),
                    null,
                    p.images(),
                    templateGenerationOf(p) < 0 ? null : templateGenerationOf(p)))
        .orElse(null);
  }

  private static long templateGenerationOf(PodView pod) {
    try {
      return Long.parseLong(pod.labels().getOrDefault(MetadataKeys.TEMPLATE_GENERATION_LABEL, ""));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
