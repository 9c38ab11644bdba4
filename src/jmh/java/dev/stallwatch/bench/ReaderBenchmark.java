package dev.stallwatch.bench;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.kube.dump.Dump;
import dev.stallwatch.kube.dump.DumpReader;
import dev.stallwatch.kube.dump.DumpSnapshots;
import dev.stallwatch.kube.dump.LargeDump;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reading a {@code kubectl get … -o json} dump of {@code nodes} nodes and as many pods ({@link
 * LargeDump}: kubelet-shaped objects, ≈ 58 MB at 5,000 nodes) into what {@code diagnose} analyzes.
 *
 * <ul>
 *   <li>{@code read}: {@link DumpReader} (streaming, views made while reading);
 *   <li>{@code readAndGroup}: the same plus {@link DumpSnapshots#group}, i.e. everything {@code
 *       diagnose} does before the analysis;
 *   <li>{@code tokensOnly}: Jackson walking every token of the file and nothing else, the floor for
 *       any JSON reader on this JVM;
 *   <li>{@code wholeTree}: the whole file as one Jackson tree, which the reader did before (then
 *       mapping every object to fabric8 on top) and which does not fit in 256 MiB at 5,000 nodes.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx1g"})
public class ReaderBenchmark {
  @Param({"5000"})
  int nodes;

  Path file;
  final ObjectMapper mapper = new ObjectMapper();

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    file = Files.createTempFile("stallwatch-reader-bench-", ".json");
    LargeDump.write(file, nodes);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    Files.deleteIfExists(file);
  }

  @Benchmark
  public Dump read() {
    return new DumpReader(InputStream.nullInputStream()).read(List.of(file.toString()));
  }

  @Benchmark
  public DumpSnapshots.Grouped readAndGroup() {
    return DumpSnapshots.group(read());
  }

  @Benchmark
  public long tokensOnly() throws IOException {
    long tokens = 0;
    try (JsonParser p = mapper.createParser(file.toFile())) {
      while (p.nextToken() != null) {
        tokens++;
      }
    }
    return tokens;
  }

  @Benchmark
  public JsonNode wholeTree() throws IOException {
    return mapper.readTree(file.toFile());
  }
}
