package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stallwatch.kube.PodTemplates;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.testcluster.TestApiServer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every scenario of the catalogue, run on the mock API server: after every tick the status the
 * simulator wrote equals the analyzer's recount, and at the end the analyzer reads the story the
 * scenario tells (phase, cause, where).
 */
class ScenariosIT {

  static final Duration STEP = Duration.ofSeconds(15);

  /**
   * The mock server stamps creationTimestamp with wall-clock time, so the virtual clock starts at
   * the wall clock: pod ages the analyzer derives from creation stay plausible.
   */
  static SimClock clock() {
    return SimClock.virtual(Instant.now().truncatedTo(ChronoUnit.SECONDS));
  }

  static RolloutVerdict verdict(SimulatedCluster c) {
    var client = c.client();
    var ds =
        client
            .apps()
            .daemonSets()
            .inNamespace(Scenarios.NAMESPACE)
            .withName(Scenarios.DAEMON_SET)
            .get();
    var snapshot =
        Snapshots.of(
            ds,
            client.pods().inNamespace(Scenarios.NAMESPACE).list().getItems(),
            client.nodes().list().getItems(),
            client.apps().controllerRevisions().inNamespace(Scenarios.NAMESPACE).list().getItems());
    return RolloutAnalyzer.analyze(snapshot, c.clock().instant(), AnalyzerSettings.DEFAULTS);
  }

  static SimulatedCluster runChecked(TestApiServer api, String name, Duration howLong) {
    SimulatedCluster c = SimulatedCluster.install(api.client(), Scenarios.named(name), clock());
    c.runUntil(
        () -> {
          StatusAgreement.assertAgrees(api.client(), c.clock().instant());
          return false;
        },
        STEP,
        howLong);
    return c;
  }

  @ParameterizedTest(name = "{0} ends {1} with cause {2} on {3}")
  @CsvSource({
    "image-pull-stall, Stalled, ImagePull, gpu-node-1",
    "insufficient-gpu, Stalled, InsufficientResources, gpu-node-1",
    "toleration-dropped, Stalled, NodeExcluded, gpu-node-1 gpu-node-2 gpu-node-3",
    "node-selector-narrowed, Stalled, NodeExcluded, gpu-node-2 gpu-node-3",
    "crash-loop, Stalled, CrashLoop, gpu-node-1",
    "readiness-never, Stalled, NotReady, gpu-node-1",
    "init-waiting-driver, Stalled, NotReady, gpu-node-1",
    "node-unreachable, Stalled, NodeUnavailable, gpu-node-3",
    "max-surge-no-room, Stalled, InsufficientResources, gpu-node-1",
    "host-port-conflict, Stalled, Unschedulable, gpu-node-1",
    "container-creating-forever, Stalled, Unknown, gpu-node-1",
  })
  void aStallScenarioEndsAsItsStorySays(String name, Phase phase, Cause cause, String nodes) {
    try (TestApiServer api = new TestApiServer()) {
      SimulatedCluster c = runChecked(api, name, Duration.ofMinutes(8));
      RolloutVerdict v = verdict(c);
      assertThat(v.phase()).as(v.message()).isEqualTo(phase);
      assertThat(v.cause()).as(v.message()).isEqualTo(cause);
      assertThat(v.stalledNodes()).containsExactlyElementsOf(List.of(nodes.split(" ")));
    }
  }

  @Test
  void aHostPortConflictIsUnschedulableInTheSchedulersWordsNotAShortage() {
    try (TestApiServer api = new TestApiServer()) {
      RolloutVerdict v = verdict(runChecked(api, "host-port-conflict", Duration.ofMinutes(8)));
      assertThat(v.reason()).isEqualTo("Unschedulable");
      assertThat(v.message())
          .contains(
              "0/3 nodes are available: 1 node(s) didn't have free ports for the requested pod"
                  + " ports, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. no new claims to"
                  + " deallocate, preemption: 0/3 nodes are available: 1 No preemption victims"
                  + " found for incoming pod, 2 Preemption is not helpful for scheduling.")
          .doesNotContain("Insufficient");
    }
  }

