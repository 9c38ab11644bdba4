package dev.stallwatch.rollback;

import dev.stallwatch.kube.PodTemplates;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The ControllerRevisions a DaemonSet owns, ordered by {@code .revision}, and which of them its
 * current template matches (as upstream's {@code Match}: same stored template). An Advanced
 * DaemonSet's are found the same way: by the uid in their controller owner reference.
 */
public final class RevisionHistory {

  private final DaemonSet daemonSet;
  private final List<Entry> entries;

  private RevisionHistory(DaemonSet daemonSet, List<Entry> entries) {
    this.daemonSet = daemonSet;
    this.entries = entries;
  }

  /** The history of {@code ds} among {@code revisions} (others' revisions are ignored). */
  public static RevisionHistory of(DaemonSet ds, Collection<ControllerRevision> revisions) {
    if (ds.getSpec() == null || ds.getSpec().getTemplate() == null) {
      throw new RollbackRefusedException(RevisionRestorer.describe(ds) + " has no spec.template");
    }
    List<Entry> owned =
        revisions.stream()
            .filter(r -> ownedBy(r, ds))
            .map(RevisionHistory::entry)
            .sorted(Comparator.comparingLong(Entry::number))
            .toList();
    return new RevisionHistory(ds, owned);
  }

  /** One revision: its number, hash and the template it stores (null when unreadable). */
  public record Entry(
      ControllerRevision object, long number, String hash, PodTemplateSpec template) {

    /** The images of the stored template's containers, in order. */
    public List<String> images() {
      return RevisionHistory.images(template);
    }
  }

  public DaemonSet daemonSet() {
    return daemonSet;
  }

  public List<Entry> entries() {
    return entries;
  }

  /** The revision whose template equals the DaemonSet's (the highest, if several do). */
  public Optional<Entry> current() {
    return entries.stream()
        .filter(this::matchesDaemonSet)
        .max(Comparator.comparingLong(Entry::number));
  }

  /**
   * Where {@code undo} goes without {@code --to-revision}: the highest revision below the current
   * one whose template differs from the DaemonSet's. Empty without a current revision: until the
   * controller has recorded the DaemonSet's template, "previous" is ambiguous (the highest revision
   * may be the very one an edit replaced; kubectl would take the second-highest by number).
   */
  public Optional<Entry> previous() {
    Optional<Entry> current = current();
    if (current.isEmpty()) {
      return Optional.empty();
    }
    return entries.stream()
        .filter(e -> e.number() < current.get().number() && !matchesDaemonSet(e))
        .max(Comparator.comparingLong(Entry::number));
  }

  /** The revision with {@code .revision == number}. */
  public Optional<Entry> number(long number) {
    return entries.stream().filter(e -> e.number() == number).findFirst();
  }

  /** The revision whose hash is {@code hash}. */
  public Optional<Entry> hash(String hash) {
    return entries.stream().filter(e -> e.hash().equals(hash)).findFirst();
  }

  /** Upstream's {@code Match}: the revision stores the DaemonSet's current template. */
  public boolean matchesDaemonSet(Entry entry) {
    return PodTemplates.sameTemplate(daemonSet.getSpec().getTemplate(), entry.template());
  }

  /** The revision numbers, ascending, for messages. */
  public List<Long> numbers() {
    return entries.stream().map(Entry::number).toList();
  }

  /** The images of a template's containers, in order. */
  public static List<String> images(PodTemplateSpec template) {
    if (template == null
        || template.getSpec() == null
        || template.getSpec().getContainers() == null) {
      return List.of();
    }
    return template.getSpec().getContainers().stream()
        .map(c -> String.valueOf(c.getImage()))
        .toList();
  }

  private static boolean ownedBy(ControllerRevision rev, DaemonSet ds) {
    List<OwnerReference> owners =
        rev.getMetadata() == null ? null : rev.getMetadata().getOwnerReferences();
    if (owners == null
        || !Objects.equals(rev.getMetadata().getNamespace(), ds.getMetadata().getNamespace())) {
      return false;
    }
    String uid = ds.getMetadata().getUid();
    return owners.stream()
        .filter(o -> Boolean.TRUE.equals(o.getController()))
        .anyMatch(
            o ->
                uid != null
                    ? uid.equals(o.getUid())
                    : "DaemonSet".equals(o.getKind())
                        && ds.getMetadata().getName().equals(o.getName()));
  }

  private static Entry entry(ControllerRevision rev) {
    Map<String, String> labels = rev.getMetadata().getLabels();
    String hash = labels == null ? null : labels.get(MetadataKeys.REVISION_HASH_LABEL);
    if (hash == null || hash.isEmpty()) {
      String name = rev.getMetadata().getName();
      hash = name.substring(name.lastIndexOf('-') + 1);
    }
    return new Entry(
        rev,
        rev.getRevision() == null ? 0 : rev.getRevision(),
        hash,
        PodTemplates.storedTemplate(rev.getData()));
  }
}
