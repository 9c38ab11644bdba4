package dev.stallwatch.operator.cache;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.Keys;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.kube.PodTemplates;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.NodeView;
import dev.stallwatch.rollout.PodTemplateView;
import dev.stallwatch.rollout.PodView;
import dev.stallwatch.rollout.RevisionView;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The secondary sources of the DaemonSet reconciler: DaemonSet pods (by the label {@value
 * MetadataKeys#TEMPLATE_GENERATION_LABEL}, so no other pod is cached), ControllerRevisions, nodes
 * and our RolloutStalls. Every cache stores pruned objects ({@link CachePruning}). A node update
 * passes only when something the analyzer reads changed ({@link NodeChange#matters}), and then
 * reaches only the DaemonSets it can affect ({@link NodeRouting}).
 */
public final class RolloutEventSources {

  static final String PODS = "pods";
  static final String REVISIONS = "revisions";
  static final String NODES = "nodes";
  static final String STALLS = "stalls";
  static final String BY_NODE = "byNode";
  static final String BY_OWNER = "byOwner";

  private RolloutEventSources() {}

  /** The caches' item stores, which also keep each cached object's view ({@link CachedViews}). */
  public static final class Stores {
    // A cached pod carries its view, made from the whole pod as it enters the cache.
    private final PrunedStore<Pod> podStore;
    final CachedViews<Pod, PodView> pods;
    final CachedViews<Node, NodeView> nodes =
        CachedViews.versionedByView(new PrunedStore<>(CachePruning::node), KubeViews::node);
    final CachedViews<ControllerRevision, RevisionView> revisions =
        CachedViews.kept(new PrunedStore<>(CachePruning::revision), KubeViews::revision);

    private volatile NodeViewsAt nodeViews;

    public Stores() {
      this(ns -> {});
    }

    /**
     * @param podNamespaceSeen told once per namespace, when its first pod enters the cache
     */
    public Stores(java.util.function.Consumer<String> podNamespaceSeen) {
      SharedParts shared = new SharedParts();
      podStore = new PrunedStore<>(pod -> CachedPod.of(pod, shared), podNamespaceSeen);
      pods = CachedViews.carried(podStore, CachedPod::view);
    }

    /** How many pods, nodes and ControllerRevisions the caches hold. */
    public ListProgress.Counts counts() {
      return new ListProgress.Counts(pods.size(), nodes.size(), revisions.size());
    }

    /** The DaemonSet pods cached for {@code namespace}. */
    public int cachedPods(String namespace) {
      return podStore.count(namespace);
    }

    private record NodeViewsAt(long version, Snapshots.NodeViews views) {}

    /**
     * Every cached node as the analyzer reads them, indexed by name: made once per version of the
     * node cache and shared by every reconcile until a node changes (nodes change rarely; every
     * reconcile of every DaemonSet reads all of them).
     *
     * @param list the node cache's objects, as the node event source lists them
     */
    public Snapshots.NodeViews nodeViews(Supplier<Collection<Node>> list) {
      long version = nodes.version(); // before reading: a change while reading raises it
      NodeViewsAt known = nodeViews;
      if (known != null && known.version() == version) {
        return known.views();
      }
      Snapshots.NodeViews made = Snapshots.nodes(list.get(), nodes::view);
      nodeViews = new NodeViewsAt(version, made);
      return made;
    }
  }

  /**
   * Objects per page of an informer's list (at start and after a watch expires). client-go's
   * reflectors ask 500; a page of 500 DaemonSet pods is ≈ 7 MB of JSON, read whole into a byte
   * array (twice over while it is assembled) before its pods are parsed, for each informer listing
   * at once. 100 a page cut the operator's peak memory through a 20,000-pod list by 80 MiB (two
   * namespaces listing at once: 140 MiB) and took no longer (docs/benchmarks.md).
   */
  public static final long LIST_PAGE = 100;

  /**
   * The sources of a reconciler of {@code watched}'s kind; pods, nodes and ControllerRevisions are
   * listed and watched through {@code listing} ({@link ListingClient}).
   */
  public static <P extends HasMetadata> List<EventSource<?, P>> create(
      EventSourceContext<P> context,
      Stores stores,
      Watched<P> watched,
      io.fabric8.kubernetes.client.KubernetesClient listing) {
    Function<HasMetadata, List<String>> owners = o -> owners(o, watched.ownerApi());
    // JOSDK answers getSecondaryResources from the owner indexes below: without a mapper it keeps
    // an index of its own, one entry per pod (50,000 at 5,000 nodes × 10 DaemonSets).
    AtomicReference<InformerEventSource<Pod, P>> podSource = new AtomicReference<>();
    AtomicReference<InformerEventSource<ControllerRevision, P>> revisionSource =
        new AtomicReference<>();
    InformerEventSource<Pod, P> pods =
        new InformerEventSource<>(
            StorePerInformer.of(
                InformerEventSourceConfiguration.from(Pod.class, watched.type())
                    .withName(PODS)
                    .withKubernetesClient(listing)
                    .withNamespacesInheritedFromController()
                    .withInformerListLimit(LIST_PAGE)
                    .withLabelSelector(watched.podSelector())
                    .withSecondaryToPrimaryMapper(o -> owningIds(o, watched.ownerApi()))
                    .withPrimaryToSecondaryMapper(ds -> ownedIds(podSource.get(), ds))
                    .build(),
                stores.pods),
            context);
    pods.addIndexers(Map.of(BY_NODE, RolloutEventSources::targetNode, BY_OWNER, owners::apply));
    podSource.set(pods);

    InformerEventSource<ControllerRevision, P> revisions =
        new InformerEventSource<>(
            StorePerInformer.of(
                InformerEventSourceConfiguration.from(ControllerRevision.class, watched.type())
                    .withName(REVISIONS)
                    .withKubernetesClient(listing)
                    .withNamespacesInheritedFromController()
                    .withInformerListLimit(LIST_PAGE)
                    .withSecondaryToPrimaryMapper(o -> owningIds(o, watched.ownerApi()))
                    .withPrimaryToSecondaryMapper(ds -> ownedIds(revisionSource.get(), ds))
                    .build(),
                stores.revisions),
            context);

    revisions.addIndexers(Map.of(BY_OWNER, owners::apply));
    revisionSource.set(revisions);

    NodeRouting routing =
        new NodeRouting(
            () -> context.getPrimaryCache().list().map(watched.asDaemonSet()),
            node -> pods.byIndex(BY_NODE, node),
            ds -> revisions.byIndex(BY_OWNER, ownerKey(ds)),
            watched.ownerApi());
    InformerEventSource<Node, P> nodes =
        new NodeEventSource<>(
            InformerEventSourceConfiguration.from(Node.class, watched.type())
                .withName(NODES)
                .withKubernetesClient(listing)
                .withWatchAllNamespaces()
                .withInformerListLimit(LIST_PAGE)
                .withSecondaryToPrimaryMapper(routing::affected)
                // The reconciler lists every node itself: no per-primary index to maintain.
                .withPrimaryToSecondaryMapper(ds -> Set.of())
                .withOnUpdateFilter((after, before) -> NodeChange.matters(before, after))
                // One informer (nodes are cluster-wide): no partition needed (StorePerInformer).
                .withItemStore(stores.nodes)
                .build(),
            context,
            routing);

    InformerEventSource<RolloutStall, P> stalls =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(RolloutStall.class, watched.type())
                .withName(STALLS)
                .withNamespacesInheritedFromController()
                .withSecondaryToPrimaryMapper(o -> owningIds(o, watched.ownerApi()))
                .build(),
            context);
    stalls.addIndexers(Map.of(BY_OWNER, owners::apply));
    return List.of(pods, revisions, nodes, stalls);
  }

  /**
   * The ids of the DaemonSets of the watched kind that own {@code object} (as JOSDK's {@code
   * Mappers.fromOwnerReferences} maps, but by kind DaemonSet and the watched API: kruise's owner
   * references name the API version its controller ran at, v1alpha1 or v1beta1).
   */
  public static Set<ResourceID> owningIds(
      HasMetadata object, java.util.function.Predicate<String> api) {
    var refs = object.getMetadata() == null ? null : object.getMetadata().getOwnerReferences();
    if (refs == null || refs.isEmpty()) {
      return Set.of();
    }
    Set<ResourceID> ids = new HashSet<>();
    for (var o : refs) {
      if (DAEMON_SET_KIND.equals(o.getKind()) && api.test(o.getApiVersion())) {
        ids.add(new ResourceID(o.getName(), object.getMetadata().getNamespace()));
      }
    }
    return ids;
  }

  /**
   * The ids of the objects {@code source} holds under the owner {@code primary} ({@link
   * #BY_OWNER}).
   */
  private static Set<ResourceID> ownedIds(
      InformerEventSource<? extends HasMetadata, ?> source, HasMetadata primary) {
    if (source == null) {
      return Set.of();
    }
    Set<ResourceID> ids = new HashSet<>();
    for (HasMetadata o :
        source.byIndex(
            BY_OWNER,
            ownerKey(primary.getMetadata().getNamespace(), primary.getMetadata().getName()))) {
      ids.add(ResourceID.fromResource(o));
    }
    return ids;
  }

  /**
   * The DaemonSets that own an object ({@link #ownerKey}), as {@code Mappers.fromOwnerReferences}
   * maps its events: the reconciler reads a DaemonSet's pods, ControllerRevisions and RolloutStalls
   * from this index, never from JOSDK's {@code getSecondaryResources}. That one reads an index
   * JOSDK fills from the informer's events, after the informer's store: a reconcile just after
   * start-up (or a relist) could find the store complete and that index not yet, and judge a
   * DaemonSet without its revisions or its RolloutStall. This index is updated with the store,
   * under its lock. It also spares a {@code HashSet} that hashes every pod deeply (fabric8's
   * generated {@code hashCode}) on every reconcile: a fifth of a reconcile's CPU at 500 pods in the
   * scale run's flight recording.
   */
  public static List<String> owners(HasMetadata object) {
    return owners(object, Watched.DAEMON_SETS.ownerApi());
  }

  /** As {@link #owners(HasMetadata)}, for the DaemonSets whose owner API {@code api} accepts. */
  public static List<String> owners(HasMetadata object, java.util.function.Predicate<String> api) {
    var refs = object.getMetadata() == null ? null : object.getMetadata().getOwnerReferences();
    if (refs == null || refs.isEmpty()) {
      return List.of();
    }
    return refs.stream()
        .filter(o -> DAEMON_SET_KIND.equals(o.getKind()) && api.test(o.getApiVersion()))
        .map(o -> ownerKey(object.getMetadata().getNamespace(), o.getName()))
        .toList();
  }

  private static final String DAEMON_SET_KIND = HasMetadata.getKind(DaemonSet.class);

  /** The {@link #BY_OWNER} key of a DaemonSet. */
  public static String ownerKey(String namespace, String name) {
    return Keys.of(namespace, name);
  }

  /** The {@link #BY_OWNER} key of {@code ds}. */
  public static String ownerKey(DaemonSet ds) {
    return ownerKey(ds.getMetadata().getNamespace(), ds.getMetadata().getName());
  }

  /**
   * The node a DaemonSet pod belongs to, as the analyzer places it ({@link PodView#targetNode}):
   * {@code spec.nodeName}, else the node its required affinity pins (a pod the scheduler has not
   * bound yet, e.g. for lack of resources). Runs on the informer's thread for every pod event, so
   * it reads only the spec ({@link KubeViews#targetNode(Pod)}), not the whole view; a cached pod,
   * which keeps no spec, carries it ({@link CachedPod#targetNode}). A pod whose view cannot be made
   * (e.g. a malformed timestamp) is indexed under the same node; the analysis leaves it out and
   * reports it.
   */
  public static List<String> targetNode(Pod pod) {
    String node = CachedPod.targetNode(pod);
    return node.isEmpty() ? List.of() : List.of(node);
  }

  /**
   * JOSDK hands the secondary-to-primary mapper only the new node; this source lends the node
   * before the update to {@link NodeRouting} for the duration of the (synchronous) mapping.
   */
  private static final class NodeEventSource<P extends HasMetadata>
      extends InformerEventSource<Node, P> {
    private final NodeRouting routing;

    NodeEventSource(
        InformerEventSourceConfiguration<Node> configuration,
        EventSourceContext<P> context,
        NodeRouting routing) {
      super(configuration, context);
      this.routing = routing;
    }

    @Override
    public void onUpdate(Node before, Node after) {
      routing.updating.set(before);
      try {
        super.onUpdate(before, after);
      } finally {
        routing.updating.remove();
      }
    }
  }

  /**
   * Which DaemonSets a node event reaches: those with a pod on the node, and those whose verdict
   * the change can alter without one ({@link NodeChange#concernsEmptyNode}). Runs for every node
   * event that passed the filter, across all DaemonSets, so it keeps each DaemonSet's placement
   * (nodeSelector, affinity, tolerations, nodeName) per template and re-reads a template only when
   * it changed; ControllerRevisions are read only when the current template does not decide.
   */
  public static final class NodeRouting {
    private final Supplier<Stream<DaemonSet>> daemonSets;
    private final Function<String, List<Pod>> podsOn;
    private final Function<DaemonSet, ? extends Collection<ControllerRevision>> revisionsOf;
    private final java.util.function.Predicate<String> ownerApi;
    private final Map<ResourceID, Placements> placements = new ConcurrentHashMap<>();

    /** The node before the update being mapped, on the informer thread delivering it. */
    final ThreadLocal<Node> updating = new ThreadLocal<>();

    public NodeRouting(
        Supplier<Stream<DaemonSet>> daemonSets,
        Function<String, List<Pod>> podsOn,
        Function<DaemonSet, ? extends Collection<ControllerRevision>> revisionsOf) {
      this(daemonSets, podsOn, revisionsOf, Watched.DAEMON_SETS.ownerApi());
    }

    public NodeRouting(
        Supplier<Stream<DaemonSet>> daemonSets,
        Function<String, List<Pod>> podsOn,
        Function<DaemonSet, ? extends Collection<ControllerRevision>> revisionsOf,
        java.util.function.Predicate<String> ownerApi) {
      this.daemonSets = daemonSets;
      this.podsOn = podsOn;
      this.revisionsOf = revisionsOf;
      this.ownerApi = ownerApi;
    }

    /** The mapper: an update when {@link #updating} is set, else an add or a delete. */
    public Set<ResourceID> affected(Node node) {
      return affected(updating.get(), node);
    }

    /**
     * @param before the node before an update; null for an added or deleted node
     * @param after the node after the update, or the added / deleted node
     */
    public Set<ResourceID> affected(Node before, Node after) {
      Set<ResourceID> result = new HashSet<>();
      for (Pod pod : podsOn.apply(after.getMetadata().getName())) {
        result.addAll(owningIds(pod, ownerApi));
      }
      NodeView now = view(after);
      if (now == null) {
        return result;
      }
      NodeView was = before == null ? null : view(before);
      Set<ResourceID> seen = new HashSet<>();
      daemonSets
          .get()
          .forEach(
              ds -> {
                ResourceID id = ResourceID.fromResource(ds);
                seen.add(id);
                if (result.contains(id)) {
                  return;
                }
                Placements p = placements(id, ds);
                // A malformed DaemonSet (null here) is reported by its own reconcile.
                if (p != null
                    && NodeChange.concernsEmptyNode(
                        was, now, p.current, () -> p.earlier(revisionsOf.apply(ds)))) {
                  result.add(id);
                }
              });
      placements.keySet().retainAll(seen);
      return result;
    }

    private Placements placements(ResourceID id, DaemonSet ds) {
      PodTemplateSpec template = ds.getSpec() == null ? null : ds.getSpec().getTemplate();
      Placements known = placements.get(id);
      if (known != null && (known.source == template || known.source.equals(template))) {
        known.source = template;
        return known;
      }
      try {
        PodTemplateView view =
            PodTemplates.view(template, "DaemonSet " + ds.getMetadata().getName(), "spec.template");
        Placements fresh = new Placements(template, placement(view));
        placements.put(id, fresh);
        return fresh;
      } catch (InvalidObjectException e) {
        placements.remove(id);
        return null;
      }
    }

    private static NodeView view(Node node) {
      try {
        return KubeViews.node(node);
      } catch (InvalidObjectException e) {
        return null;
      }
    }
  }

  /** Only what {@code NodeEligibility} reads of a template: the cache stays small. */
  static PodTemplateView placement(PodTemplateView t) {
    return new PodTemplateView(
        null,
        t.nodeSelector(),
        t.requiredNodeAffinity(),
        t.tolerations(),
        t.nodeName(),
        t.hostNetwork(),
        null,
        null,
        null);
  }

  /** A DaemonSet's placements: its current template's, and (read lazily) its revisions'. */
  private static final class Placements {
    volatile PodTemplateSpec source; // the node informer thread alone writes it
    final PodTemplateView current;
    // By ControllerRevision uid: a revision's data never changes. Empty: no readable template.
    private Map<String, Optional<PodTemplateView>> revisions = Map.of();

    Placements(PodTemplateSpec source, PodTemplateView current) {
      this.source = source;
      this.current = current;
    }

    synchronized Collection<PodTemplateView> earlier(Collection<ControllerRevision> now) {
      Map<String, Optional<PodTemplateView>> kept = new HashMap<>();
      for (ControllerRevision r : now) {
        String key =
            r.getMetadata().getUid() != null ? r.getMetadata().getUid() : r.getMetadata().getName();
        Optional<PodTemplateView> known = revisions.get(key);
        kept.put(
            key,
            known != null
                ? known
                : Optional.ofNullable(PodTemplates.fromRevisionData(r.getData()))
                    .map(RolloutEventSources::placement));
      }
      revisions = kept;
      return kept.values().stream().flatMap(Optional::stream).distinct().toList();
    }
  }
}