  @Test
  void aPodWhoseVolumeNeverMountsStaysContainerCreatingAndNoRuleExplainsIt() {
    try (TestApiServer api = new TestApiServer()) {
      RolloutVerdict v =
          verdict(runChecked(api, "container-creating-forever", Duration.ofMinutes(8)));
      assertThat(v.reason()).isEqualTo("ContainerCreating");
      assertThat(v.message()).as(v.message()).contains("ContainerCreating");
      var row =
          v.nodes().stream().filter(n -> n.node().equals("gpu-node-1")).findFirst().orElseThrow();
      assertThat(row.cause()).isEqualTo(Cause.Unknown);
    }
  }

  @Test
  void aScenarioReplaysTheNodeOrderARealControllerPicked() {
    // Upstream takes candidates in a Go map's order; the demo takes them by name.
    try (TestApiServer api = new TestApiServer()) {
      Scenario replay =
          Scenarios.named("host-port-conflict").withUpdateOrder(List.of("gpu-node-3"));
      SimulatedCluster c = SimulatedCluster.install(api.client(), replay, clock());
      c.runUntil(
          () -> {
            StatusAgreement.assertAgrees(api.client(), c.clock().instant());
            return false;
          },
          STEP,
          Duration.ofMinutes(8));
      RolloutVerdict v = verdict(c);
      assertThat(v.stalledNodes()).containsExactly("gpu-node-1");
      assertThat(v.split().oldNodes()).as("old").containsExactly("gpu-node-2");
      assertThat(v.split().newNodes()).as("new").containsExactly("gpu-node-3");
      assertThat(v.counts().upToDate()).isEqualTo(2);
    }
  }

  @Test
  void aHealthyRolloutCompletes() {
    try (TestApiServer api = new TestApiServer()) {
      SimulatedCluster c = runChecked(api, "healthy-rollout", Duration.ofMinutes(4));
      RolloutVerdict v = verdict(c);
      assertThat(v.phase()).as(v.message()).isEqualTo(Phase.Complete);
      assertThat(v.counts().upToDate()).isEqualTo(3);
    }
  }

  @Test
  void aRollbackReusesTheOldRevisionWithANewNumberAndConverges() {
    try (TestApiServer api = new TestApiServer()) {
      SimulatedCluster c = runChecked(api, "rollback", Duration.ofMinutes(12));
      RolloutVerdict v = verdict(c);
      assertThat(v.phase()).as(v.message()).isEqualTo(Phase.Complete);
      var revisions =
          api.client()
              .apps()
              .controllerRevisions()
              .inNamespace(Scenarios.NAMESPACE)
              .list()
              .getItems();
      assertThat(revisions).hasSize(2);
      var old =
          revisions.stream()
              .filter(
                  r ->
                      PodTemplates.storedTemplate(r.getData())
                          .getSpec()
                          .getContainers()
                          .get(0)
                          .getImage()
                          .endsWith(Scenarios.OLD_TAG))
              .findFirst()
              .orElseThrow();
      assertThat(old.getRevision()).isEqualTo(3L);
      assertThat(api.client().pods().inNamespace(Scenarios.NAMESPACE).list().getItems())
          .allSatisfy(
              p ->
                  assertThat(p.getSpec().getContainers().get(0).getImage())
                      .endsWith(Scenarios.OLD_TAG));
    }
  }

  @Test
  void everyIssueScenarioIsInTheCatalogue() {
    assertThat(Scenarios.names())
        .containsExactly(
            "image-pull-stall",
            "healthy-rollout",
            "insufficient-gpu",
            "toleration-dropped",
            "node-selector-narrowed",
            "crash-loop",
            "readiness-never",
            "init-waiting-driver",
            "node-unreachable",
            "max-surge-no-room",
            "host-port-conflict",
            "container-creating-forever",
            "rollback");
    for (String name : Scenarios.names()) {
      Scenario s = Scenarios.named(name);
      assertThat(s.name()).isEqualTo(name);
      assertThat(s.story()).isNotBlank();
    }
  }

  @Test
  void theImagePullStallsFormerNameStillPlaysItUnlisted() {
    assertThat(Scenarios.named("seed-story").name()).isEqualTo("image-pull-stall");
    assertThat(Scenarios.names()).doesNotContain("seed-story");
  }

  @Test
  void anUnknownScenarioNameIsRefusedWithTheKnownNames() {
    assertThatThrownBy(() -> Scenarios.named("nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"nope\"")
        .hasMessageContaining("image-pull-stall");
  }
}
