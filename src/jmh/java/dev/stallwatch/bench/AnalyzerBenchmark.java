package dev.stallwatch.bench;

import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.rollout.RolloutSnapshot;
import dev.stallwatch.rollout.RolloutVerdict;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The pure analyzer on one DaemonSet: the snapshot (views of every node, pod and revision) is built
 * once; each call is one {@link RolloutAnalyzer#analyze}. Pods per second = nodes / time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx1g"})
public class AnalyzerBenchmark {
  @Param({"500", "5000"})
  int nodes;

  @Param({"HEALTHY", "MID_ROLLOUT", "STALLED"})
  RolloutFixture.State state;

  RolloutSnapshot snapshot;

  @Setup
  public void setUp() {
    RolloutFixture f = new RolloutFixture(nodes, state);
    snapshot = f.snapshot();
    RolloutVerdict v = analyze();
    String expected =
        switch (state) {
          case HEALTHY -> "Complete";
          case MID_ROLLOUT -> "Progressing";
          case STALLED -> "Stalled";
        };
    if (!v.phase().name().equals(expected) || v.nodes().size() != nodes) {
      throw new IllegalStateException(
          "fixture " + state + " gave " + v.phase() + " over " + v.nodes().size() + " rows");
    }
  }

  @Benchmark
  public RolloutVerdict analyze() {
    return RolloutAnalyzer.analyze(snapshot, RolloutFixture.NOW, AnalyzerSettings.DEFAULTS);
  }
}
