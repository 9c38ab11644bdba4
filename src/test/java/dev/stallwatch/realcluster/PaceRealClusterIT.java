package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;

/**
 * Pace and time left on the real DaemonSet controller: {@code stallwatch wait} on a rollout over
 * {@value #NODES} kwok nodes with {@code maxUnavailable: 1} prints, once a quarter of the nodes are
 * updated, a time left within 25 % of when the rollout really finishes.
 */
class PaceRealClusterIT {
  static final int NODES = 100;

  /** {@code [ 12s] 25/100 nodes updated; …; pace … about 1m2s to go}. */
  private static final Pattern PROGRESS =
      Pattern.compile("^\\[\\s*(\\d+)s\\] (\\d+)/(\\d+) nodes updated.*?about (\\S+) to go");

  private static final Pattern ANY_PROGRESS = Pattern.compile("^\\[\\s*(\\d+)s\\] ");

  @Test
  void waitPrintsATimeLeftAtAQuarterWithin25PercentOfTheFinish() {
    try (RealCluster cluster =
        RealClusterExtension.separate(
            "pace",
            NODES
                + " nodes of its own, whose heartbeats would load every class after it on the"
                + " shared cluster")) {
      Scenario s = Scenario.create(cluster, "pace", NODES, 0);
      // minReadySeconds 1: every node takes a second at least, as a real agent's start-up would.
      s.rollOut(
          "agent", "example.com/agent:v1", b -> b.editSpec().withMinReadySeconds(1).endSpec());
      FaultBed.setImage(cluster, s, "agent", "example.com/agent:v2");

      RealCluster.Result wait =
          CliRealClusterIT.stallwatch(
              cluster,
              Duration.ofMinutes(11),
              "wait",
              "ds/agent",
              "-n",
              s.namespace(),
              "--interval",
              "1s",
              "--timeout",
              "10m");

      assertThat(wait.code()).as(wait.output()).isZero();
      int quarterAt = -1;
      long etaAtQuarter = -1;
      int lastAt = -1;
      for (String line : wait.output().split("\n")) {
        Matcher any = ANY_PROGRESS.matcher(line);
        if (any.find()) {
          lastAt = Integer.parseInt(any.group(1));
        }
        Matcher m = PROGRESS.matcher(line);
        if (quarterAt < 0 && m.find() && Integer.parseInt(m.group(2)) >= NODES / 4) {
          quarterAt = Integer.parseInt(m.group(1));
          etaAtQuarter = seconds(m.group(4));
          System.out.println("pace: at a quarter wait printed: " + line);
        }
      }
      assertThat(quarterAt)
          .as("a progress line with a time left at a quarter:\n%s", wait.output())
          .isPositive();
      long finishedAfter = lastAt - quarterAt;
      System.out.println(
          "pace: %d-node rollout, time left printed at a quarter %d s, finished %d s later"
              .formatted(NODES, etaAtQuarter, finishedAfter));
      assertThat((double) etaAtQuarter)
          .as(
              "time left printed at %d s vs the finish %d s later:\n%s",
              quarterAt, finishedAfter, wait.output())
          .isCloseTo(finishedAfter, Percentage.withPercentage(25));
    }
  }

  /** kubectl's age form as wait prints it: {@code 45s}, {@code 3m12s}, {@code 12m}. */
  static long seconds(String age) {
    Matcher m = Pattern.compile("(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?").matcher(age);
    assertThat(m.matches()).as(age).isTrue();
    long s = 0;
    s += m.group(1) == null ? 0 : Long.parseLong(m.group(1)) * 3600;
    s += m.group(2) == null ? 0 : Long.parseLong(m.group(2)) * 60;
    s += m.group(3) == null ? 0 : Long.parseLong(m.group(3));
    return s;
  }
}
