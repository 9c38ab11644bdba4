package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.realcluster.RealCluster.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cluster.sh} fails in one line and leaves nothing behind: a component that crashes on
 * start, a stop, and an owner process that dies without stopping the cluster.
 */
@ExtendWith(RealClusterExtension.class)
class ClusterScriptIT {
  static final Path SCRIPT = RealCluster.SCRIPTS.resolve("cluster.sh");
  static Path bin;

  @BeforeAll
  static void binaries(RealCluster running) {
    bin = RealCluster.binaries();
  }

  @Test
  void aComponentThatCrashesOnStartIsNamedWithItsLogAndNothingIsLeftRunning(@TempDir Path tmp)
      throws IOException {
    Path broken = Files.createDirectories(tmp.resolve("bin"));
    for (String b :
        List.of("etcd", "kube-controller-manager", "kube-scheduler", "kubectl", "kwok")) {
      Files.createSymbolicLink(broken.resolve(b), bin.resolve(b));
    }
    Path apiserver = broken.resolve("kube-apiserver");
    Files.writeString(apiserver, "#!/bin/sh\necho 'bind: address already in use' >&2\nexit 1\n");
    Files.setPosixFilePermissions(apiserver, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path dir = tmp.resolve("cluster");

    Result r = script("start", "--dir", dir.toString(), "--bin", broken.toString(), "--nodes", "1");

    assertThat(r.code()).isEqualTo(1);
    assertThat(r.output().strip().lines())
        .containsExactly(
            "realcluster: kube-apiserver exited with code 1 (log: "
                + dir.resolve("logs/kube-apiserver.log")
                + ")");
    assertThat(dir.resolve("logs/kube-apiserver.log")).content().contains("address already in use");
    assertThat(processesUnder(dir)).as("processes started for " + dir).isEmpty();
  }

  @Test
  void theClusterStopsWhenItsOwnerDies(@TempDir Path tmp) throws Exception {
    Process owner = new ProcessBuilder("sleep", "600").start();
    Path dir = tmp.resolve("cluster");
    try {
      Result r =
          script(
              "start",
              "--dir",
              dir.toString(),
              "--bin",
              bin.toString(),
              "--nodes",
              "1",
              "--owner-pid",
              String.valueOf(owner.pid()));
      assertThat(r.code()).as(r.output()).isZero();
      assertThat(processesUnder(dir)).hasSizeGreaterThanOrEqualTo(5);
    } finally {
      owner.destroyForcibly().waitFor();
    }
    await("every process of the cluster gone")
        .atMost(Duration.ofSeconds(30))
        .until(() -> processesUnder(dir).isEmpty());
    assertThat(dir.resolve("logs/supervisor.log")).content().contains("owner process");
  }

  @Test
  void stopLeavesNothingRunning(@TempDir Path tmp) {
    Path dir = tmp.resolve("cluster");
    Result r = script("start", "--dir", dir.toString(), "--bin", bin.toString(), "--nodes", "0");
    assertThat(r.code()).as(r.output()).isZero();
    assertThat(script("start", "--dir", dir.toString(), "--bin", bin.toString()).output())
        .as("a second start in the same folder")
        .contains("a cluster is already running in " + dir);

    assertThat(script("stop", "--dir", dir.toString()).code()).isZero();

    assertThat(processesUnder(dir)).isEmpty();
  }

  private static Result script(String... args) {
    List<String> command = new java.util.ArrayList<>(List.of("bash", SCRIPT.toString()));
    command.addAll(List.of(args));
    return Result.run(command, Map.of(), Duration.ofMinutes(3));
  }

  /** Live processes whose command line mentions {@code dir} (every component names its dir). */
  private static List<ProcessHandle> processesUnder(Path dir) {
    return ProcessHandle.allProcesses()
        .filter(ProcessHandle::isAlive)
        .filter(p -> p.info().commandLine().map(c -> c.contains(dir.toString())).orElse(false))
        .toList();
  }
}
