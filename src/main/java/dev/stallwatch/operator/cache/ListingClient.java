package dev.stallwatch.operator.cache;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;

/**
 * The client the pod, node and ControllerRevision caches list and watch through: its JSON reading
 * skips the fields no cache keeps ({@link CachePruning}), so they never become objects — above all
 * {@code managedFields}, a tree of maps kube-apiserver records for every writer of every object (≈
 * 125 maps per DaemonSet pod), and a node's image list, re-read at every heartbeat. A page of 500
 * pods in flight then costs a fraction of its whole-object size, and every watch event less CPU.
 * Nothing is written through this client; the operator's own client reads whole objects.
 *
 * <p>Only fields that no view, index, filter or mapper reads are skipped; {@code
 * CachedFixturesTest} reads every fixture both ways and compares what each reader gets.
 */
public final class ListingClient {
  private ListingClient() {}

  /**
   * How long one request (a page of a list) may take. fabric8's default, 10 s, ends a list whose
   * API server takes longer for one page — under load, at 50,000 pods — and with it the operator's
   * start; client-go's reflectors give a list minutes.
   */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  /** A client to the same cluster as {@code client}, reading as {@link #serialization()}. */
  public static KubernetesClient of(KubernetesClient client) {
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder(client.getConfiguration())
                .withRequestTimeout((int) REQUEST_TIMEOUT.toMillis())
                .build())
        .withKubernetesSerialization(serialization())
        .build();
  }

  /** fabric8's serialization, with the unread fields skipped. */
  public static KubernetesSerialization serialization() {
    ObjectMapper mapper = new ObjectMapper();
    mapper.addMixIn(ObjectMeta.class, Meta.class);
    mapper.addMixIn(PodSpec.class, Spec.class);
    mapper.addMixIn(Container.class, ContainerFields.class);
    mapper.addMixIn(ContainerStatus.class, ContainerStatusFields.class);
    mapper.addMixIn(NodeStatus.class, NodeStatusFields.class);
    return new KubernetesSerialization(mapper, true);
  }

  @JsonIgnoreProperties({"managedFields"})
  private abstract static class Meta {}

  @JsonIgnoreProperties({"volumes", "tolerations"})
  private abstract static class Spec {}

  @JsonIgnoreProperties({
    "args",
    "command",
    "env",
    "envFrom",
    "lifecycle",
    "livenessProbe",
    "ports",
    "readinessProbe",
    "resources",
    "securityContext",
    "startupProbe",
    "volumeDevices",
    "volumeMounts"
  })
  private abstract static class ContainerFields {}

  @JsonIgnoreProperties({
    "allocatedResources",
    "allocatedResourcesStatus",
    "containerID",
    "imageID",
    "lastState",
    "resources",
    "user",
    "volumeMounts"
  })
  private abstract static class ContainerStatusFields {}

  @JsonIgnoreProperties({
    "addresses",
    "capacity",
    "config",
    "daemonEndpoints",
    "features",
    "images",
    "nodeInfo",
    "runtimeHandlers",
    "volumesAttached",
    "volumesInUse"
  })
  private abstract static class NodeStatusFields {}
}
