package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.realcluster.SimulatorVsRealTable.Match;
import dev.stallwatch.realcluster.SimulatorVsRealTable.Row;
import dev.stallwatch.sim.Scenario;
import dev.stallwatch.sim.Scenarios;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulator checked against the real thing: every scenario of the demo's catalogue is played by
 * the simulator and, where kwok can act its kubelets, by the real DaemonSet controller and
 * scheduler; both are judged by the analyzer and must agree on phase, cause, stalled nodes, the
 * per-node split and the six status numbers. The real controllers are the reference: a difference
 * is a simulator bug.
 *
 * <p>Nodes a scenario defines alike are interchangeable (upstream picks among them at random); when
 * the real controller's pick changed the end state, the simulator replays the same pick order and
 * must then end in exactly the real state.
 *
 * <p>When every scenario ran, the table in {@code docs/real-cluster.md} is rewritten, and the test
 * fails if the committed table was stale (commit the rewritten file). {@code
 * -Dstallwatch.simreal.scenarios=a,b} plays only those (the table is then left alone). Scenarios
 * play three at a time (failsafe's JUnit configuration): each has its own namespace and nodes.
 */
@ExtendWith(RealClusterExtension.class)
class SimulatorVsRealClusterIT {
  private static final Logger LOG = LoggerFactory.getLogger(SimulatorVsRealClusterIT.class);

  static final Path DOC = RealCluster.PROJECT.resolve("docs/real-cluster.md");

  static RealCluster cluster;
  static final Map<String, Row> rows = new LinkedHashMap<>();

  @BeforeAll
  static void start(RealCluster c) {
    cluster = c;
  }

  static Stream<String> scenarios() {
    String only = System.getProperty("stallwatch.simreal.scenarios", "");
    return only.isBlank()
        ? Scenarios.names().stream()
        : Arrays.stream(only.split(",")).map(String::strip);
  }

  // Concurrent among themselves only: the class runs alone, as every other.
  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  @org.junit.jupiter.api.parallel.Execution(org.junit.jupiter.api.parallel.ExecutionMode.CONCURRENT)
  void theSimulatorEndsWhereTheRealControllersEnd(String name) {
    Scenario scenario = Scenarios.named(name);
    SimulatorPlay.Result sim = SimulatorPlay.play(scenario);
    if (!sim.unplayable().isEmpty()) {
      record(new Row(name, sim.outcome(), null, Match.NOT_PLAYED, "", sim.unplayable()));
      return;
    }
    KwokPlay.Result real;
    try (KwokPlay play = new KwokPlay(cluster, scenario)) {
      real = play.play();
    }
    LOG.info(
        "{}:\n  simulator: {}\n    {}\n  real:      {}\n    {}",
        name,
        sim.outcome().message(),
        String.join("\n    ", sim.outcome().details()),
        real.outcome().message(),
        String.join("\n    ", real.outcome().details()));
    Row row = compare(scenario, sim.outcome(), real);
    record(row);
    assertThat(row.match())
        .as(
            "%s%n  simulator:        %s%n  real controllers: %s%n  real pick order: %s",
            name, sim.outcome(), real.outcome(), real.updateOrder())
        .isNotEqualTo(Match.DIFFERENT);
  }

  private static Row compare(Scenario scenario, PlayOutcome sim, KwokPlay.Result real) {
    NodeSymmetry symmetry = NodeSymmetry.of(scenario, real.touchedNodes());
    var rename = symmetry.renaming(real.outcome(), sim);
    if (rename.isPresent()) {
      LOG.info(
          "{}: real and simulator agree: {} (real nodes renamed {})",
          scenario.name(),
          sim,
          rename.get());
      return new Row(
          scenario.name(), sim, real.outcome().renamed(rename.get()), Match.SAME, "", List.of());
    }
    // Upstream's pick order is chance: replay the real controller's order in the simulator.
    PlayOutcome replayed =
        SimulatorPlay.play(scenario.withUpdateOrder(real.updateOrder())).outcome();
    LOG.info(
        "{}: real {} differs from the simulator's {}; replayed in the real order {}: {}",
        scenario.name(),
        real.outcome(),
        sim,
        real.updateOrder(),
        replayed);
    if (replayed.sameAs(real.outcome())) {
      return new Row(
          scenario.name(),
          sim,
          real.outcome(),
          Match.SAME_IN_REAL_ORDER,
          "(real order: " + String.join(", ", real.updateOrder()) + ")",
          List.of());
    }
    return new Row(
        scenario.name(),
        sim,
        real.outcome(),
        Match.DIFFERENT,
        "(simulator in the real order: " + replayed + ")",
        List.of());
  }

  private static synchronized void record(Row row) {
    rows.put(row.scenario(), row);
  }

  @AfterAll
  static void writeTheTable() {
    if (!rows.keySet().containsAll(Scenarios.names())) {
      LOG.info("not every scenario played: docs/real-cluster.md left alone");
      return;
    }
    List<Row> ordered = new ArrayList<>();
    Scenarios.names().forEach(n -> ordered.add(rows.get(n)));
    String produced = SimulatorVsRealTable.render(ordered, versions());
    String committed = SimulatorVsRealTable.committed(DOC);
    SimulatorVsRealTable.write(DOC, produced);
    assertThat(SimulatorVsRealTable.differences(committed, produced))
        .as("docs/real-cluster.md was stale; the test rewrote it: review and commit it")
        .isEmpty();
  }

  private static String versions() {
    Properties v = new Properties();
    try (var in = Files.newBufferedReader(RealCluster.SCRIPTS.resolve("versions.env"))) {
      v.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return "kube-apiserver, kube-controller-manager and kube-scheduler "
        + v.getProperty("KUBERNETES_VERSION")
        + ", kwok "
        + v.getProperty("KWOK_VERSION")
        + " as the kubelets";
  }
}
