package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.deploy.NativeHelm;
import dev.stallwatch.operator.OperatorSettings;
import dev.stallwatch.operator.decision.EventReason;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two operator replicas on the real coordination API, each as the chart's ServiceAccount (release
 * with leader election): one holds the Lease and records the stall; SIGKILL of that one hands the
 * Lease to the other, which takes the stall over without a duplicate RolloutStall or Event.
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class LeaderElectionRealClusterIT {
  static final ChartInstall HA =
      new ChartInstall(
          "stallwatch-ha",
          "stallwatch-ha",
          Map.of("replicas", "2", "leaderElection.enabled", "true"));
  static final String DS = "agent";

  OperatorProcess a;
  OperatorProcess b;

  @AfterEach
  void stop() {
    for (OperatorProcess p : new OperatorProcess[] {a, b}) {
      if (p != null) {
        p.close();
      }
    }
  }

  @Test
  void killingTheLeaderHandsTheStallToTheStandbyWithoutDuplicates(RealCluster cluster) {
    HA.install(cluster);
    Path kubeconfig =
        HA.serviceAccountKubeconfig(cluster, cluster.dir().resolve("leader-election.kubeconfig"));
    a = start(cluster, kubeconfig, "replica-a");
    await("replica-a holds the Lease")
        .atMost(Scenario.WAIT)
        .until(() -> "replica-a".equals(holderPod(cluster)));
    b = start(cluster, kubeconfig, "replica-b");
    await("replica-b ready as a standby").atMost(Scenario.WAIT).until(b::ready);

    Scenario s = Scenario.create(cluster, "failover", 3, 0);
    s.rollOut(DS, "example.com/agent:v1", x -> x);
    cluster
        .kubectl(
            "set",
            "image",
            "-n",
            s.namespace(),
            "daemonset/" + DS,
            DS + "=" + Scenario.UNPULLABLE + "agent:v2")
        .ok();
    RolloutStall before = s.awaitActiveStall();
    assertThat(a.metrics()).contains("stallwatch_leader 1.0");
    assertThat(b.metrics()).contains("stallwatch_leader 0.0");

    a.kill();

    await("replica-b takes the Lease over")
        .atMost(Scenario.WAIT)
        .until(() -> "replica-b".equals(holderPod(cluster)));
    await("replica-b exports the stall")
        .atMost(Scenario.WAIT)
        .until(
            () ->
                b.metrics().contains("stallwatch_leader 1.0")
                    && b.metrics()
                        .lines()
                        .anyMatch(
                            l ->
                                l.startsWith("stallwatch_rollout_stalled{")
                                    && l.contains("daemonset=\"" + DS + "\"")
                                    && l.endsWith(" 1.0")));
    List<RolloutStall> after = s.stalls();
    assertThat(after).hasSize(1);
    assertThat(after.get(0).getMetadata().getUid()).isEqualTo(before.getMetadata().getUid());
    assertThat(after.get(0).getStatus().stalledSince())
        .isEqualTo(before.getStatus().stalledSince());
    assertThat(after.get(0).getStatus().active()).isTrue();
    assertThat(s.events(DS, EventReason.STALLED.reason())).hasSize(1);
  }

  private static OperatorProcess start(RealCluster cluster, Path kubeconfig, String pod) {
    return OperatorProcess.start(
        kubeconfig,
        cluster.dir().resolve(pod + ".log"),
        pod,
        "--stall-after=" + OperatorProcess.STALL_AFTER,
        "--leader-election",
        "--leader-election-namespace=" + HA.namespace());
  }

  /** The pod part of the Lease holder's identity ({@code POD_NAME_suffix}), or null. */
  private static String holderPod(RealCluster cluster) {
    Lease lease =
        cluster
            .admin()
            .leases()
            .inNamespace(HA.namespace())
            .withName(OperatorSettings.LEASE_NAME)
            .get();
    if (lease == null || lease.getSpec().getHolderIdentity() == null) {
      return null;
    }
    String holder = lease.getSpec().getHolderIdentity();
    int cut = holder.lastIndexOf('_');
    return cut < 0 ? holder : holder.substring(0, cut);
  }
}
