package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategyBuilder;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Upstream's {@code pkg/controller/daemon/update_test.go} re-expressed against the simulator: the
 * same nodes, the same edits, the same expected creates and deletes per sync.
 */
class UpstreamUpdateIT {

  final ControllerHarness h = new ControllerHarness(5, Instant.ofEpochSecond(100));

  @AfterEach
  void close() {
    h.close();
  }

  static void rollingUpdate(DaemonSet ds, Object maxUnavailable) {
    ds.getSpec()
        .setUpdateStrategy(
            new DaemonSetUpdateStrategyBuilder()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxUnavailable(new IntOrString(maxUnavailable))
                .endRollingUpdate()
                .build());
  }

  static void surge(DaemonSet ds, Object maxSurge) {
    ds.getSpec()
        .setUpdateStrategy(
            new DaemonSetUpdateStrategyBuilder()
                .withType("RollingUpdate")
                .withNewRollingUpdate()
                .withMaxUnavailable(new IntOrString(0))
                .withMaxSurge(new IntOrString(maxSurge))
                .endRollingUpdate()
                .build());
  }

  static void image(DaemonSet ds, String image) {
    ds.getSpec().getTemplate().getSpec().getContainers().get(0).setImage(image);
  }

  @Test
  void updatesPodsTwoAtATimeWithMaxUnavailableTwo() {
    h.create(ControllerHarness.newDaemonSet("foo"));
    h.expectSync(5, 0);
    h.markPodsReady();
    h.edit(
        ds -> {
          image(ds, "foo2/bar2");
          rollingUpdate(ds, 2);
        });
    h.expectSync(0, 2);
    h.expectSync(2, 0);
    h.markPodsReady();
    h.expectSync(0, 2);
    h.expectSync(2, 0);
    h.markPodsReady();
    h.expectSync(0, 1);
    h.expectSync(1, 0);
    h.markPodsReady();
    h.expectSync(0, 0);
    assertThat(h.daemonSet().getStatus().getUpdatedNumberScheduled()).isEqualTo(5);
    assertThat(h.daemonSet().getStatus().getNumberAvailable()).isEqualTo(5);
  }

  @Test
  void updatesPodsWithMaxSurgeTwoCreatingBeforeDeleting() {
    h.create(ControllerHarness.newDaemonSet("foo"));
    h.expectSync(5, 0);
    h.markPodsReady();
    h.edit(
        ds -> {
          image(ds, "foo2/bar2");
          surge(ds, 2);
        });
    h.expectSync(2, 0);
    h.expectSync(0, 0);
    h.markPodsReady();
    h.expectSync(2, 2);
    h.expectSync(0, 0);
    h.markPodsReady();
    h.expectSync(5 % 2, 2);
    h.expectSync(0, 0);
    h.markPodsReady();
    h.expectSync(0, 5 % 2);
    h.expectSync(0, 0);
  }

  @Test
  void stopsWhenTheNewPodsAreNotReady() {
    h.create(ControllerHarness.newDaemonSet("foo"));
    h.expectSync(5, 0);
    h.markPodsReady();
    h.edit(
        ds -> {
          image(ds, "foo2/bar2");
          rollingUpdate(ds, 3);
        });
    h.expectSync(0, 3);
    h.expectSync(3, 0);
    h.expectSync(0, 0);
    assertThat(h.daemonSet().getStatus().getNumberUnavailable()).isEqualTo(3);
  }

  @Test
  void replacesEveryOldPodThatIsNotReadyAtOnce() {
    h.create(ControllerHarness.newDaemonSet("foo"));
    h.expectSync(5, 0);
    h.edit(
        ds -> {
          image(ds, "foo2/bar2");
          rollingUpdate(ds, 3);
        });
    h.expectSync(0, 5);
    h.expectSync(5, 0);
    h.expectSync(0, 0);
  }

