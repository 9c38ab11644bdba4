package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.testcluster.TestApiServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SimulatedClusterIT {

  static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");
  final TestApiServer api = new TestApiServer();

  @AfterEach
  void close() {
    api.close();
  }

  DaemonSet toolkit() {
    return api.client()
        .apps()
        .daemonSets()
        .inNamespace(Scenarios.NAMESPACE)
        .withName(Scenarios.DAEMON_SET)
        .get();
  }

  List<Pod> pods() {
    return api.client().pods().inNamespace(Scenarios.NAMESPACE).list().getItems();
  }

  @Test
  void aHealthyRolloutEndsWithEveryNodeOnTheNewRevision() {
    SimulatedCluster c =
        SimulatedCluster.install(
            api.client(), Scenarios.named("healthy-rollout"), SimClock.virtual(T0));
    c.runFor(Duration.ofSeconds(50), Duration.ofSeconds(5));
    var status = toolkit().getStatus();
    assertThat(status.getDesiredNumberScheduled()).isEqualTo(3);
    assertThat(status.getNumberAvailable()).isEqualTo(3);
    c.runFor(Duration.ofMinutes(3), Duration.ofSeconds(5));
    status = toolkit().getStatus();
    assertThat(status.getUpdatedNumberScheduled()).isEqualTo(3);
    assertThat(status.getNumberAvailable()).isEqualTo(3);
    assertThat(status.getObservedGeneration()).isEqualTo(toolkit().getMetadata().getGeneration());
    assertThat(pods())
        .extracting(p -> p.getSpec().getContainers().get(0).getImage())
        .containsOnly(Scenarios.REPO + Scenarios.NEW_TAG);
    assertThat(
            api.client()
                .apps()
                .controllerRevisions()
                .inNamespace(Scenarios.NAMESPACE)
                .list()
                .getItems())
        .extracting(r -> r.getRevision())
        .containsExactlyInAnyOrder(1L, 2L);
  }

  @Test
  void theSeedStoryStopsOnOneNodeWithImagePullBackOff() {
    SimulatedCluster c =
        SimulatedCluster.install(
            api.client(), Scenarios.named("image-pull-stall"), SimClock.virtual(T0));
    c.runFor(Duration.ofMinutes(6), Duration.ofSeconds(5));
    var status = toolkit().getStatus();
    assertThat(status.getDesiredNumberScheduled()).isEqualTo(3);
    assertThat(status.getCurrentNumberScheduled()).isEqualTo(3);
    assertThat(status.getNumberReady()).isEqualTo(2);
    assertThat(status.getUpdatedNumberScheduled()).isEqualTo(1);
    assertThat(status.getNumberAvailable()).isEqualTo(2);
    Pod stuck =
        pods().stream()
            .filter(p -> p.getSpec().getContainers().get(0).getImage().endsWith(Scenarios.NEW_TAG))
            .findFirst()
            .orElseThrow();
    assertThat(stuck.getStatus().getContainerStatuses().get(0).getState().getWaiting().getReason())
        .isIn("ImagePullBackOff", "ErrImagePull");
  }
}
