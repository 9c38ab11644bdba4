package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the kubelet's volume manager needs from the API for one sync: whether the ConfigMaps and
 * Secrets a pod's volumes (and projected volumes) name exist in its namespace. A missing object
 * that is not {@code optional: true} cannot be mounted ({@code MountVolume.SetUp failed … not
 * found}), so the pod's containers are never created. Other volume types always mount. The lists
 * are read once per sync, and only if some pod has such a volume.
 */
final class PodVolumes {

  private final KubernetesClient client;
  private Set<String> configMaps;
  private Set<String> secrets;

  PodVolumes(KubernetesClient client) {
    this.client = client;
  }

  /** The volumes of {@code pod} that cannot be mounted, as {@code configmap "name"}. */
  List<String> missing(Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    List<String> out = new ArrayList<>();
    for (Volume v : Optional.ofNullable(pod.getSpec().getVolumes()).orElse(List.of())) {
      if (v.getConfigMap() != null
          && !Boolean.TRUE.equals(v.getConfigMap().getOptional())
          && !configMaps().contains(ns + "/" + v.getConfigMap().getName())) {
        out.add("configmap \"" + v.getConfigMap().getName() + "\"");
      }
      if (v.getSecret() != null
          && !Boolean.TRUE.equals(v.getSecret().getOptional())
          && !secrets().contains(ns + "/" + v.getSecret().getSecretName())) {
        out.add("secret \"" + v.getSecret().getSecretName() + "\"");
      }
      if (v.getProjected() == null || v.getProjected().getSources() == null) {
        continue;
      }
      for (VolumeProjection p : v.getProjected().getSources()) {
        if (p.getConfigMap() != null
            && !Boolean.TRUE.equals(p.getConfigMap().getOptional())
            && !configMaps().contains(ns + "/" + p.getConfigMap().getName())) {
          out.add("configmap \"" + p.getConfigMap().getName() + "\"");
        }
        if (p.getSecret() != null
            && !Boolean.TRUE.equals(p.getSecret().getOptional())
            && !secrets().contains(ns + "/" + p.getSecret().getName())) {
          out.add("secret \"" + p.getSecret().getName() + "\"");
        }
      }
    }
    return out;
  }

  private Set<String> configMaps() {
    if (configMaps == null) {
      configMaps = new HashSet<>();
      client
          .configMaps()
          .inAnyNamespace()
          .list()
          .getItems()
          .forEach(
              c ->
                  configMaps.add(c.getMetadata().getNamespace() + "/" + c.getMetadata().getName()));
    }
    return configMaps;
  }

  private Set<String> secrets() {
    if (secrets == null) {
      secrets = new HashSet<>();
      client
          .secrets()
          .inAnyNamespace()
          .list()
          .getItems()
          .forEach(
              s -> secrets.add(s.getMetadata().getNamespace() + "/" + s.getMetadata().getName()));
    }
    return secrets;
  }
}
