package dev.stallwatch.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.main.StallwatchCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class DemoIT {
  @TempDir Path dir;

  @Test
  void theDemoTellsTheSeedStoryEndToEndAndExitsZero() {
    StringWriter out = new StringWriter();
    CommandLine cli = StallwatchCommand.commandLine();
    cli.setOut(new PrintWriter(out, true));

    int code = cli.execute("demo");

    String story = out.toString();
    assertThat(code).as(story).isZero();
    // Told in at most 50 simulated minutes: at --speed 50, a minute of real time when the machine
    // keeps pace (a busy one slows the story down; it never skips a part).
    assertThat(lastStoryTime(story)).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(50));
    assertThat(story)
        .contains("$ kubectl get ds -n gpu-operator")
        .containsPattern("nvidia-container-toolkit\\s+3\\s+3\\s+2\\s+1\\s+2")
        .contains("gpu-node-1 none")
        .contains("gpu-node-2 old")
        .containsPattern("gpu-node-1\\s+ImagePull\\s+\\w+\\s+\\w+\\s+2/3\\s+Active")
        .contains(
            "stallwatch_rollout_stalled{cause=\"ImagePull\",daemonset=\"nvidia-container-toolkit\"")
        .contains("Warning   RolloutStalled")
        .contains("kubectl rollout undo daemonset/nvidia-container-toolkit")
        .containsPattern("ImagePull\\s+\\w+\\s+\\w+\\s+2/3\\s+Resolved")
        .contains("(no series: nothing is stalled)")
        .contains("Normal   RolloutResolved")
        .containsPattern("nvidia-container-toolkit\\s+3\\s+3\\s+3\\s+3\\s+3")
        .contains("Done: stall found, recorded, reported and resolved by the rollback.");
    assertThat(story.indexOf("RolloutStalled")).isLessThan(story.indexOf("rollout undo"));
  }

  @Test
  void kubectlGetRolloutStallsAgainstDemoServeShowsTheColumns() throws Exception {
    Path kubeconfig = dir.resolve("kubeconfig");
    StringWriter out = new StringWriter();
    AtomicInteger code = new AtomicInteger(-1);
    Thread demo =
        new Thread(
            () -> {
              CommandLine cli = StallwatchCommand.commandLine();
              cli.setOut(new PrintWriter(out, true));
              code.set(cli.execute("demo", "--serve", "--kubeconfig", kubeconfig.toString()));
            },
            "demo-serve");
    demo.start();
    try {
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> out.toString().contains(DemoCommand.SERVING) || code.get() >= 0);
      assertThat(code.get()).as(out.toString()).isEqualTo(-1);
      assertThat(Files.exists(kubeconfig)).isTrue();

      List<String> lines = kubectl(kubeconfig, "get", "rolloutstalls", "-A");
      assertThat(lines.get(0).split("\\s+"))
          .containsExactly(
              "NAMESPACE",
              "NAME",
              "DAEMONSET",
              "API",
              "NODE",
              "CAUSE",
              "OLD",
              "NEW",
              "READY",
              "PHASE",
              "AGE");
      assertThat(lines)
          .anySatisfy(
              l ->
                  assertThat(l)
                      .startsWith("gpu-operator")
                      .contains("nvidia-container-toolkit")
                      .contains("apps/v1")
                      .contains("gpu-node-1")
                      .contains("ImagePull")
                      .contains("Active"));

      // The CLI against the served cluster, whose clock runs ahead of the wall clock: it dates
      // nodes by the cluster's clock and defers to the operator's record — wait ends at once.
      for (String command : List.of("wait", "status")) {
        StringWriter said = new StringWriter();
        CommandLine cli = StallwatchCommand.commandLine();
        cli.setOut(new PrintWriter(said, true));
        cli.setErr(new PrintWriter(said, true));
        long started = System.nanoTime();
        List<String> args =
            new java.util.ArrayList<>(
                List.of(
                    command,
                    "ds/nvidia-container-toolkit",
                    "-n",
                    "gpu-operator",
                    "--kubeconfig",
                    kubeconfig.toString()));
        if (command.equals("wait")) {
          args.addAll(List.of("--timeout", "30s"));
        }
        int exit = cli.execute(args.toArray(String[]::new));
        assertThat(exit).as("%s:%n%s", command, said).isEqualTo(1);
        // The bound is the point: it defers to the operator's record and ends at once, where
        // judging by the wall clock would wait out its 30 s timeout; 10 s is room for load.
        assertThat(Duration.ofNanos(System.nanoTime() - started))
            .as("%s took", command)
            .isLessThan(Duration.ofSeconds(10));
        assertThat(said.toString()).as(command).contains("Stalled").contains("gpu-node-1");
      }

      // After the story the served cluster's clock runs at real speed (50x before): it takes at
      // least a real second for its stamps (whole seconds) to move by two seconds, where 50x
      // would take some 40 ms.
      try (var client =
          new io.fabric8.kubernetes.client.KubernetesClientBuilder()
              .withConfig(
                  io.fabric8.kubernetes.client.Config.fromKubeconfig(Files.readString(kubeconfig)))
              .build()) {
        java.time.Instant a = created(client, "clock-a");
        long realStart = System.nanoTime();
        AtomicInteger probes = new AtomicInteger();
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .until(
                () -> created(client, "clock-probe-" + probes.incrementAndGet()),
                b -> !b.isBefore(a.plusSeconds(2)));
        assertThat(Duration.ofNanos(System.nanoTime() - realStart))
            .as("real time for the served clock to move 2 s")
            .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
      }
    } finally {
      demo.interrupt();
      demo.join(TimeUnit.SECONDS.toMillis(30));
    }
  }

  /** The last {@code [mm:ss]} simulated time the story printed. */
  private static Duration lastStoryTime(String story) {
    Duration last = Duration.ZERO;
    var m = java.util.regex.Pattern.compile("(?m)^\\[(\\d+):(\\d\\d)\\] ").matcher(story);
    while (m.find()) {
      last = Duration.ofMinutes(Long.parseLong(m.group(1))).plusSeconds(Long.parseLong(m.group(2)));
    }
    return last;
  }

  private static java.time.Instant created(
      io.fabric8.kubernetes.client.KubernetesClient client, String name) {
    var cm =
        client
            .configMaps()
            .inNamespace("default")
            .resource(
                new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace("default")
                    .endMetadata()
                    .build())
            .create();
    return java.time.Instant.parse(cm.getMetadata().getCreationTimestamp());
  }

  private static List<String> kubectl(Path kubeconfig, String... args) throws Exception {
    List<String> command =
        new java.util.ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(text).isZero();
    return text.lines().toList();
  }
}
