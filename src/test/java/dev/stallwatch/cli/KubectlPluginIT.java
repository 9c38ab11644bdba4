package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code kubectl-stallwatch} launcher, installed on PATH as the README says, run by the real
 * kubectl (and directly) against the packaged jar.
 */
class KubectlPluginIT {

  static final Path LAUNCHER = Path.of("src/main/dist/kubectl-stallwatch");
  static final Path JAR = Path.of("target/stallwatch.jar").toAbsolutePath();

  @TempDir Path tmp;
  Path bin;

  record Result(int exitCode, String out, String err) {}

  @BeforeEach
  void install() throws IOException {
    assertThat(JAR).as("the packaged jar (run the ITs with ./mvnw verify)").exists();
    bin = Files.createDirectories(tmp.resolve("bin"));
    Path installed = Files.copy(LAUNCHER, bin.resolve("kubectl-stallwatch"));
    Files.setPosixFilePermissions(installed, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  Result run(Map<String, String> env, String... command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().remove("STALLWATCH_JAR");
    pb.environment().remove("STALLWATCH_JAVA_OPTS");
    pb.environment().put("STALLWATCH_CDS_DIR", cds().toString());
    pb.environment().putAll(env);
    pb.redirectOutput(tmp.resolve("out").toFile());
    pb.redirectError(tmp.resolve("err").toFile());
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("finished within a minute").isTrue();
    return new Result(
        p.exitValue(),
        Files.readString(tmp.resolve("out"), StandardCharsets.UTF_8),
        Files.readString(tmp.resolve("err"), StandardCharsets.UTF_8));
  }

  @Test
  void kubectlFindsThePluginOnPathAndRunsTheJar() throws Exception {
    Result list = run(Map.of(), "kubectl", "plugin", "list");
    Result version =
        run(Map.of("STALLWATCH_JAR", JAR.toString()), "kubectl", "stallwatch", "--version");

    assertThat(list.out()).contains(bin.resolve("kubectl-stallwatch").toString());
    assertThat(version.exitCode()).as(version.err()).isZero();
    assertThat(version.out()).startsWith("stallwatch ");
  }

  @Test
  void kubectlStallwatchStatusReportsTheClusterAndKeepsTheExitCode() throws Exception {
    // The CLI judges by the server's clock (its Date header): moved on past --stall-after 1s
    // once the pods are there, no waiting.
    dev.stallwatch.sim.SimClock serverClock = dev.stallwatch.sim.SimClock.virtual(Instant.now());
    try (TestApiServer server = new TestApiServer(serverClock)) {
      DaemonSetFixture toolkit = new DaemonSetFixture(server.client(), "gpu", "toolkit");
      toolkit.nodes("gpu-node-1", "gpu-node-2");
      toolkit.daemonSet(2, 2, 1, 1);
      toolkit.waitingPod("gpu-node-1", 2, Instant.now(), "ImagePullBackOff", "Back-off");
      toolkit.readyPod("gpu-node-2", 1, Instant.now());
      Path kubeconfig = server.writeKubeconfig(tmp.resolve("kubeconfig"));
      serverClock.advance(Duration.ofSeconds(3));

      List<String> command =
          new ArrayList<>(List.of("kubectl", "stallwatch", "status", "-n", "gpu"));
      command.addAll(List.of("--kubeconfig", kubeconfig.toString(), "--stall-after", "1s"));
      Result status = run(Map.of("STALLWATCH_JAR", JAR.toString()), command.toArray(String[]::new));

      assertThat(status.exitCode()).as(status.err()).isEqualTo(ExitCodes.STALLED);
      assertThat(status.out()).contains("toolkit", "Stalled", "gpu-node-1", "ImagePull");
    }
  }

  @Test
  void findsTheJarNextToTheLauncherWithoutConfiguration() throws Exception {
    Files.createSymbolicLink(bin.resolve("stallwatch.jar"), JAR);

    Result version = run(Map.of(), bin.resolve("kubectl-stallwatch").toString(), "--version");

    assertThat(version.exitCode()).as(version.err()).isZero();
    assertThat(version.out()).startsWith("stallwatch ");
  }

  Path cds() {
    return tmp.resolve("cds");
  }

  List<String> archives() throws IOException {
    if (!Files.isDirectory(cds())) {
      return List.of();
    }
    try (var files = Files.list(cds())) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void theFirstRunOfACommandArchivesItsClassesAndLaterRunsMapThem() throws Exception {
    String[] diagnose = {
      bin.resolve("kubectl-stallwatch").toString(),
      "diagnose",
      "-f",
      Path.of("docs/examples/image-pull-stall.json").toAbsolutePath().toString(),
      "--now",
      "2026-12-02T10:00:00Z"
    };
    Map<String, String> jar = Map.of("STALLWATCH_JAR", JAR.toString());
    ProcessBuilder plain =
        new ProcessBuilder("java", "-jar", JAR.toString(), "diagnose")
            .redirectOutput(tmp.resolve("plain").toFile());
    plain.command().addAll(List.of(diagnose).subList(2, diagnose.length));
    int plainExit = plain.start().waitFor();
    String expected = Files.readString(tmp.resolve("plain"));

    Result first = run(jar, diagnose);
    List<String> afterFirst = archives();
    // The JVM's own account of what it mapped (the launcher logs errors only; this comes after).
    Path cdsLog = tmp.resolve("cds.log");
    Result second =
        run(
            Map.of(
                "STALLWATCH_JAR",
                JAR.toString(),
                "STALLWATCH_JAVA_OPTS",
                "-Xshare:on -Xlog:cds=info:file=" + cdsLog),
            diagnose);
    Result version = run(jar, bin.resolve("kubectl-stallwatch").toString(), "--version");

    assertThat(plainExit).isEqualTo(ExitCodes.STALLED);
    assertThat(first.exitCode()).as(first.err()).isEqualTo(ExitCodes.STALLED);
    assertThat(first.out()).isEqualTo(expected);
    assertThat(afterFirst).singleElement().asString().matches("stallwatch-\\d+-diagnose\\.jsa");
    assertThat(second.exitCode()).as(second.err()).isEqualTo(ExitCodes.STALLED);
    assertThat(second.out()).isEqualTo(expected);
    assertThat(second.err()).doesNotContain("shared archive");
    assertThat(Files.readString(cdsLog)).contains("Mapped dynamic region");
    assertThat(version.exitCode()).as(version.err()).isZero();
    assertThat(archives())
        .as("one archive per command, none left half-written")
        .hasSize(2)
        .anyMatch(a -> a.endsWith("-diagnose.jsa"))
        .anyMatch(a -> a.endsWith("-other.jsa"));
  }

  @Test
  void aChangedJarGetsAnArchiveOfItsOwnAndCdsOffWritesNone() throws Exception {
    Path copy = Files.copy(JAR, tmp.resolve("stallwatch.jar"));
    Map<String, String> env = Map.of("STALLWATCH_JAR", copy.toString());
    String launcher = bin.resolve("kubectl-stallwatch").toString();

    run(env, launcher, "--version");
    Files.setLastModifiedTime(
        copy, java.nio.file.attribute.FileTime.from(Instant.now().minusSeconds(3600)));
    Result rebuilt = run(env, launcher, "--version");
    List<String> two = archives();
    Result off =
        run(
            Map.of("STALLWATCH_JAR", copy.toString(), "STALLWATCH_CDS", "off"),
            launcher,
            "demo",
            "--help");

    assertThat(rebuilt.exitCode()).as(rebuilt.err()).isZero();
    assertThat(rebuilt.err()).as("no warning about the old archive").isEmpty();
    assertThat(two).hasSize(2);
    assertThat(off.exitCode()).as(off.err()).isZero();
    assertThat(archives()).isEqualTo(two);
  }

  @Test
  void saysWhereItLookedWhenTheJarIsMissing() throws Exception {
    Result result = run(Map.of(), bin.resolve("kubectl-stallwatch").toString(), "--version");

    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(result.err())
        .startsWith("error: kubectl-stallwatch cannot find stallwatch.jar: set STALLWATCH_JAR");
  }
}
