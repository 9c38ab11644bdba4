package dev.stallwatch.rollback;

import dev.stallwatch.kube.AdvancedDaemonSet;
import dev.stallwatch.rollout.AdvancedStrategy;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * The two APIs a DaemonSet lives in: Kubernetes' own ({@code apps/v1}) and OpenKruise's Advanced
 * DaemonSet ({@code apps.kruise.io}, read and written as {@value AdvancedDaemonSet#API_VERSION}).
 * Both are handed around as fabric8 {@link DaemonSet}s (an Advanced one through {@link
 * AdvancedDaemonSet#toDaemonSet()}); their {@code apiVersion} tells them apart. Their pods and
 * ControllerRevisions are the same kinds of object in both.
 */
public enum DaemonSetApi {
  /** Kubernetes' DaemonSet: {@code daemonset.apps/NAME}. */
  APPS_V1("apps/v1", "apps"),
  /** OpenKruise's Advanced DaemonSet: {@code daemonset.apps.kruise.io/NAME}. */
  ADVANCED(AdvancedDaemonSet.API_VERSION, AdvancedStrategy.GROUP);

  private final String apiVersion;
  private final String group;

  DaemonSetApi(String apiVersion, String group) {
    this.apiVersion = apiVersion;
    this.group = group;
  }

  /** The API of a DaemonSet with this {@code apiVersion}; {@link #APPS_V1} when it is unset. */
  public static DaemonSetApi of(String apiVersion) {
    return AdvancedStrategy.isAdvanced(apiVersion) ? ADVANCED : APPS_V1;
  }

  /** The API of {@code ds}, by its {@code apiVersion}. */
  public static DaemonSetApi of(DaemonSet ds) {
    return of(ds == null ? null : ds.getApiVersion());
  }

  /** The version read and written: {@code apps/v1} or {@value AdvancedDaemonSet#API_VERSION}. */
  public String apiVersion() {
    return apiVersion;
  }

  /** The API group: {@code apps} or {@code apps.kruise.io}. */
  public String group() {
    return group;
  }

  /** kubectl's resource name: {@code daemonsets.apps} or {@code daemonsets.apps.kruise.io}. */
  public String resource() {
    return "daemonsets." + group;
  }

  /**
   * kubectl's name of one: {@code daemonset.apps/NAME} or {@code daemonset.apps.kruise.io/NAME}.
   */
  public String qualified(String name) {
    return "daemonset." + group + "/" + name;
  }

  /**
   * The DaemonSet {@code namespace/name} of this API, null when there is none. An Advanced one is
   * converted with {@link AdvancedDaemonSet#toDaemonSet()}.
   */
  public DaemonSet get(KubernetesClient client, String namespace, String name) {
    if (this == APPS_V1) {
      return client.apps().daemonSets().inNamespace(namespace).withName(name).get();
    }
    AdvancedDaemonSet ads =
        client.resources(AdvancedDaemonSet.class).inNamespace(namespace).withName(name).get();
    return ads == null ? null : ads.toDaemonSet();
  }

  /** Sends a JSON patch (RFC 6902) to the DaemonSet {@code namespace/name} of this API. */
  void jsonPatch(KubernetesClient client, String namespace, String name, String patch) {
    if (this == APPS_V1) {
      client
          .apps()
          .daemonSets()
          .inNamespace(namespace)
          .withName(name)
          .patch(PatchContext.of(PatchType.JSON), patch);
    } else {
      client
          .resources(AdvancedDaemonSet.class)
          .inNamespace(namespace)
          .withName(name)
          .patch(PatchContext.of(PatchType.JSON), patch);
    }
  }
}
