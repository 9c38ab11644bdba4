package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.sim.SimClock;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stallwatch wait} on OpenKruise Advanced DaemonSets, against the embedded cluster serving
 * kruise's CRD: a partitioned rollout ends Complete with the partition's nodes held, a paused one
 * is never Stalled (the wait runs into its timeout), a stalled one points at {@code undo} with the
 * Advanced DaemonSet's name, and names are resolved as {@code status} resolves them. The command's
 * clock is the cluster's virtual clock; its sleeps move that clock (and, where a test says so, the
 * rollout) on, so nothing waits for the wall clock.
 */
class AdvancedDaemonSetWaitIT {
  static final String NS = "kruise";
  static final List<String> NODES = List.of("node-1", "node-2", "node-3", "node-4", "node-5");

  final SimClock clock = SimClock.virtual(Instant.parse("2026-12-02T10:00:00Z"));
  final TestApiServer server = new TestApiServer(clock);
  final DaemonSetFixture toolkit = new DaemonSetFixture(server.client(), NS, "toolkit");
  final AdvancedDaemonSetFixture agent = new AdvancedDaemonSetFixture(server.client(), NS, "agent");
  @TempDir Path tmp;
  String kubeconfig;

  /** What happens in the cluster during the wait's n-th sleep (n from 1); nothing by default. */
  interface Moves {
    void during(int sleep);
  }

  @BeforeEach
  void cluster() {
    kubeconfig = server.writeKubeconfig(tmp.resolve("kubeconfig")).toString();
    toolkit.nodes(NODES.toArray(String[]::new));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  CliRun waitFor(Moves moves, String... args) {
    int[] sleeps = {0};
    RolloutWait.Sleeper sleeper =
        d -> {
          clock.advance(d);
          moves.during(++sleeps[0]);
        };
    List<String> all =
        new ArrayList<>(List.of("wait", "-n", NS, "--kubeconfig", kubeconfig, "--interval", "2s"));
    all.addAll(List.of(args));
    return ClockedCli.run(clock, sleeper, all.toArray(String[]::new));
  }

  /** {@code wait}'s lines without the wall-clock seconds of its progress lines. */
  static List<String> lines(CliRun run) {
    return run.out().lines().map(l -> l.replaceFirst("^\\[ *\\d+s\\] ", "[] ")).toList();
  }

  @Test
  void aPartitionedRolloutEndsCompleteWithThePartitionsNodesHeld() {
    AdvancedDaemonSetFixture.serveCrd(server.client());
    // kruise goes from node-5 down and stops above partition 2: node-3 is the last to update.
    agent.rolling("partition", 2).daemonSet(2, 5, 3, 4);
    Instant t = clock.instant();
    agent.readyPod("node-1", 1, t);
    agent.readyPod("node-2", 1, t);
    agent.pullBackOffPod("node-3", 2, t);
    agent.readyPod("node-4", 2, t);
    agent.readyPod("node-5", 2, t);

    CliRun run =
        waitFor(
            sleep -> {
              if (sleep == 1) {
                agent.readyPod("node-3", 2, clock.instant());
                agent.status(2, 5, 3, 5);
              }
            },
            "agent",
            "--stall-after",
            "5m");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    assertThat(lines(run))
        .containsExactly(
            "Waiting for daemonset.apps.kruise.io/agent in namespace kruise (timeout 10m, stall"
                + " after 5m)",
            "[] 2/5 nodes updated, 2 held; node node-3 updating (ImagePullBackOff); pace unknown"
                + " until 2 nodes of the new revision are available, 1 node left",
            "[] 3/5 nodes updated, 2 held",
            "daemonset.apps.kruise.io/agent rollout Complete: 3 of 5 nodes run revision 2 ("
                + agent.hash(2)
                + ") registry.example/agent:v2; 2 nodes held by partition 2");
  }

  @Test
  void aPausedRolloutIsNeverStalledTheWaitRunsIntoItsTimeout() {
    AdvancedDaemonSetFixture.serveCrd(server.client());
    agent.rolling("partition", 2).rolling("paused", true).daemonSet(2, 5, 1, 4);
    Instant t = clock.instant();
    for (String node : NODES.subList(0, 4)) {
      agent.readyPod(node, 1, t);
    }
    agent.pullBackOffPod("node-5", 2, t);
    clock.advance(Duration.ofHours(1)); // node-5 far past stall-after

    CliRun run =
        waitFor(
            sleep -> {},
            "daemonset.apps.kruise.io/agent",
            "--stall-after",
            "1m",
            "--timeout",
            "10s");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.TIMEOUT);
    List<String> lines = lines(run);
    assertThat(lines.get(0))
        .isEqualTo(
            "Waiting for daemonset.apps.kruise.io/agent in namespace kruise (timeout 10s, stall"
                + " after 1m)");
    String progress =
        "0/5 nodes updated, 2 held; paused (rollingUpdate.paused); node node-5 stuck"
            + " (ImagePullBackOff)";
    assertThat(lines.get(1)).isEqualTo("[] " + progress);
    assertThat(lines).contains("timed out after 10s: rollout Paused, " + progress);
    assertThat(run.out()).doesNotContain("rollout Stalled");
  }

