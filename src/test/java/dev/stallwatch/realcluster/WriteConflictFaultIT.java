package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.deploy.NativeHelm;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Another client edits the RolloutStall's status and labels, as fast as it can, while the operator
 * writes it (each hand edit makes the operator reconcile and write the status back, on a
 * resourceVersion the next edit has already moved: 409 Conflict). When the edits stop, the
 * operator's status is back, the stall is the same object with the same {@code stalledSince}, and
 * no Event was repeated.
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class WriteConflictFaultIT {
  static final Duration EDITING = Duration.ofSeconds(20);
  static final String HAND = "edited by hand";

  static RealCluster cluster;
  static OperatorProcess operator;

  @BeforeAll
  static void start(RealCluster c) {
    cluster = c;
    operator = OperatorProcess.asChartServiceAccount(c, "conflict-operator");
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
  }

  @Test
  void handEditsRacingTheOperatorsWritesLoseAndDuplicateNothing() throws Exception {
    FaultBed bed = FaultBed.stallInProgress(cluster, "conflicts");
    String name = bed.before.getMetadata().getName();
    String message = bed.before.getStatus().message();
    var stalls = cluster.admin().resources(RolloutStall.class).inNamespace(bed.namespace());
    AtomicBoolean editing = new AtomicBoolean(true);
    AtomicInteger edits = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    Thread editor =
        new Thread(
            () -> {
              while (editing.get()) {
                int i = edits.incrementAndGet();
                try {
                  RolloutStall s = stalls.withName(name).get();
                  s.getMetadata().getLabels().put("example.com/edited", String.valueOf(i));
                  RolloutStall labelled = stalls.resource(s).update();
                  RolloutStallStatus st = labelled.getStatus();
                  labelled.setStatus(withMessage(st, HAND + " " + i));
                  stalls.resource(labelled).updateStatus();
                } catch (KubernetesClientException e) {
                  refused.incrementAndGet(); // our own 409s: the operator wrote in between
                }
              }
            },
            "hand-editor");
    editor.start();
    // The operator writes a stall of its own meanwhile, too.
    bed.breakHealthy("v2");
    Thread.sleep(EDITING.toMillis());
    editing.set(false);
    editor.join();
    Instant stopped = Instant.now();

    await("the operator writes its own status back")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> message.equals(stalls.withName(name).get().getStatus().message()));
    Duration recovery = Duration.between(stopped, Instant.now());
    bed.awaitHealthyStall(stopped);
    bed.assertIntact();
    bed.assertHealthyStalledOnce();
    assertThat(operator.alive()).isTrue();
    // Retried without a stack trace, counted: stallwatch_reconcile_errors_total{reason="conflict"}.
    long conflicts =
        (long)
            PromText.samples(operator.metrics(), "stallwatch_reconcile_errors_total").stream()
                .filter(x -> "conflict".equals(x.label("reason")))
                .mapToDouble(PromText.Sample::value)
                .sum();
    assertThat(operator.output().lines().filter(l -> l.contains("Uncaught error during event")))
        .as("stack traces for the expected 409s")
        .isEmpty();
    ReliabilityReport.row(
        "write conflicts: another client edits the RolloutStall's labels and status for 20 s",
        edits.get()
            + " hand edits ("
            + refused.get()
            + " of them refused 409); operator reconciles that met a 409 and were retried"
            + " (stallwatch_reconcile_errors_total{reason=\"conflict\"}), without a stack trace: "
            + conflicts
            + "; its status written back, labels of others kept",
        ReliabilityReport.seconds(recovery) + " after the last edit (status restored)",
        bed.lostAndDuplicated());
  }

  private static RolloutStallStatus withMessage(RolloutStallStatus s, String message) {
    return s.toBuilder().message(message).build();
  }
}
