package dev.stallwatch.operator.cache;

import dev.stallwatch.kube.AdvancedDaemonSet;
import dev.stallwatch.rollout.AdvancedStrategy;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The kind of DaemonSet a reconciler watches — {@code apps/v1}, or OpenKruise's Advanced DaemonSet
 * — and what differs between them for the caches: how the object reads as a DaemonSet, which owner
 * references name it, and which pods are its (Kubernetes' DaemonSet controller labels them {@value
 * MetadataKeys#TEMPLATE_GENERATION_LABEL}; kruise's labels them only {@value
 * MetadataKeys#REVISION_HASH_LABEL}, so the two pod caches never hold the same pod).
 *
 * @param ownerApi whether an owner reference's apiVersion names this kind (with kind DaemonSet)
 * @param podSelector the label selector of the pod cache
 * @param apiVersion the API version its objects are written at (the Stalled condition)
 */
public record Watched<P extends HasMetadata>(
    Class<P> type,
    Function<P, DaemonSet> asDaemonSet,
    Predicate<String> ownerApi,
    String podSelector,
    String apiVersion) {

  public static final Watched<DaemonSet> DAEMON_SETS =
      new Watched<>(
          DaemonSet.class,
          Function.identity(),
          "apps/v1"::equals,
          MetadataKeys.TEMPLATE_GENERATION_LABEL,
          "apps/v1");

  public static final Watched<AdvancedDaemonSet> ADVANCED_DAEMON_SETS =
      new Watched<>(
          AdvancedDaemonSet.class,
          AdvancedDaemonSet::toDaemonSet,
          AdvancedStrategy::isAdvanced,
          MetadataKeys.REVISION_HASH_LABEL + ",!" + MetadataKeys.TEMPLATE_GENERATION_LABEL,
          AdvancedDaemonSet.API_VERSION);
}
