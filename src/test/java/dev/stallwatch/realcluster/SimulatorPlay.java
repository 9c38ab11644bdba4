package dev.stallwatch.realcluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.sim.Scenario;
import dev.stallwatch.sim.SimClock;
import dev.stallwatch.sim.SimulatedCluster;
import dev.stallwatch.testcluster.TestApiServer;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * A scenario played by the simulator, as {@code stallwatch demo} plays it: on the embedded API
 * server, on a virtual clock, until {@link #JUDGED_AFTER} after its last event; then the analyzer
 * judges it and the status the simulated controller wrote is read.
 */
final class SimulatorPlay {

  /**
   * How long after a scenario's last event both sides are judged: past stall-after, and past the
   * simulator's slower pace — it moves in {@link #STEP} ticks, so a node takes about a minute
   * (graceful deletion, creation, readiness, one tick each) where the real controllers and kwok
   * take a second or two. End states are compared, not speeds.
   */
  static final Duration JUDGED_AFTER =
      AnalyzerSettings.DEFAULT_STALL_AFTER.plus(Duration.ofMinutes(5));

  static final Duration STEP = Duration.ofSeconds(15);

  /**
   * @param unplayable why kwok cannot play the pods this play created, one sentence each
   */
  record Result(PlayOutcome outcome, List<String> unplayable) {}

  private SimulatorPlay() {}

  static Result play(Scenario scenario) {
    if (scenario.daemonSets().size() != 1) {
      throw new IllegalArgumentException(
          scenario.name() + ": compared scenarios have exactly one DaemonSet");
    }
    DaemonSet ds0 = scenario.daemonSets().get(0);
    String ns = ds0.getMetadata().getNamespace();
    String name = ds0.getMetadata().getName();
    SimClock clock = SimClock.virtual(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    try (TestApiServer api = new TestApiServer(clock)) {
      KubernetesClient client = api.client();
      SimulatedCluster cluster = SimulatedCluster.install(client, scenario, clock);
      cluster.runFor(lastEvent(scenario).plus(JUDGED_AFTER), STEP);
      DaemonSet ds = client.apps().daemonSets().inNamespace(ns).withName(name).get();
      var revisions = client.apps().controllerRevisions().inNamespace(ns).list().getItems();
      var verdict =
          RolloutAnalyzer.analyze(
              Snapshots.of(
                  ds,
                  client.pods().inNamespace(ns).list().getItems(),
                  client.nodes().list().getItems(),
                  revisions),
              clock.instant(),
              AnalyzerSettings.DEFAULTS);
      PlayOutcome outcome = PlayOutcome.of(verdict, ds, UnaryOperator.identity());

      KwokCues kwok = new KwokCues(scenario.kubeletScript());
      Set<String> why = new LinkedHashSet<>(kwok.unplayableScript());
      for (PodSpec spec : podSpecs(scenario, revisions)) {
        why.addAll(kwok.unplayable(spec));
      }
      return new Result(outcome, List.copyOf(why));
    }
  }

  /** When the scenario's last event happens (zero without events). */
  static Duration lastEvent(Scenario scenario) {
    return scenario.events().stream()
        .map(Scenario.Event::at)
        .max(Duration::compareTo)
        .orElse(Duration.ZERO);
  }

  /** Every template the DaemonSet had (from its ControllerRevisions) and the scenario's pods. */
  private static List<PodSpec> podSpecs(
      Scenario scenario, List<io.fabric8.kubernetes.api.model.apps.ControllerRevision> revisions) {
    List<PodSpec> specs = new ArrayList<>();
    for (var r : revisions) {
      JsonNode template =
          Serialization.jsonMapper().convertValue(r.getData(), JsonNode.class).at("/spec/template");
      specs.add(Serialization.jsonMapper().convertValue(template, PodTemplateSpec.class).getSpec());
    }
    scenario.pods().forEach(p -> specs.add(p.getSpec()));
    return specs;
  }
}
