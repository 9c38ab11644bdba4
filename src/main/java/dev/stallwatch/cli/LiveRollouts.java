package dev.stallwatch.cli;

import dev.stallwatch.kube.AdvancedDaemonSet;
import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.rollback.DaemonSetApi;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.RolloutSnapshot;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.PodResource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the analyzer's snapshots from a live cluster: the selected DaemonSets with the pods and
 * ControllerRevisions of their namespaces and every node, as {@code diagnose} reads them from a
 * dump. DaemonSets are Kubernetes' own ({@code apps/v1}) and, where the cluster serves {@code
 * daemonsets.apps.kruise.io}, OpenKruise's Advanced DaemonSets, read as {@value
 * AdvancedDaemonSet#API_VERSION}; a cluster without that CRD simply has none.
 *
 * <p>Only the pods a DaemonSet controller labels are listed, as the operator does, so that {@code
 * status -A -w} and {@code wait}, which read every couple of seconds, do not fetch every pod of the
 * cluster: {@value MetadataKeys#TEMPLATE_GENERATION_LABEL} for an {@code apps/v1} DaemonSet (its
 * controller puts it on every pod it creates), {@value MetadataKeys#REVISION_HASH_LABEL} for an
 * Advanced one (kruise's controller labels its pods with the revision hash only). Both kinds'
 * ControllerRevisions are {@code apps/v1} ones; ownership (the uid) decides which are whose. Nodes,
 * which the analyzer needs all of, are listed from the API server's cache ({@code
 * resourceVersion=0}) instead of a quorum read of etcd.
 */
final class LiveRollouts {

  /** Any recent version, served from the API server's watch cache: cheap to poll. */
  private static final ListOptions FROM_CACHE =
      new ListOptionsBuilder().withResourceVersion("0").build();

  private final KubernetesClient client;

  /** Whether the cluster serves Advanced DaemonSets; asked once per instance. */
  private Boolean advancedServed;

  LiveRollouts(KubernetesClient client) {
    this.client = client;
  }

  /**
   * What was read: one snapshot per readable DaemonSet (sorted by namespace, name, {@code apps/v1}
   * first), a message per object that could not be read, and warnings that do not make the reading
   * fail (Advanced DaemonSets that may not be listed).
   */
  record Selection(List<RolloutSnapshot> snapshots, List<String> errors, List<String> warnings) {
    Selection(List<RolloutSnapshot> snapshots, List<String> errors) {
      this(snapshots, errors, List.of());
    }
  }

  /**
   * True when discovery lists {@code daemonsets} in {@value AdvancedDaemonSet#API_VERSION}. A
   * cluster that does not know the group (404) does not serve them.
   */
  boolean servesAdvanced() {
    if (advancedServed == null) {
      try {
        APIResourceList list = client.getApiResources(AdvancedDaemonSet.API_VERSION);
        advancedServed =
            list != null
                && list.getResources() != null
                && list.getResources().stream().anyMatch(r -> "daemonsets".equals(r.getName()));
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        advancedServed = false;
      }
    }
    return advancedServed;
  }

  /**
   * The DaemonSet {@code name} means in {@code namespace}, empty when there is none. A bare name
   * finds whichever of the two kinds exists.
   *
   * @throws ExitCodes.UserException when a bare name names both kinds, or names an Advanced
   *     DaemonSet on a cluster that does not serve them
   */
  Optional<DaemonSet> find(String namespace, DaemonSetName name) {
    if (name.api() == DaemonSetApi.ADVANCED && !servesAdvanced()) {
      throw new ExitCodes.UserException(notServed(name));
    }
    if (name.api() != null) {
      return Optional.ofNullable(name.api().get(client, namespace, name.name()));
    }
    if (!servesAdvanced()) {
      return Optional.ofNullable(DaemonSetApi.APPS_V1.get(client, namespace, name.name()));
    }
    // Either kind: a refusal to read one of them only matters when the other is not there.
    Found apps = read(DaemonSetApi.APPS_V1, namespace, name.name());
    Found advanced = read(DaemonSetApi.ADVANCED, namespace, name.name());
    if (apps.ds() != null && advanced.ds() != null) {
      throw new ExitCodes.UserException(ambiguous(name.name(), "namespace " + namespace));
    }
    if (apps.ds() == null && apps.refused() != null) {
      throw apps.refused();
    }
    if (advanced.ds() == null && advanced.refused() != null && apps.ds() == null) {
      throw advanced.refused();
    }
    return Optional.ofNullable(apps.ds() != null ? apps.ds() : advanced.ds());
  }

