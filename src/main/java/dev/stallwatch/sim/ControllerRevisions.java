package dev.stallwatch.sim;

import dev.stallwatch.kube.PodTemplates;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The DaemonSet's ControllerRevisions (upstream {@code constructHistory}, {@code snapshot}, {@code
 * dedupCurHistories}, {@code cleanupHistory}): the revision matching the current template is
 * current; a new template gets a revision {@code <ds>-<hash>} numbered one past the highest; a
 * rollback to an older template reuses its revision and bumps its number; a hash collision bumps
 * {@code status.collisionCount}.
 */
final class ControllerRevisions {

  private final KubernetesClient client;

  ControllerRevisions(KubernetesClient client) {
    this.client = client;
  }

  /** The current revision and the others, oldest number first. */
  record History(ControllerRevision current, List<ControllerRevision> old) {
    String hash() {
      return current.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL);
    }
  }

  /** Lists the DaemonSet's revisions in its namespace. */
  List<ControllerRevision> owned(DaemonSet ds) {
    return client
        .apps()
        .controllerRevisions()
        .inNamespace(ds.getMetadata().getNamespace())
        .list()
        .getItems()
        .stream()
        .filter(r -> ownedBy(r, ds))
        .sorted(Comparator.comparing(r -> r.getMetadata().getName()))
        .toList();
  }

  /** Upstream {@code constructHistory}; null when a hash collision was found (retry next sync). */
  History construct(DaemonSet ds, List<Pod> ownedPods) {
    List<ControllerRevision> current = new ArrayList<>();
    List<ControllerRevision> old = new ArrayList<>();
    for (ControllerRevision r : owned(ds)) {
      if (r.getMetadata().getLabels() == null
          || !r.getMetadata().getLabels().containsKey(MetadataKeys.REVISION_HASH_LABEL)) {
        r =
            client
                .resource(r)
                .edit(
                    x -> {
                      Map<String, String> labels =
                          x.getMetadata().getLabels() == null
                              ? new HashMap<>()
                              : new HashMap<>(x.getMetadata().getLabels());
                      labels.put(MetadataKeys.REVISION_HASH_LABEL, x.getMetadata().getName());
                      x.getMetadata().setLabels(labels);
                      return x;
                    });
      }
      if (PodTemplates.matches(ds.getSpec().getTemplate(), r.getData())) {
        current.add(r);
      } else {
        old.add(r);
      }
    }
    long next = old.stream().mapToLong(ControllerRevision::getRevision).max().orElse(0) + 1;
    ControllerRevision cur;
    if (current.isEmpty()) {
      cur = snapshot(ds, next);
      if (cur == null) {
        return null;
      }
    } else {
      cur = dedup(ds, current, ownedPods);
      if (cur.getRevision() < next) {
        cur =
            client
                .resource(cur)
                .edit(
                    x -> {
                      x.setRevision(next);
                      return x;
                    });
      }
    }
    old.sort(Comparator.comparing(ControllerRevision::getRevision));
    return new History(cur, old);
  }

  private ControllerRevision snapshot(DaemonSet ds, long revision) {
    Integer collisions = ds.getStatus() == null ? null : ds.getStatus().getCollisionCount();
    String hash = TemplateHash.hash(ds.getSpec().getTemplate(), collisions);
    String name = ds.getMetadata().getName() + "-" + hash;
    Map<String, String> labels = new HashMap<>();
    var tplLabels =
        ds.getSpec().getTemplate().getMetadata() == null
            ? null
            : ds.getSpec().getTemplate().getMetadata().getLabels();
    if (tplLabels != null) {
      labels.putAll(tplLabels);
    }
    labels.put(MetadataKeys.REVISION_HASH_LABEL, hash);
    ControllerRevision history =
        new ControllerRevisionBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(ds.getMetadata().getNamespace())
            .withLabels(labels)
            .withAnnotations(ds.getMetadata().getAnnotations())
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion("apps/v1")
                    .withKind("DaemonSet")
                    .withName(ds.getMetadata().getName())
                    .withUid(ds.getMetadata().getUid())
                    .withController(true)
                    .withBlockOwnerDeletion(true)
                    .build())
            .endMetadata()
            .withData(PodTemplates.revisionData(ds.getSpec().getTemplate()))
            .withRevision(revision)
            .build();
    try {
      return client.resource(history).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      ControllerRevision existing =
          client
              .apps()
              .controllerRevisions()
              .inNamespace(ds.getMetadata().getNamespace())
              .withName(name)
              .get();
      if (existing != null
          && PodTemplates.matches(ds.getSpec().getTemplate(), existing.getData())) {
        return existing;
      }
      client
          .apps()
          .daemonSets()
          .inNamespace(ds.getMetadata().getNamespace())
          .withName(ds.getMetadata().getName())
          .editStatus(
              d -> {
                Integer c = d.getStatus().getCollisionCount();
                d.getStatus().setCollisionCount(c == null ? 1 : c + 1);
                return d;
              });
      return null;
    }
  }

  /** Keeps the highest-numbered duplicate, relabels pods of the others, deletes the others. */
  private ControllerRevision dedup(
      DaemonSet ds, List<ControllerRevision> current, List<Pod> ownedPods) {
    if (current.size() == 1) {
      return current.get(0);
    }
    ControllerRevision keep =
        current.stream().max(Comparator.comparing(ControllerRevision::getRevision)).orElseThrow();
    String keepHash = keep.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL);
    for (ControllerRevision dup : current) {
      if (dup == keep) {
        continue;
      }
      String dupHash = dup.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL);
      for (Pod pod : ownedPods) {
        if (Objects.equals(
            dupHash, pod.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL))) {
          client
              .resource(pod)
              .edit(
                  p -> {
                    p.getMetadata().getLabels().put(MetadataKeys.REVISION_HASH_LABEL, keepHash);
                    return p;
                  });
        }
      }
      client.resource(dup).delete();
    }
    return keep;
  }

  /**
   * Upstream {@code cleanupHistory}: beyond {@code revisionHistoryLimit} (default 10), deletes the
   * oldest old revisions no pod still runs.
   */
  void cleanup(DaemonSet ds, List<ControllerRevision> old, List<Pod> ownedPods) {
    int limit =
        ds.getSpec().getRevisionHistoryLimit() == null
            ? 10
            : ds.getSpec().getRevisionHistoryLimit();
    int toKill = old.size() - limit;
    if (toKill <= 0) {
      return;
    }
    Set<String> live =
        ownedPods.stream()
            .map(
                p ->
                    p.getMetadata().getLabels() == null
                        ? null
                        : p.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL))
            .filter(Objects::nonNull)
            .collect(Collectors.toSet());
    for (ControllerRevision r : old) {
      if (toKill <= 0) {
        break;
      }
      if (live.contains(r.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL))) {
        continue;
      }
      client.resource(r).delete();
      toKill--;
    }
  }

  private static boolean ownedBy(ControllerRevision r, DaemonSet ds) {
    var refs = r.getMetadata().getOwnerReferences();
    return refs != null
        && refs.stream()
            .anyMatch(
                o ->
                    Boolean.TRUE.equals(o.getController())
                        && Objects.equals(o.getUid(), ds.getMetadata().getUid()));
  }
}
