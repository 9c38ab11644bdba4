package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallSpec;
import dev.stallwatch.deploy.NativeHelm;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator killed (SIGKILL) between creating a RolloutStall and writing its status — the one
 * write of the operator that takes two requests. The kill cannot be timed into that window from
 * outside, so the test leaves exactly what it leaves: the operator is killed before the stall falls
 * due and the bare RolloutStall (metadata and spec as the operator creates them, no status) is put
 * in its place; a new operator process must complete it, adopting the object, with one Event.
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class OperatorKillFaultIT {
  OperatorProcess operator;

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
  }

  @Test
  void aStallLeftWithoutItsStatusByAKilledOperatorIsCompletedOnceAfterTheRestart(
      RealCluster cluster) {
    operator = OperatorProcess.asChartServiceAccount(cluster, "kill-operator-1");
    FaultBed bed = FaultBed.stallInProgress(cluster, "operator-kill");
    bed.breakHealthy("v2");
    operator.kill();
    Instant killed = Instant.now();

    DaemonSet ds = bed.scenario.daemonSet(FaultBed.HEALTHY);
    String hash =
        bed.scenario.pods(FaultBed.HEALTHY).stream()
            .filter(p -> p.getSpec().getContainers().get(0).getImage().endsWith("probe:v2"))
            .findFirst()
            .orElseThrow()
            .getMetadata()
            .getLabels()
            .get(MetadataKeys.REVISION_HASH_LABEL);
    RolloutStall bare = new RolloutStall();
    bare.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace(bed.namespace())
            .withName(FaultBed.HEALTHY + "-" + hash)
            .withLabels(
                Map.of(
                    MetadataKeys.DAEMONSET_LABEL,
                    FaultBed.HEALTHY,
                    "app.kubernetes.io/managed-by",
                    "stallwatch"))
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion("apps/v1")
                    .withKind("DaemonSet")
                    .withName(FaultBed.HEALTHY)
                    .withUid(ds.getMetadata().getUid())
                    .build())
            .build());
    bare.setSpec(new RolloutStallSpec(FaultBed.HEALTHY, hash));
    RolloutStall halfWritten =
        cluster.admin().resources(RolloutStall.class).resource(bare).create();
    assertThat(halfWritten.getStatus()).isNull();

    Instant restarted = Instant.now();
    operator = OperatorProcess.asChartServiceAccount(cluster, "kill-operator-2");
    Duration recovery = bed.awaitHealthyStall(restarted);

    // Exactly one stall of the broken revision: the bare object, adopted; and none of the
    // previous revision (assertHealthyStalledOnce: a verdict on caches still syncing is deferred).
    var stalls =
        bed.newStalls(FaultBed.HEALTHY).stream()
            .filter(x -> hash.equals(x.getSpec().revision()))
            .toList();
    assertThat(stalls).hasSize(1);
    assertThat(stalls.get(0).getMetadata().getUid())
        .as("the half-written object adopted, not replaced")
        .isEqualTo(halfWritten.getMetadata().getUid());
    bed.assertIntact();
    bed.assertHealthyStalledOnce();
    await("nothing more is written").during(Duration.ofSeconds(5)).until(() -> true);
    bed.assertIntact();
    ReliabilityReport.row(
        "operator SIGKILLed between creating a RolloutStall and writing its status, restarted",
        "the new process adopts the bare object and writes its status; one Event; the other"
            + " stall untouched",
        ReliabilityReport.seconds(recovery)
            + " after the later of the restart and the stall falling due",
        bed.lostAndDuplicated());
  }
}
