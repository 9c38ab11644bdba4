package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.kube.dump.LargeDump;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code diagnose} on a large generated dump ({@link LargeDump}: kubelet-shaped nodes and pods, one
 * stalled DaemonSet rollout) in a child JVM limited to {@code -Xmx256m}, as issue 11 requires: the
 * reader streams, so the dump never has to fit in memory as a whole. 2,000 nodes (≈ 23 MB) in CI;
 * {@code -Dstallwatch.largeDump.nodes=5000} (≈ 58 MB) is the benchmark size (docs/benchmarks.md).
 */
class LargeDumpDiagnoseIT {

  static final Path JAR = Path.of("target/stallwatch.jar").toAbsolutePath();
  static final int NODES = Integer.getInteger("stallwatch.largeDump.nodes", 2000);

  @TempDir Path tmp;

  @Test
  void a_large_dump_is_diagnosed_in_256_MiB_of_heap() throws Exception {
    assertThat(JAR).as("the packaged jar (run the ITs with ./mvnw verify)").exists();
    Path dump = tmp.resolve("dump.json");
    LargeDump.write(dump, NODES);
    Path out = tmp.resolve("out");
    Path err = tmp.resolve("err");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
            List.of(
                java,
                "-Xmx256m",
                "-jar",
                JAR.toString(),
                "diagnose",
                "-f",
                dump.toString(),
                "--now",
                LargeDump.NOW.toString(),
                "-o",
                "json"));
    pb.redirectOutput(out.toFile());
    pb.redirectError(err.toFile());
    long started = System.nanoTime();
    Process p = pb.start();
    try {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("finished within a minute").isTrue();
    } finally {
      p.destroyForcibly();
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    String stderr = Files.readString(err, StandardCharsets.UTF_8);
    System.out.printf(
        "LargeDumpDiagnoseIT: %d nodes, %.1f MB, diagnose -Xmx256m %.2f s%n",
        NODES, Files.size(dump) / 1e6, seconds);

    assertThat(stderr).doesNotContain("error").doesNotContain("Exception");
    assertThat(p.exitValue())
        .as("exit code 1: a rollout is Stalled; stderr: %s", stderr)
        .isEqualTo(1);
    JsonNode report = new ObjectMapper().readTree(out.toFile());
    JsonNode ds = report.path("daemonSets").get(0);
    assertThat(ds.path("name").asText()).isEqualTo("fluent-bit");
    assertThat(ds.path("phase").asText()).isEqualTo("Stalled");
    assertThat(ds.path("cause").asText()).isEqualTo("ImagePull");
    assertThat(ds.path("evidence").asText()).isEqualTo("Full");
    assertThat(ds.path("stalledNodes")).hasSize(NODES / 10);
    assertThat(report.path("input").path("pods").asInt()).isEqualTo(NODES);
    assertThat(report.path("input").path("nodes").asInt()).isEqualTo(NODES);
  }

  @Test
  void out_of_memory_on_a_big_dump_exits_2_with_a_hint_never_1() throws Exception {
    Path big = tmp.resolve("big.json");
    try (var w = Files.newBufferedWriter(big)) {
      w.write("{\"kind\": \"List\", \"items\": [{\"kind\": \"Pod\", \"metadata\": {\"name\": \"");
      String chunk = "x".repeat(1 << 20);
      for (int i = 0; i < 48; i++) {
        w.write(chunk);
      }
      w.write("\"}}]}");
    }
    assertThat(JAR).as("the packaged jar (run the ITs with ./mvnw verify)").exists();
    Path err = tmp.resolve("big.err");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx32m",
                "-jar",
                JAR.toString(),
                "diagnose",
                "-f",
                big.toString())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(err.toFile())
            .start();
    try {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("finished within a minute").isTrue();
    } finally {
      p.destroyForcibly();
    }
    String message = Files.readString(err);

    assertThat(p.exitValue()).isEqualTo(ExitCodes.USAGE);
    assertThat(message).startsWith("error: out of memory (Java heap limit ").contains("-Xmx2g");
    assertThat(message.lines()).hasSize(1);
  }
}
