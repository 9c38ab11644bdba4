package dev.stallwatch.demo;

import dev.stallwatch.cli.DurationParser;
import dev.stallwatch.cli.ExitCodes;
import dev.stallwatch.cli.LogSetup;
import dev.stallwatch.rollout.Durations;
import dev.stallwatch.sim.Scenario;
import dev.stallwatch.sim.Scenarios;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code stallwatch demo}: the image-pull stall on an embedded cluster, no real cluster needed.
 * Three GPU nodes, a new nvidia-container-toolkit tag that cannot be pulled, the stall, the
 * RolloutStall, the metric, the rollback.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Play a stalled DaemonSet rollout on an embedded cluster with the real operator watching.",
      "No cluster needed. With --serve the cluster stays up for kubectl."
    })
public final class DemoCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--scenario",
      defaultValue = "image-pull-stall",
      description = "Scenario to play (default ${DEFAULT-VALUE}); one of: ${COMPLETION-CANDIDATES}",
      completionCandidates = ScenarioNames.class)
  String scenarioName;

  @Option(
      names = "--serve",
      description = "Keep cluster, operator and /metrics running after the stall (Ctrl-C ends).")
  boolean serve;

  @Option(
      names = "--kubeconfig",
      description = "With --serve: write a kubeconfig for the embedded cluster here.")
  Path kubeconfig;

  @Option(
      names = "--metrics-port",
      defaultValue = "0",
      description = "Port of /metrics (default: any free port, printed).")
  int metricsPort;

  @Option(
      names = "--api-port",
      defaultValue = "0",
      description = "Port of the embedded API server (default: any free port, printed).")
  int apiPort;

  @Option(
      names = "--stall-after",
      defaultValue = "2m",
      converter = DurationParser.class,
      description = "stall-after on the simulated clock (default ${DEFAULT-VALUE}).")
  Duration stallAfter;

  @Option(
      names = "--speed",
      defaultValue = "50",
      description = "Simulated seconds per real second at most (default ${DEFAULT-VALUE}).")
  long speed;

  /** Picocli's list of scenario names for help and completion. */
  static final class ScenarioNames extends java.util.ArrayList<String> {
    ScenarioNames() {
      super(Scenarios.names());
    }
  }

  @Override
  public Integer call() throws Exception {
    if (serve && kubeconfig == null) {
      throw new ExitCodes.UserException(
          "--serve needs --kubeconfig PATH to write the kubeconfig to");
    }
    if (!serve && kubeconfig != null) {
      throw new ExitCodes.UserException("--kubeconfig is only used with --serve");
    }
    if (speed < 1 || speed > 600) {
      throw new ExitCodes.UserException("--speed must be between 1 and 600, got " + speed);
    }
    Scenario scenario;
    try {
      scenario = Scenarios.named(scenarioName);
    } catch (IllegalArgumentException e) {
      throw new ExitCodes.UserException(e.getMessage(), e);
    }
    // The story is the output; framework chatter stays off the terminal.
    LogSetup.apply("warn", LogSetup.Format.text);
    PrintWriter out = spec.commandLine().getOut();
    try (DemoStory story = new DemoStory(out, scenario, speed, stallAfter)) {
      story.start(apiPort, metricsPort);
      if (serve) {
        story.api().writeKubeconfig(kubeconfig);
      }
      Duration limit = Duration.ofSeconds(60);
      story.showInitialRollout(limit);
      var stall = story.waitForStallOrCompletion(limit);
      if (stall.isEmpty()) {
        story.showCompletion();
        return serve ? serveUntilStopped(story, out) : ExitCodes.OK;
      }
      story.showStall();
      if (serve) {
        return serveUntilStopped(story, out);
      }
      boolean resolved = story.rollBackAndShowResolution(limit);
      out.println();
      out.println(
          resolved
              ? "Done: stall found, recorded, reported and resolved by the rollback."
              : "The stall did not resolve within "
                  + Durations.compact(limit)
                  + " after the rollback.");
      out.flush();
      return resolved ? ExitCodes.OK : ExitCodes.STALLED;
    }
  }

  private int serveUntilStopped(DemoStory story, PrintWriter out) throws InterruptedException {
    story.realSpeed();
    out.println();
    out.println("Serving until Ctrl-C (the cluster's clock now runs at real speed):");
    out.printf("  kubectl --kubeconfig %s get rolloutstalls -A%n", kubeconfig);
    out.printf("  kubectl --kubeconfig %s get ds -A%n", kubeconfig);
    out.printf("  curl -s http://127.0.0.1:%d/metrics | grep ^stallwatch_%n", story.metricsPort());
    out.println(SERVING);
    out.flush();
    CountDownLatch stop = new CountDownLatch(1);
    Thread hook = new Thread(stop::countDown, "stallwatch-demo-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      stop.await();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // already shutting down
      }
    }
    return ExitCodes.OK;
  }

  /** The line printed once everything serves; tests wait for it. */
  static final String SERVING = "serving.";
}