  private record Found(DaemonSet ds, KubernetesClientException refused) {}

  private Found read(DaemonSetApi api, String namespace, String name) {
    try {
      return new Found(api.get(client, namespace, name), null);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403) {
        return new Found(null, e);
      }
      throw e;
    }
  }

  /** One DaemonSet; an empty selection when it does not exist. */
  Selection one(String namespace, DaemonSetName name) {
    return find(namespace, name).map(this::of).orElseGet(() -> new Selection(List.of(), List.of()));
  }

  /**
   * The snapshot of {@code ds}, read just now, with its pods and the revisions of its namespace.
   */
  Selection of(DaemonSet ds) {
    String namespace = ds.getMetadata().getNamespace();
    Map<String, String> matchLabels =
        ds.getSpec() == null || ds.getSpec().getSelector() == null
            ? null
            : ds.getSpec().getSelector().getMatchLabels();
    // The selector's labels narrow the lists; the analyzer still checks ownership.
    FilterWatchListDeletable<Pod, PodList, PodResource> pods =
        matchLabels == null || matchLabels.isEmpty()
            ? client.pods().inNamespace(namespace).withLabel(podLabel(DaemonSetApi.of(ds)))
            : client
                .pods()
                .inNamespace(namespace)
                .withLabels(matchLabels)
                .withLabel(podLabel(DaemonSetApi.of(ds)));
    // Revisions by namespace, not selector: ownership decides (as in RevisionRestorer).
    List<ControllerRevision> revisions =
        client.apps().controllerRevisions().inNamespace(namespace).list().getItems();
    return snapshots(List.of(ds), pods.list().getItems(), revisions, List.of());
  }

  /** The label every pod of a DaemonSet of {@code api} carries (and few other pods do). */
  private static String podLabel(DaemonSetApi api) {
    return api == DaemonSetApi.APPS_V1
        ? MetadataKeys.TEMPLATE_GENERATION_LABEL
        : MetadataKeys.REVISION_HASH_LABEL;
  }

  /** Every DaemonSet of {@code namespace}, or of all namespaces when it is null. */
  Selection all(String namespace) {
    List<DaemonSet> apps =
        namespace == null
            ? client.apps().daemonSets().inAnyNamespace().list().getItems()
            : client.apps().daemonSets().inNamespace(namespace).list().getItems();
    List<String> warnings = new ArrayList<>();
    List<DaemonSet> advanced = advanced(namespace, warnings);
    List<DaemonSet> daemonSets = new ArrayList<>(apps);
    daemonSets.addAll(advanced);
    if (daemonSets.isEmpty()) {
      return new Selection(List.of(), List.of(), warnings);
    }
    List<Pod> pods = new ArrayList<>();
    if (!apps.isEmpty()) {
      pods.addAll(
          pods(namespace).withLabel(MetadataKeys.TEMPLATE_GENERATION_LABEL).list().getItems());
    }
    if (!advanced.isEmpty()) {
      // kruise's pods: labelled with the revision hash, not the template generation (the pods of
      // an apps/v1 DaemonSet carry both, and were listed above)
      pods.addAll(
          pods(namespace)
              .withLabel(MetadataKeys.REVISION_HASH_LABEL)
              .withoutLabel(MetadataKeys.TEMPLATE_GENERATION_LABEL)
              .list()
              .getItems());
    }
    List<ControllerRevision> revisions =
        namespace == null
            ? client.apps().controllerRevisions().inAnyNamespace().list().getItems()
            : client.apps().controllerRevisions().inNamespace(namespace).list().getItems();
    return snapshots(daemonSets, pods, revisions, warnings);
  }

  /**
   * The DaemonSets {@code name} means among every DaemonSet of {@code namespace} (all namespaces
   * when null).
   *
   * @throws ExitCodes.UserException when a bare name names both kinds in one namespace, or names an
   *     Advanced DaemonSet on a cluster that does not serve them
   */
  Selection all(String namespace, DaemonSetName name) {
    if (name.api() == DaemonSetApi.ADVANCED && !servesAdvanced()) {
      throw new ExitCodes.UserException(notServed(name));
    }
    Selection all = all(namespace);
    List<RolloutSnapshot> named =
        all.snapshots().stream()
            .filter(s -> s.daemonSet().name().equals(name.name()))
            .filter(s -> name.allows(DaemonSetApi.of(s.daemonSet().apiVersion())))
            .toList();
    Set<String> seen = new TreeSet<>();
    Set<String> both = new TreeSet<>();
    for (RolloutSnapshot s : named) {
      if (!seen.add(s.daemonSet().namespace())) {
        both.add(s.daemonSet().namespace());
      }
    }
    if (!both.isEmpty()) {
      throw new ExitCodes.UserException(
          ambiguous(
              name.name(),
              (both.size() == 1 ? "namespace " : "namespaces ") + String.join(", ", both)));
    }
    return new Selection(named, all.errors(), all.warnings());
  }

  private FilterWatchListDeletable<Pod, PodList, PodResource> pods(String namespace) {
    return namespace == null
        ? client.pods().inAnyNamespace()
        : client.pods().inNamespace(namespace);
  }

  /**
   * The Advanced DaemonSets of {@code namespace} (all when null), as DaemonSets; none where the
   * cluster does not serve them. One that may not be listed is a warning, not a failure: the {@code
   * apps/v1} DaemonSets are still reported.
   */
  private List<DaemonSet> advanced(String namespace, List<String> warnings) {
    if (!servesAdvanced()) {
      return List.of();
    }
    try {
      var resources = client.resources(AdvancedDaemonSet.class);
      List<AdvancedDaemonSet> listed =
          namespace == null
              ? resources.inAnyNamespace().list().getItems()
              : resources.inNamespace(namespace).list().getItems();
      return listed.stream().map(AdvancedDaemonSet::toDaemonSet).toList();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return List.of(); // the CRD went away since discovery
      }
      if (e.getCode() == 401 || e.getCode() == 403) {
        warnings.add(
            "cannot list "
                + DaemonSetApi.ADVANCED.resource()
                + (namespace == null ? " in any namespace" : " in namespace " + namespace)
                + " (HTTP "
                + e.getCode()
                + "): Advanced DaemonSets are not shown");
        return List.of();
      }
      throw e;
    }
  }

  /** {@code daemonset.apps.kruise.io/NAME} asked for where the cluster does not serve it. */
  static String notServed(DaemonSetName name) {
    return "the cluster does not serve "
        + DaemonSetApi.ADVANCED.resource()
        + " (OpenKruise's Advanced DaemonSet, "
        + DaemonSetApi.ADVANCED.apiVersion()
        + "): there is no "
        + name.qualified();
  }

  /** A bare name that both kinds have. */
  static String ambiguous(String name, String where) {
    return "\""
        + name
        + "\" names two DaemonSets in "
        + where
        + ": "
        + DaemonSetApi.APPS_V1.qualified(name)
        + " and "
        + DaemonSetApi.ADVANCED.qualified(name)
        + "; name one of them";
  }

  /**
   * {@code daemonset.apps/NAME not found in namespace NS}, naming both kinds where a bare name
   * could have been either.
   */
  String notFound(DaemonSetName name, String where) {
    if (name.api() == null && servesAdvanced()) {
      return "neither "
          + DaemonSetApi.APPS_V1.qualified(name.name())
          + " nor "
          + DaemonSetApi.ADVANCED.qualified(name.name())
          + " found "
          + where;
    }
    return name.qualified() + " not found " + where;
  }

  private Selection snapshots(
      List<DaemonSet> daemonSets,
      List<Pod> pods,
      List<ControllerRevision> revisions,
      List<String> warnings) {
    if (daemonSets.isEmpty()) {
      return new Selection(List.of(), List.of(), warnings);
    }
    List<Node> nodes = client.nodes().list(FROM_CACHE).getItems();
    List<RolloutSnapshot> snapshots = new ArrayList<>();
    // A bad node or revision is named once, not once per DaemonSet that reads it.
    Set<String> errors = new LinkedHashSet<>();
    for (DaemonSet ds : daemonSets) {
      try {
        Snapshots.Live live = Snapshots.live(ds, pods, nodes, revisions, Snapshots.Views.FRESH);
        snapshots.add(live.snapshot());
        errors.addAll(live.errors());
      } catch (InvalidObjectException e) {
        // One unreadable DaemonSet must not hide the other DaemonSets' verdicts.
        errors.add(e.getMessage());
      }
    }
    snapshots.sort(
        Comparator.comparing((RolloutSnapshot s) -> s.daemonSet().namespace())
            .thenComparing(s -> s.daemonSet().name())
            .thenComparing(s -> DaemonSetApi.of(s.daemonSet().apiVersion())));
    return new Selection(List.copyOf(snapshots), List.copyOf(errors), List.copyOf(warnings));
  }
}
