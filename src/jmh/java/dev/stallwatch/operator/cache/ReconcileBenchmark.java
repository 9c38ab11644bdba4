package dev.stallwatch.operator.cache;

import dev.stallwatch.bench.RolloutFixture;
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
 * One reconcile's CPU path against a warm cache ({@link ReconcilePath}): snapshot plus analysis,
 * with the views kept per cached object versus rebuilt on every reconcile. JOSDK's dispatch and the
 * API writes are not in it (they need an API server; the scale run measures whole reconciles).
 * SampleTime: the report has p50/p99.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx1g"})
public class ReconcileBenchmark {
  @Param({"500", "5000"})
  int nodes;

  @Param({"MID_ROLLOUT", "STALLED"})
  RolloutFixture.State state;

  ReconcilePath path;

  @Setup
  public void setUp() {
    path = new ReconcilePath(new RolloutFixture(nodes, state));
  }

  @Benchmark
  public RolloutVerdict cachedViews() {
    return path.cachedViews();
  }

  @Benchmark
  public RolloutVerdict rebuiltViews() {
    return path.rebuiltViews();
  }
}
