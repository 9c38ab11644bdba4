package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import dev.stallwatch.testing.DaemonSetFixture.Seed;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real kubectl against the embedded cluster while the operator records a stall. */
class KubectlRolloutStallsIT {
  @TempDir Path dir;

  @Test
  void kubectlGetRolloutStallsShowsTheColumnsAtAGlanceAndMoreWithWide() throws Exception {
    try (TestApiServer cluster = new TestApiServer()) {
      DaemonSetFixture.seed(cluster.client(), Seed.NS, Seed.DS, Instant.now()).nodes(Seed.NODES);
      DaemonSetFixture.seed(cluster.client(), Seed.NS, Seed.DS, Instant.now()).stalledOnFirstNode();
      OperatorSettings settings =
          new OperatorSettings(
              Set.of(), Duration.ofSeconds(2), Duration.ofHours(24), 0, false, null);
      try (StallwatchOperator operator =
          StallwatchOperator.start(
              cluster.client(),
              settings,
              new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
              StallwatchOperator.Timing.REAL)) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    cluster
                        .client()
                        .resources(RolloutStall.class)
                        .inAnyNamespace()
                        .list()
                        .getItems(),
                l -> !l.isEmpty());
        Path kubeconfig = cluster.writeKubeconfig(dir.resolve("kubeconfig"));

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
        assertThat(lines.get(1).split("\\s+"))
            .startsWith(
                Seed.NS,
                Seed.DS + "-" + Seed.NEW_HASH,
                Seed.DS,
                "apps/v1",
                "gpu-node-1",
                "ImagePull",
                Seed.OLD_HASH,
                Seed.NEW_HASH,
                "2/3",
                "Active");

        List<String> wide = kubectl(kubeconfig, "get", "rstall", "-n", Seed.NS, "-o", "wide");
        assertThat(wide.get(0))
            .contains(
                "STALLED-NODES",
                "SPLIT",
                "SUSPECT",
                "REASON",
                "OLD-IMAGE",
                "NEW-IMAGE",
                "STALLED-SINCE",
                "ROLLED-BACK");
        assertThat(wide.get(1))
            .contains("2 old / 0 new / 1 none")
            .contains("NewRevision")
            .contains("ImagePullBackOff");

        // The category: `kubectl get stallwatch` lists every stallwatch resource.
        assertThat(kubectl(kubeconfig, "get", "stallwatch", "-A"))
            .anySatisfy(l -> assertThat(l).contains(Seed.DS + "-" + Seed.NEW_HASH));
      }
    }
  }

  private static List<String> kubectl(Path kubeconfig, String... args)
      throws IOException, InterruptedException {
    List<String> command =
        new java.util.ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("kubectl finished").isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("kubectl %s said: %s", command, out).isZero();
    return out.lines().toList();
  }
}
