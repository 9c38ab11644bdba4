package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.operator.cache.RolloutEventSources;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import org.junit.jupiter.api.Test;

/**
 * {@link RolloutEventSources#owners}: the pod cache's index the reconciler reads a DaemonSet's pods
 * from, keyed as JOSDK maps pod events to DaemonSets (owner references of kind DaemonSet, apps/v1).
 */
class PodOwnerIndexTest {

  @Test
  void aDaemonSetPodIsIndexedUnderItsOwnerInItsNamespace() {
    Pod pod = pod("kube-system", "apps/v1", "DaemonSet", "agent");

    assertThat(RolloutEventSources.owners(pod))
        .containsExactly(RolloutEventSources.ownerKey("kube-system", "agent"))
        .containsExactly("kube-system/agent");
  }

  @Test
  void otherOwnersAndOtherGroupsAreNotIndexed() {
    assertThat(RolloutEventSources.owners(pod("web", "apps/v1", "ReplicaSet", "web-1"))).isEmpty();
    assertThat(RolloutEventSources.owners(pod("web", "example.com/v1", "DaemonSet", "agent")))
        .isEmpty();
  }

  @Test
  void aPodWithoutOwnersOrMetadataIsNotIndexed() {
    assertThat(RolloutEventSources.owners(new PodBuilder().build())).isEmpty();
    Pod bare = new PodBuilder().withNewMetadata().withName("p").endMetadata().build();
    bare.getMetadata().setOwnerReferences(null);
    assertThat(RolloutEventSources.owners(bare)).isEmpty();
  }

  @Test
  void aPodOwnedTwiceIsIndexedUnderBothDaemonSets() {
    Pod pod = pod("ns", "apps/v1", "DaemonSet", "a");
    pod.getMetadata()
        .getOwnerReferences()
        .add(pod("ns", "apps/v1", "DaemonSet", "b").getMetadata().getOwnerReferences().get(0));

    assertThat(RolloutEventSources.owners(pod)).containsExactly("ns/a", "ns/b");
  }

  private static Pod pod(String namespace, String apiVersion, String kind, String owner) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(owner + "-x")
        .addNewOwnerReference()
        .withApiVersion(apiVersion)
        .withKind(kind)
        .withName(owner)
        .withController(true)
        .endOwnerReference()
        .endMetadata()
        .build();
  }
}
