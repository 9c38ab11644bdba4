package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.deploy.NativeHelm;
import dev.stallwatch.operator.decision.EventReason;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The seed's story on real controllers: three GPU nodes run the container toolkit; an update to a
 * tag that cannot be pulled makes the real DaemonSet controller delete one old pod, the real
 * scheduler bind the new one, and kwok hold it in ImagePullBackOff. The operator — its own process,
 * authenticated as the chart's ServiceAccount — records the stall; {@code kubectl rollout undo}
 * resolves it.
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class SeedStoryRealClusterIT {
  static final String DS = "nvidia-container-toolkit";
  static final String GOOD = "nvcr.io/nvidia/k8s/container-toolkit:v1.17.0";
  static final String BROKEN = Scenario.UNPULLABLE + "nvidia/k8s/container-toolkit:v1.17.1";

  static RealCluster cluster;
  static OperatorProcess operator;

  @BeforeAll
  static void start(RealCluster c) {
    cluster = c;
    operator = OperatorProcess.asChartServiceAccount(c, "seed-operator");
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
  }

  @Test
  void anUnpullableTagStallsOneNodeAndRollingBackResolvesIt() {
    Scenario seed = Scenario.create(cluster, "seed", 3, 4);
    seed.rollOut(DS, GOOD, b -> b);

    cluster.kubectl("set", "image", "-n", "seed", "daemonset/" + DS, DS + "=" + BROKEN).ok();

    RolloutStall stall = seed.awaitActiveStall();
    // Ground truth from the real cluster: exactly one node runs the new, unpullable pod.
    List<Pod> broken =
        seed.pods(DS).stream()
            .filter(p -> BROKEN.equals(p.getSpec().getContainers().get(0).getImage()))
            .toList();
    assertThat(broken).as("new-revision pods the real controller created").hasSize(1);
    String stuckNode = broken.get(0).getSpec().getNodeName();
    var status = stall.getStatus();
    assertThat(status.node()).isEqualTo(stuckNode);
    assertThat(status.cause()).isEqualTo("ImagePull");
    assertThat(status.reason()).isIn("ErrImagePull", "ImagePullBackOff");
    assertThat(status.oldRevision().image()).isEqualTo(GOOD);
    assertThat(status.newRevision().image()).isEqualTo(BROKEN);
    assertThat(status.ready()).isEqualTo("2/3");
    assertThat(status.suspect()).as("rollback would help").isEqualTo("NewRevision");
    assertThat(stall.getSpec().daemonSet()).isEqualTo(DS);
    DaemonSet real = seed.daemonSet(DS);
    assertThat(real.getStatus().getDesiredNumberScheduled()).isEqualTo(3);
    assertThat(real.getStatus().getUpdatedNumberScheduled()).isEqualTo(1);
    assertThat(real.getStatus().getNumberAvailable()).isEqualTo(2);

    await("stallwatch_rollout_stalled on /metrics")
        .atMost(Scenario.WAIT)
        .until(() -> stalledSeries(operator.metrics()), s -> s.endsWith(" 1.0"));
    assertThat(seed.events(DS, EventReason.STALLED.reason())).hasSize(1);

    cluster.kubectl("rollout", "undo", "-n", "seed", "daemonset/" + DS).ok();

    List<RolloutStall> resolved = seed.awaitResolved();
    assertThat(resolved).hasSize(1);
    assertThat(resolved.get(0).getMetadata().getUid()).isEqualTo(stall.getMetadata().getUid());
    seed.awaitComplete(DS);
    assertThat(seed.pods(DS))
        .allSatisfy(p -> assertThat(p.getSpec().getContainers().get(0).getImage()).isEqualTo(GOOD));
    await("the stall series leaves /metrics")
        .atMost(Scenario.WAIT)
        .until(() -> stalledSeries(operator.metrics()).isEmpty());
    assertThat(seed.events(DS, EventReason.RESOLVED.reason())).hasSize(1);
    assertThat(seed.events(DS, EventReason.STALLED.reason())).as("no second stall").hasSize(1);
  }

  /**
   * The {@code stallwatch_rollout_stalled} line of this DaemonSet, or "" (other tests on the shared
   * cluster leave DaemonSets of the same name stalled in their own namespaces).
   */
  static String stalledSeries(String metrics) {
    return metrics
        .lines()
        .filter(l -> l.startsWith("stallwatch_rollout_stalled{"))
        .filter(l -> l.contains("daemonset=\"" + DS + "\""))
        .filter(l -> l.contains("namespace=\"seed\""))
        .findFirst()
        .orElse("");
  }
}