  @Test
  void replacesOnlyTheOldPodsThatAreNotReadyWhenTheBudgetIsSpent() {
    h.create(ControllerHarness.newDaemonSet("foo"));
    h.expectSync(5, 0);
    h.markPodsReady();
    h.edit(
        ds -> {
          image(ds, "foo2/bar2");
          rollingUpdate(ds, 2);
        });
    h.expectSync(0, 2);
    h.expectSync(2, 0);
    String hash = h.currentHash();
    // two new pods are unavailable (the budget is spent); two old pods lose readiness
    h.setPodReadiness(
        false,
        2,
        p -> !hash.equals(p.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL)));
    h.expectSync(0, 2);
    h.expectSync(2, 0);
    h.markPodsReady();
    h.expectSync(0, 1);
    h.expectSync(1, 0);
    h.markPodsReady();
    h.expectSync(0, 0);
  }

  @Test
  void surgesOverOldPodsThatAreNotReadyAndHonoursMinReadySeconds() {
    h.create(ControllerHarness.newDaemonSet("foo"));
    h.expectSync(5, 0);
    h.edit(
        ds -> {
          image(ds, "foo2/bar2");
          surge(ds, 3);
        });
    h.expectSync(5, 0);
    h.setTime(Instant.ofEpochSecond(200));
    h.expectSync(0, 5);
    h.setPodReadiness(true, 5, p -> true);
    h.edit(
        ds -> {
          ds.getSpec().setMinReadySeconds(15);
          image(ds, "foo3/bar3");
        });
    h.setTime(Instant.ofEpochSecond(300));
    h.expectSync(3, 0);
    String hash = h.currentHash();
    Map<String, Long> updatedPerNode =
        h.pods().stream()
            .filter(
                p -> hash.equals(p.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL)))
            .collect(Collectors.groupingBy(PodPlacement::targetNode, Collectors.counting()));
    h.setPodReadiness(true, 2, p -> isNew(p, hash));
    h.setPodReadiness(
        false, 1, p -> !isNew(p, hash) && !updatedPerNode.containsKey(PodPlacement.targetNode(p)));
    h.setTime(Instant.ofEpochSecond(310));
    h.expectSync(1, 0);
    h.setTime(Instant.ofEpochSecond(320));
    h.expectSync(1, 3);
    h.setPodReadiness(true, 3, p -> isNew(p, hash));
    h.setTime(Instant.ofEpochSecond(340));
    h.expectSync(0, 2);
    h.setTime(Instant.ofEpochSecond(350));
    h.expectSync(0, 0);
    assertThat(h.pods()).allMatch(p -> isNew(p, hash));
  }

  @Test
  void deletesNothingWhenOnlyTheStrategyChanged() {
    h.create(ControllerHarness.newDaemonSet("foo"));
    h.expectSync(5, 0);
    h.edit(ds -> rollingUpdate(ds, 3));
    h.expectSync(0, 0);
  }

  @Test
  void withSurgeKeepsPodsOnANodeThatNoLongerFitsUntilEnoughOthersAreAvailable() {
    h.create(ControllerHarness.newDaemonSet("foo"));
    h.expectSync(5, 0);
    h.markPodsReady();
    // node-0 gets a taint the new template does not tolerate, in the same change as a new image
    h.api
        .client()
        .nodes()
        .withName("node-0")
        .edit(
            n -> {
              n.getSpec()
                  .setTaints(
                      java.util.List.of(ScenarioObjects.taint("dedicated", "db", "NoSchedule")));
              return n;
            });
    h.edit(
        ds -> {
          image(ds, "foo2/bar2");
          surge(ds, 1);
        });
    // desired is 4; node-0's available old pod is spared while 5 available pods exceed 4 only by
    // itself: available(5) - desired(4) = 1, so it goes at once, and one surge pod starts
    h.expectSync(1, 1);
    h.expectSync(0, 0);
    h.markPodsReady();
    h.expectSync(1, 1);
    h.markPodsReady();
    h.expectSync(1, 1);
    h.markPodsReady();
    h.expectSync(1, 1);
    h.markPodsReady();
    h.expectSync(0, 1);
    h.expectSync(0, 0);
    Set<String> nodes = h.pods().stream().map(PodPlacement::targetNode).collect(Collectors.toSet());
    assertThat(nodes).containsExactlyInAnyOrder("node-1", "node-2", "node-3", "node-4");
    assertThat(h.daemonSet().getStatus().getDesiredNumberScheduled()).isEqualTo(4);
  }

  static boolean isNew(Pod p, String hash) {
    return hash.equals(p.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL));
  }
}
