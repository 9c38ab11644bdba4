package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every exit path of {@code stallwatch wait}, against an in-process API server. */
class WaitCommandIT {

  static final Instant EARLIER = Instant.now().minusSeconds(3600);
  static final List<String> NODES = List.of("gpu-node-1", "gpu-node-2", "gpu-node-3");

  final TestApiServer server = new TestApiServer();
  final DaemonSetFixture toolkit = new DaemonSetFixture(server.client(), "gpu", "toolkit");
  @TempDir Path tmp;
  String kubeconfig;

  @BeforeEach
  void cluster() {
    kubeconfig = server.writeKubeconfig(tmp.resolve("kubeconfig")).toString();
    toolkit.nodes(NODES.toArray(String[]::new));
  }

  /** Released when the test ends: a request parked on it then answers, and the server can stop. */
  final CountDownLatch testEnded = new CountDownLatch(1);

  @AfterEach
  void stop() {
    testEnded.countDown();
    server.close();
  }

  CliRun waitFor(String... args) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "wait",
                "ds/toolkit",
                "-n",
                "gpu",
                "--kubeconfig",
                kubeconfig,
                "--interval",
                "200ms"));
    all.addAll(List.of(args));
    return CliRun.of(all.toArray(String[]::new));
  }

  /** Revision 2 on gpu-node-1, whose image cannot be pulled; the others on revision 1. */
  void pullingOnFirstNode() {
    toolkit.daemonSet(2, 3, 1, 2);
    toolkit.waitingPod(
        "gpu-node-1", 2, EARLIER, "ImagePullBackOff", "Back-off pulling image \"toolkit:v2\"");
    toolkit.readyPod("gpu-node-2", 1, EARLIER);
    toolkit.readyPod("gpu-node-3", 1, EARLIER);
  }

  @Test
  void theOperatorsActiveRolloutStallEndsTheWaitAsTheClusterRecordsIt() {
    pullingOnFirstNode();
    String since =
        java.time.Instant.now()
            .minusSeconds(3600)
            .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            .toString();
    String stall = toolkit.operatorStall(2, "gpu-node-1", "ImagePull", since);

    // The pod is seconds old: alone, --stall-after 10m would wait until the timeout.
    CliRun run = waitFor("--stall-after", "10m", "--timeout", "20s");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.STALLED);
    assertThat(run.out())
        .contains("  since:    " + since)
        .contains(
            "  recorded by the operator: RolloutStall gpu/"
                + stall
                + " Active: ImagePull on gpu-node-1 since "
                + since);
  }

  @Test
  void theClustersRecordWinsOverAClockTenMinutesBehindTheClusters() {
    pullingOnFirstNode();
    // The cluster's clock (demo --serve's, or a laptop's 10 minutes slow): the operator recorded
    // the stall at a time this machine has not reached yet.
    String since =
        java.time.Instant.now()
            .plusSeconds(600)
            .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            .toString();
    String stall = toolkit.operatorStall(2, "gpu-node-1", "ImagePull", since);

    CliRun run = waitFor("--stall-after", "10m", "--timeout", "20s");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.STALLED);
    // The bound is the point: the first read ends it, where a wait that polled on would take its
    // 20 s timeout; 10 s is room for a JVM start on a loaded machine.
    assertThat(run.took())
        .as("ended at the first read")
        .isLessThan(java.time.Duration.ofSeconds(10));
    assertThat(run.out())
        .contains("rollout Stalled (recorded by the operator)")
        .contains("  node:     gpu-node-1")
        .contains("  cause:    ImagePull")
        .contains("  since:    " + since)
        .contains("RolloutStall gpu/" + stall + " Active");
  }

  @Test
  void exitsZeroWhenTheRolloutIsComplete() {
    toolkit.daemonSet(2, 3, 3, 3);
    NODES.forEach(node -> toolkit.readyPod(node, 2, EARLIER));

    CliRun run = waitFor();

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    assertThat(run.out())
        .contains("3/3 nodes updated")
        .contains(
            "daemonset.apps/toolkit rollout Complete: 3 nodes run revision 2 ("
                + toolkit.hash(2)
                + ") "
                + toolkit.image(2));
  }

  @Test
  void printsProgressAsNodesMoveAndExitsZeroOnceTheLastNodeIsUpdated() throws Exception {
    toolkit.daemonSet(2, 3, 2, 3);
    toolkit.readyPod("gpu-node-1", 2, EARLIER);
    toolkit.readyPod("gpu-node-2", 2, EARLIER);
    toolkit.readyPod("gpu-node-3", 1, EARLIER);
    // The controller's next step, a moment later: gpu-node-3 gets its new pod.
    CompletableFuture<Void> controller =
        CompletableFuture.runAsync(
            () -> toolkit.readyPod("gpu-node-3", 2, EARLIER),
            CompletableFuture.delayedExecutor(1500, TimeUnit.MILLISECONDS));

    CliRun run = waitFor("--timeout", "60s");
    controller.get();

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    List<String> progress = run.out().lines().filter(l -> l.startsWith("[")).toList();
    assertThat(progress).hasSize(2);
    // Both new pods became available long ago (outside the pace's 10 minutes): pace unknown.
    assertThat(progress.get(0))
        .endsWith(
            "] 2/3 nodes updated; pace unknown until 2 nodes of the new revision are available,"
                + " 1 node left");
    assertThat(progress.get(1)).endsWith("] 3/3 nodes updated");
  }

  @Test
  void exitsOneAsSoonAsTheRolloutStallsWithNodeCauseRevisionsAndTheUndoCommand() throws Exception {
    pullingOnFirstNode();

    CliRun run = waitFor("--stall-after", "2s", "--timeout", "60s");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.STALLED);
    // The bound is the point: it ends once stall-after (2 s) has passed, not at its 60 s timeout;
    // the rest is room for a loaded machine.
    assertThat(run.took())
        .as("ended by the stall, not the timeout")
        .isLessThan(Duration.ofSeconds(30));
    assertThat(run.out())
        .contains("node gpu-node-1 updating (ImagePullBackOff)")
        .contains("daemonset.apps/toolkit rollout Stalled")
        .contains("  node:     gpu-node-1\n")
        .contains("  cause:    ImagePull\n")
        .contains("  reason:   ImagePullBackOff\n")
        .contains("  message:  Back-off pulling image \"toolkit:v2\"\n")
        .contains("  old:      1 (" + toolkit.hash(1) + ") " + toolkit.image(1) + "\n")
        .contains("  new:      2 (" + toolkit.hash(2) + ") " + toolkit.image(2) + "\n")
        .contains("  stallwatch undo ds/toolkit -n gpu --kubeconfig " + kubeconfig + "\n")
        .contains("kubectl rollout undo daemonset/toolkit -n gpu --kubeconfig " + kubeconfig + ")");
  }

  /** The stall of revision 2 on gpu-node-1, then {@code kubectl apply} of revision 3's fix. */
  DaemonSet stallThenApplyTheFix() {
    pullingOnFirstNode();
    DaemonSet applied = toolkit.applyTemplate(3);
    // The controller has not seen the edit: status and ControllerRevisions are those of revision 2.
    observe(applied.getMetadata().getGeneration() - 1);
    return read();
  }

  DaemonSet read() {
    return server.client().apps().daemonSets().inNamespace("gpu").withName("toolkit").get();
  }

  /** Writes the controller's status.observedGeneration. */
  void observe(long generation) {
    DaemonSet ds = read();
    ds.getStatus().setObservedGeneration(generation);
    server.client().resource(ds).updateStatus();
  }

  @Test
  void aStallOfTheRevisionBeforeAnAppliedFixIsNoVerdictUntilTheControllerCatchesUp()
      throws Exception {
    DaemonSet applied = stallThenApplyTheFix();
    long generation = applied.getMetadata().getGeneration();
    assertThat(applied.getStatus().getObservedGeneration()).isEqualTo(generation - 1);
    // The controller's next sync, a moment later: it records revision 3, observes the generation
    // and replaces every node's pod with a revision-3 pod that becomes ready.
    CompletableFuture<Void> controller =
        CompletableFuture.runAsync(
            () -> {
              toolkit.revision(3);
              observe(generation);
              NODES.forEach(node -> toolkit.readyPod(node, 3, EARLIER));
            },
            CompletableFuture.delayedExecutor(3, TimeUnit.SECONDS));

    CliRun run = waitFor("--stall-after", "1s", "--timeout", "60s");
    controller.get();

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    assertThat(run.out())
        .contains(
            "] waiting for the controller to observe generation "
                + generation
                + " (observed "
                + (generation - 1)
                + ")\n")
        .doesNotContain("Stalled")
        .contains("rollout Complete: 3 nodes run revision 3 (" + toolkit.hash(3) + ")");
  }

  @Test
  void aStallBeforeTheControllerRecordsTheAppliedTemplateIsNoVerdictEvenAtTheTimeout() {
    DaemonSet applied = stallThenApplyTheFix();
    long generation = applied.getMetadata().getGeneration();
    // Observed, yet no ControllerRevision stores the template: still the controller's turn.
    observe(generation);

    CliRun run = waitFor("--stall-after", "1s", "--timeout", "2s");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(dev.stallwatch.cli.ExitCodes.TIMEOUT);
    // The bound is the point: --timeout is kept (2 s; 4 s of room for a loaded machine).
    assertThat(run.took()).as("within its timeout").isLessThan(Duration.ofSeconds(6));
    assertThat(run.out())
        .contains(
            "] waiting for the controller to record a ControllerRevision of generation "
                + generation
                + "\n")
        .contains(
            "timed out after 2s: waiting for the controller to record a ControllerRevision of"
                + " generation "
                + generation
                + "\n")
        .doesNotContain("stallwatch undo");
  }

  @Test
  void theUndoCommandsReachTheSameClusterQuotedForTheShell() throws Exception {
    toolkit.daemonSet(2, 3, 1, 2);
    toolkit.waitingPod("gpu-node-1", 2, EARLIER, "ErrImagePull", "pull access denied");
    toolkit.readyPod("gpu-node-2", 1, EARLIER);
    toolkit.readyPod("gpu-node-3", 1, EARLIER);
    Path odd = server.writeKubeconfig(tmp.resolve("ci's kube $HOME config"));

    CliRun run =
        CliRun.of(
            "wait",
            "ds/toolkit",
            "-n",
            "gpu",
            "--context",
            "test",
            "--kubeconfig",
            odd.toString(),
            "--stall-after",
            "1s",
            "--interval",
            "200ms");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.STALLED);
    String quoted = "'" + odd.toString().replace("'", "'\\''") + "'";
    String undo =
        run.out().lines().filter(l -> l.startsWith("  stallwatch undo")).findFirst().orElseThrow();
    assertThat(undo)
        .isEqualTo("  stallwatch undo ds/toolkit -n gpu --context test --kubeconfig " + quoted);
    assertThat(run.out())
        .contains(
            "  (or: kubectl rollout undo daemonset/toolkit -n gpu --context test --kubeconfig "
                + quoted
                + ")\n");
    // A shell reads the printed line back into the very arguments.
    assertThat(shellWords(undo))
        .containsExactly(
            "stallwatch",
            "undo",
            "ds/toolkit",
            "-n",
            "gpu",
            "--context",
            "test",
            "--kubeconfig",
            odd.toString());
  }

  /** The words {@code sh} splits {@code line} into. */
  static List<String> shellWords(String line) throws Exception {
    Process sh =
        new ProcessBuilder("sh", "-c", "set -- " + line + "; printf '%s\\n' \"$@\"")
            .redirectErrorStream(true)
            .start();
    String out = new String(sh.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(sh.waitFor()).as(out).isZero();
    return out.lines().toList();
  }

  @Test
  void exitsTwoAtTheTimeoutAndSaysWhereTheRolloutStood() {
    toolkit.daemonSet(2, 3, 1, 2);
    toolkit.waitingPod("gpu-node-1", 2, EARLIER, "ErrImagePull", "pull access denied");
    toolkit.readyPod("gpu-node-2", 1, EARLIER);
    toolkit.readyPod("gpu-node-3", 1, EARLIER);

    CliRun run = waitFor("--timeout", "2s", "--stall-after", "10m");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(dev.stallwatch.cli.ExitCodes.TIMEOUT);
    // The bound is the point: --timeout is kept (2 s; 4 s of room for a loaded machine).
    assertThat(run.took()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    assertThat(run.took()).as("within its timeout").isLessThan(Duration.ofSeconds(6));
    assertThat(run.out())
        .contains(
            "timed out after 2s: rollout Progressing, 0/3 nodes updated;"
                + " node gpu-node-1 updating (ErrImagePull); pace unknown until 2 nodes of the"
                + " new revision are available, 3 nodes left")
        .contains("gpu-node-2", "gpu-node-3");
  }

  @Test
  void neverOutlastsTheTimeoutEvenWhenTheServerDoesNotAnswer() {
    toolkit.daemonSet(2, 3, 1, 2);
    server
        .mockServer()
        .expect()
        .get()
        .withPath("/apis/apps/v1/namespaces/gpu/daemonsets/toolkit")
        .andReply(200, request -> answerWhenTheTestEnds())
        .always();

    CliRun run = waitFor("--timeout", "2s");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(dev.stallwatch.cli.ExitCodes.TIMEOUT);
    // The bound is the point: a read that never answers does not hold wait past --timeout (2 s;
    // 4 s of room for a loaded machine).
    assertThat(run.took()).as("within its timeout").isLessThan(Duration.ofSeconds(6));
    assertThat(run.out()).contains("timed out after 2s before the rollout could be read");
  }

  /** An API server that hangs: it answers only once the test is over. */
  private Object answerWhenTheTestEnds() {
    try {
      testEnded.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "{}";
  }

  @Test
  void exitsThreeWhenTheClusterForbidsReading() {
    server
        .mockServer()
        .expect()
        .get()
        .withPath("/apis/apps/v1/namespaces/gpu/daemonsets/toolkit")
        .andReturn(
            403,
            new StatusBuilder()
                .withStatus("Failure")
                .withReason("Forbidden")
                .withCode(403)
                .withMessage("daemonsets.apps \"toolkit\" is forbidden: User \"ci\" cannot get")
                .build())
        .always();

    CliRun run = waitFor();

    assertThat(run.exitCode()).isEqualTo(ExitCodes.ACCESS);
    assertThat(run.err())
        .isEqualTo(
            "error: forbidden (HTTP 403): daemonsets.apps \"toolkit\" is forbidden: User \"ci\""
                + " cannot get\n");
  }

  @Test
  void exitsThreeWhenTheClusterCannotBeReached() {
    String dead =
        TestApiServer.writeKubeconfig(tmp.resolve("dead"), "http://127.0.0.1:1").toString();

    CliRun run = CliRun.of("wait", "ds/toolkit", "--kubeconfig", dead);

    assertThat(run.exitCode()).isEqualTo(ExitCodes.ACCESS);
    assertThat(run.err()).startsWith("error: cannot reach the cluster at http://127.0.0.1:1");
    assertThat(run.err().lines()).hasSize(1);
  }

  @Test
  void exitsThreeWhenTheDaemonSetDoesNotExist() {
    CliRun run = waitFor();

    assertThat(run.exitCode()).isEqualTo(ExitCodes.ACCESS);
    assertThat(run.err()).isEqualTo("error: daemonset.apps/toolkit not found in namespace gpu\n");
  }

  @Test
  void exitsThreeOnUsageErrors() {
    List<CliRun> runs =
        List.of(
            CliRun.of("wait"),
            CliRun.of("wait", "pod/toolkit"),
            CliRun.of("wait", "ds/toolkit", "--timeout", "soon"),
            CliRun.of("wait", "ds/toolkit", "--timeout", "0s", "--kubeconfig", kubeconfig));

    assertThat(runs).allSatisfy(run -> assertThat(run.exitCode()).as(run.toString()).isEqualTo(3));
    assertThat(runs.get(1).err()).contains("\"pod/toolkit\" is not a DaemonSet; use ds/NAME");
    assertThat(runs.get(2).err()).contains("\"soon\" is not a duration");
    assertThat(runs.get(3).err()).contains("--timeout must be longer than 0");
  }
}
