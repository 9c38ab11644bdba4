package dev.stallwatch.operator.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.rollout.PodView;
import dev.stallwatch.testing.FleetObjects;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pod cache's views share what pods of one revision hold alike, and read as their own. */
public class SharedPartsTest {
  static final KubernetesSerialization JSON = new KubernetesSerialization();
  static final FleetObjects AGENT = new FleetObjects("fleet", "agent", "uid-1", "abc12", 1, "a:1");
  static final FleetObjects OTHER = new FleetObjects("fleet", "other", "uid-2", "def34", 3, "o:3");

  static Pod pod(FleetObjects ds, int node) {
    return JSON.unmarshal(ds.pod(node, "pod-" + node), Pod.class);
  }

  @Test
  void podsOfOneRevisionShareLabelsOwnerImagesAndContainerStatusesAndReadAsTheirOwn() {
    SharedParts shared = new SharedParts();
    CachedPod a = CachedPod.of(pod(AGENT, 1), shared);
    CachedPod b = CachedPod.of(pod(AGENT, 2), shared);
    CachedPod c = CachedPod.of(pod(OTHER, 1), shared);

    PodView va = CachedPod.view(a);
    PodView vb = CachedPod.view(b);
    assertThat(va).isEqualTo(KubeViews.pod(pod(AGENT, 1)));
    assertThat(vb).isEqualTo(KubeViews.pod(pod(AGENT, 2)));
    assertThat(vb.labels()).isSameAs(va.labels());
    assertThat(vb.owner()).isSameAs(va.owner());
    assertThat(vb.images()).isSameAs(va.images());
    assertThat(vb.containerStatuses()).isSameAs(va.containerStatuses());
    assertThat(b.getMetadata().getOwnerReferences()).isSameAs(a.getMetadata().getOwnerReferences());
    // what differs per pod stays its own
    assertThat(vb.name()).isNotEqualTo(va.name());
    assertThat(vb.created()).isNotEqualTo(va.created());
    assertThat(vb.conditions()).isNotEqualTo(va.conditions());
    // another DaemonSet's pods share nothing of these
    PodView vc = CachedPod.view(c);
    assertThat(vc.labels()).isNotEqualTo(va.labels());
    assertThat(vc.owner()).isNotEqualTo(va.owner());
  }

  @Test
  void aPartNoCachedPodHoldsIsForgotten() {
    SharedParts shared = new SharedParts();
    List<CachedPod> held = new ArrayList<>();
    held.add(CachedPod.of(pod(AGENT, 1), shared));
    int withOne = shared.size();
    CachedPod.of(pod(OTHER, 1), shared); // dropped at once
    assertThat(shared.size()).isGreaterThan(withOne);

    await("the other DaemonSet's parts forgotten")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              System.gc();
              return shared.size() == withOne;
            });
    assertThat(CachedPod.view(held.get(0)).labels()).containsEntry("app", "agent");
  }
}
