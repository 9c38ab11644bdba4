package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.deploy.NativeHelm;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Routine GOAWAYs, as managed API servers send them: kube-apiserver with {@code
 * --goaway-chance=0.02} (one HTTP/2 request in 50 answered with a GOAWAY, the client reconnects)
 * for the whole run. The seed story's stall in progress beside a churn of {@value #DAEMONSETS}
 * DaemonSets, each broken (an unpullable image) and fixed again in turn for {@link #CHURN}: every
 * broken revision is recorded as one RolloutStall with one {@code RolloutStalled} Event, no healthy
 * revision ever is, the stall in progress is untouched, the operator's log stays quiet, and a stall
 * falling due at the end (when a stuck informer would show) is recorded within {@link #DETECTION}.
 *
 * <p>{@code -Dstallwatch.goaway.churn=PT30M} runs the long version (CI runs {@code PT2M}).
 */
@NativeHelm
class GoawayFaultIT {
  static final int DAEMONSETS = 20;
  static final Duration CHURN =
      Duration.parse(System.getProperty("stallwatch.goaway.churn", "PT2M"));

  /** How long a broken revision stands before it is fixed: past stall-after (10 s). */
  static final Duration BROKEN_FOR = Duration.ofSeconds(16);

  /**
   * The bound on recording the last stall: a stuck informer would miss it by its resync period or
   * for good. Typically 0.1 s; 1.1 s was seen on a loaded 2-core CI machine, where a GOAWAY on the
   * write itself costs a reconnect.
   */
  static final Duration DETECTION = Duration.ofSeconds(2);

  /** What the operator may log over the churn: no WARN storm. */
  static final int MAX_WARNINGS = 5;

  private RealCluster cluster;
  private OperatorProcess operator;

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void routineGoawaysLoseDuplicateAndInventNoStall() {
    cluster =
        RealClusterExtension.separate(
            "goaway",
            "--goaway-chance on the API server for the whole run, which every other class would"
                + " feel",
            Map.of("STALLWATCH_APISERVER_FLAGS", "--goaway-chance=0.02"));
    operator = OperatorProcess.asChartServiceAccount(cluster, "goaway-operator");
    FaultBed seed = FaultBed.stallInProgress(cluster, "goaway-seed");
    Churn churn = new Churn(cluster, Scenario.create(cluster, "goaway-churn", 3, 0), DAEMONSETS);
    List<String> names = churn.names();
    int logged = operator.output().split("\n", -1).length;

    // Round robin: each DaemonSet broken, then fixed BROKEN_FOR later, again and again.
    Map<String, Churn.Broken> open = churn.open();
    Instant end = Instant.now().plus(CHURN);
    int version = 0;
    while (Instant.now().isBefore(end)) {
      // Until some DaemonSet is due a change (or the churn ends): no round that changes nothing.
      await("a DaemonSet due to be broken or fixed")
          .atMost(BROKEN_FOR.plusSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  open.size() < names.size()
                      || !Instant.now().isBefore(end)
                      || open.values().stream()
                          .anyMatch(b -> Instant.now().isAfter(b.brokenAt().plus(BROKEN_FOR))));
      for (String name : names) {
        version++;
        Churn.Broken standing = open.get(name);
        if (standing != null && Instant.now().isAfter(standing.brokenAt().plus(BROKEN_FOR))) {
          churn.fix(name, version);
        } else if (standing == null) {
          churn.breakIt(name, version);
        }
        if (!Instant.now().isBefore(end)) {
          break;
        }
      }
    }
    // Whatever is still broken stands past stall-after: it must be recorded too.
    churn.awaitOpenRecorded();

    // A stall falling due now: a stuck informer would miss or delay it.
    seed.breakHealthy("v2");
    Duration detection = seed.awaitHealthyStall(Instant.now());

    churn.assertEachBrokenRevisionRecordedOnce();
    seed.assertIntact();
    seed.assertHealthyStalledOnce();
    assertThat(detection).as("detection of the last stall").isLessThanOrEqualTo(DETECTION);
    String[] log = operator.output().split("\n", -1);
    List<String> warnings =
        List.of(log).subList(Math.min(logged, log.length), log.length).stream()
            .filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
            .toList();
    assertThat(warnings)
        .as("WARN/ERROR lines over the churn")
        .hasSizeLessThanOrEqualTo(MAX_WARNINGS);
    assertThat(operator.alive()).isTrue();
    ReliabilityReport.row(
        "routine GOAWAYs (kube-apiserver --goaway-chance=0.02) over "
            + CHURN.toMinutes()
            + " min of churn: "
            + DAEMONSETS
            + " DaemonSets broken and fixed in turn",
        churn.broken().size()
            + " broken revisions, each one RolloutStall and one Event; none for a healthy one; the"
            + " stall in progress untouched; "
            + warnings.size()
            + " WARN lines",
        ReliabilityReport.seconds(detection) + " to record a stall falling due at the end",
        "0 / 0");
  }
}