  @Test
  void aStalledAdvancedDaemonSetPointsAtUndoWithItsQualifiedName() {
    AdvancedDaemonSetFixture.serveCrd(server.client());
    agent.daemonSet(2, 5, 0, 4);
    Instant t = clock.instant();
    for (String node : NODES.subList(0, 4)) {
      agent.readyPod(node, 1, t);
    }
    agent.pullBackOffPod("node-5", 2, t);
    clock.advance(Duration.ofMinutes(2));

    CliRun run = waitFor(sleep -> {}, "agent", "--stall-after", "1m");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.STALLED);
    assertThat(lines(run))
        .contains(
            "daemonset.apps.kruise.io/agent rollout Stalled",
            "  node:     node-5",
            "  cause:    ImagePull",
            "  stallwatch undo daemonset.apps.kruise.io/agent -n kruise --kubeconfig " + kubeconfig,
            "kruise/agent (daemonset.apps.kruise.io): Stalled (ImagePull)");
    // kubectl rollout undo knows no Advanced DaemonSet
    assertThat(run.out()).doesNotContain("kubectl rollout undo");
  }

  @Test
  void aBareNameOfBothKindsIsRefusedAndAQualifiedOneWaitsForItsKind() {
    AdvancedDaemonSetFixture.serveCrd(server.client());
    agent.daemonSet(1, 5, 5, 5);
    NODES.forEach(n -> agent.readyPod(n, 1, clock.instant()));
    DaemonSetFixture appsAgent = new DaemonSetFixture(server.client(), NS, "agent");
    appsAgent.daemonSet(1, 5, 5, 5);
    NODES.forEach(n -> appsAgent.readyPod(n, 1, clock.instant()));

    CliRun bare = waitFor(sleep -> {}, "agent");
    CliRun advanced = waitFor(sleep -> {}, "daemonsets.apps.kruise.io/agent");
    CliRun apps = waitFor(sleep -> {}, "daemonset/agent");

    assertThat(bare.exitCode()).as(bare.toString()).isEqualTo(ExitCodes.ACCESS);
    assertThat(bare.err())
        .isEqualTo(
            "error: \"agent\" names two DaemonSets in namespace kruise: daemonset.apps/agent and"
                + " daemonset.apps.kruise.io/agent; name one of them\n");
    assertThat(advanced.exitCode()).as(advanced.toString()).isEqualTo(ExitCodes.OK);
    assertThat(lines(advanced))
        .last()
        .isEqualTo(
            "daemonset.apps.kruise.io/agent rollout Complete: 5 nodes run revision 1 ("
                + agent.hash(1)
                + ") registry.example/agent:v1");
    assertThat(apps.exitCode()).as(apps.toString()).isEqualTo(ExitCodes.OK);
    assertThat(lines(apps))
        .last()
        .isEqualTo(
            "daemonset.apps/agent rollout Complete: 5 nodes run revision 1 ("
                + appsAgent.hash(1)
                + ") registry.example/toolkit:v1");
  }

  @Test
  void withoutTheCrdAQualifiedNameIsAnErrorAndABareOneIsTheAppsV1DaemonSet() {
    toolkit.daemonSet(1, 5, 5, 5);
    NODES.forEach(n -> toolkit.readyPod(n, 1, clock.instant()));

    CliRun advanced = waitFor(sleep -> {}, "daemonset.apps.kruise.io/toolkit");
    CliRun bare = waitFor(sleep -> {}, "toolkit");
    CliRun missing = waitFor(sleep -> {}, "agent");

    assertThat(advanced.exitCode()).as(advanced.toString()).isEqualTo(ExitCodes.ACCESS);
    assertThat(advanced.err())
        .isEqualTo(
            "error: the cluster does not serve daemonsets.apps.kruise.io (OpenKruise's Advanced"
                + " DaemonSet, apps.kruise.io/v1beta1): there is no"
                + " daemonset.apps.kruise.io/toolkit\n");
    assertThat(bare.exitCode()).as(bare.toString()).isEqualTo(ExitCodes.OK);
    assertThat(lines(bare))
        .first()
        .isEqualTo(
            "Waiting for daemonset.apps/toolkit in namespace kruise (timeout 10m, stall after 5m)");
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.ACCESS);
    assertThat(missing.err())
        .isEqualTo("error: daemonset.apps/agent not found in namespace kruise\n");
  }
}
