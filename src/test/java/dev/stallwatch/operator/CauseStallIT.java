package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.operator.decision.EventReason;
import dev.stallwatch.operator.decision.Resolution;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One simulated rollout per cause, end to end: the simulator plays the scenario on a virtual clock,
 * the real operator watches, and the test follows the stall from RolloutStall to metric to Event to
 * its resolution by a rollback.
 */
class CauseStallIT {
  private static final String NS = SimulatedRun.NS;
  private static final String DS = SimulatedRun.DS;
  private static final Duration STEP = SimulatedRun.STEP;

  @ParameterizedTest(name = "{0} stalls with {1} on {2}, then a rollback resolves it")
  @CsvSource({
    "seed-story, ImagePull, gpu-node-1",
    "insufficient-gpu, InsufficientResources, gpu-node-1",
    "toleration-dropped, NodeExcluded, gpu-node-1",
    "crash-loop, CrashLoop, gpu-node-1",
    "readiness-never, NotReady, gpu-node-1",
    "node-unreachable, NodeUnavailable, gpu-node-3",
    "host-port-conflict, Unschedulable, gpu-node-1",
    "container-creating-forever, Unknown, gpu-node-1",
  })
  void aStalledRolloutIsRecordedReportedAndResolved(String scenario, String cause, String node)
      throws Exception {
    try (SimulatedRun run =
        SimulatedRun.start(
            scenario,
            new OperatorSettings(
                Set.of(), Duration.ofMinutes(2), Duration.ofHours(24), 0, false, null))) {
      assertThat(run.drive(() -> run.active().isPresent(), Duration.ofMinutes(15)))
          .as("%s: a RolloutStall appears", scenario)
          .isTrue();
      RolloutStall stall = run.active().orElseThrow();
      String oldHash = stall.getStatus().oldRevision().hash();
      assertThat(stall.getStatus().cause()).isEqualTo(cause);
      assertThat(stall.getStatus().node()).isEqualTo(node);
      assertThat(stall.getSpec().daemonSet()).isEqualTo(DS);
      assertThat(stall.getStatus().newRevision().hash())
          .isEqualTo(stall.getSpec().revision())
          .isNotEqualTo(oldHash);
      assertThat(stall.getStatus().newRevision().images()).isNotEmpty();
      String gauge =
          "stallwatch_rollout_stalled{cause=\""
              + cause
              + "\",daemonset=\""
              + DS
              + "\",namespace=\""
              + NS
              + "\",suspect=\""
              + stall.getStatus().suspect()
              + "\"} 1.0";
      assertThat(run.drive(() -> run.registry.scrape().contains(gauge), STEP))
          .as("%s: the stall metric", scenario)
          .isTrue();
      assertThat(
              run.drive(
                  () -> !run.events(EventReason.STALLED.reason()).isEmpty(), Duration.ofMinutes(1)))
          .isTrue();
      assertThat(run.events(EventReason.STALLED.reason()).get(0).getMessage())
          .contains(node)
          .contains(cause);

      run.sim.rollback(NS, DS);
      String name = stall.getMetadata().getName();
      assertThat(
              run.drive(
                  () -> {
                    RolloutStall s = run.stall(name);
                    return s != null && !s.getStatus().active();
                  },
                  Duration.ofMinutes(10)))
          .as("%s: the rollback resolves the stall", scenario)
          .isTrue();
      assertThat(run.stall(name).getStatus().conditions().get(0).getReason())
          .isEqualTo(Resolution.RolledBack.name());
      assertThat(
              run.drive(
                  () -> !run.events(EventReason.RESOLVED.reason()).isEmpty(),
                  Duration.ofMinutes(1)))
          .isTrue();
      assertThat(
              run.drive(
                  () -> !run.registry.scrape().contains("stallwatch_rollout_stalled{"),
                  Duration.ofMinutes(1)))
          .as("%s: the stall series goes away", scenario)
          .isTrue();
      // The restored revision replaces the broken pod; the instant the node is empty in between
      // is not a stall of its own (it would date from the broken revision's creation).
      run.pass(Duration.ofMinutes(1));
      assertThat(run.stalls())
          .as("%s: no second stall after the rollback", scenario)
          .extracting(s -> s.getMetadata().getName())
          .containsExactly(name);
      assertThat(run.events(EventReason.STALLED.reason())).hasSize(1);
    }
  }
}
