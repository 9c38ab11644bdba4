package dev.stallwatch.rollback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stallwatch.cli.AdvancedDaemonSetFixture;
import dev.stallwatch.kube.AdvancedDaemonSet;
import dev.stallwatch.kube.PodTemplates;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.sim.SimClock;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Rolling an OpenKruise Advanced DaemonSet back, on the embedded cluster serving kruise's CRD, with
 * an {@code apps/v1} DaemonSet of the same name beside it: {@link RevisionRestorer} restores the
 * previous revision among the ControllerRevisions the Advanced one owns (by uid) onto the {@code
 * apps.kruise.io/v1beta1} object, and {@link AutoRollback} given its {@code toDaemonSet()} (as the
 * operator passes it) does the same — the {@code apps/v1} DaemonSet stays as it was, and its API
 * works as before.
 */
class AdvancedDaemonSetRollbackIT {
  static final String NS = "kruise";
  static final Duration STALL_AFTER = Duration.ofSeconds(1);
  static final Duration DELAY = Duration.ofMinutes(10);

  final SimClock clock = SimClock.virtual(Instant.parse("2026-12-02T10:00:00Z"));
  final TestApiServer server = new TestApiServer(clock);
  final KubernetesClient client = server.client();
  final AdvancedDaemonSetFixture agent = new AdvancedDaemonSetFixture(client, NS, "agent");
  final DaemonSetFixture apps = new DaemonSetFixture(client, NS, "agent");

  @BeforeEach
  void twoAgents() {
    AdvancedDaemonSetFixture.serveCrd(client);
    apps.nodes("node-1", "node-2", "node-3");
    apps.daemonSet(2, 3, 1, 2);
    agent.daemonSet(2, 3, 1, 2);
    agent.edit(
        ds -> {
          var annotations = new java.util.HashMap<String, String>();
          if (ds.getMetadata().getAnnotations() != null) {
            annotations.putAll(ds.getMetadata().getAnnotations());
          }
          annotations.put(MetadataKeys.AUTO_ROLLBACK, "true");
          ds.getMetadata().setAnnotations(annotations);
        });
    Instant t = clock.instant();
    agent.pullBackOffPod("node-1", 2, t);
    agent.readyPod("node-2", 1, t);
    agent.readyPod("node-3", 1, t);
    clock.advance(STALL_AFTER.plusMillis(200));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  String advancedImage() {
    return agent.read().getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
  }

  String appsImage() {
    return client
        .apps()
        .daemonSets()
        .inNamespace(NS)
        .withName("agent")
        .get()
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0)
        .getImage();
  }

  RolloutVerdict verdict(DaemonSet ds, Instant now) {
    return RolloutAnalyzer.analyze(
        Snapshots.of(
            ds,
            client.pods().inNamespace(NS).list().getItems(),
            client.nodes().list().getItems(),
            client.apps().controllerRevisions().inNamespace(NS).list().getItems()),
        now,
        new AnalyzerSettings(STALL_AFTER));
  }

  @Test
  void theRestorerPatchesTheAdvancedDaemonSetWithItsOwnPreviousRevision() {
    RollbackResult result =
        new RevisionRestorer(client)
            .rollback(
                DaemonSetApi.ADVANCED,
                NS,
                "agent",
                RollbackTarget.previous(),
                false,
                "test",
                clock.instant());

    assertThat(result.outcome()).isEqualTo(RollbackResult.Outcome.ROLLED_BACK);
    assertThat(result.from().hash()).isEqualTo(agent.hash(2));
    assertThat(result.to().hash()).isEqualTo(agent.hash(1));
    assertThat(advancedImage()).isEqualTo(agent.image(1));
    assertThat(
            PodTemplates.sameTemplate(
                agent.read().getSpec().getTemplate(),
                PodTemplates.storedTemplate(agent.storedRevision(1).getData())))
        .isTrue();
    assertThat(appsImage()).as("the apps/v1 agent is left alone").isEqualTo(apps.image(2));
  }

  @Test
  void theAppsV1ApiStillRollsBackOnlyTheAppsV1DaemonSet() {
    RollbackResult result =
        new RevisionRestorer(client)
            .rollback(NS, "agent", RollbackTarget.previous(), false, "test", clock.instant());

    assertThat(result.to().hash()).isEqualTo(apps.hash(1));
    assertThat(appsImage()).isEqualTo(apps.image(1));
    assertThat(advancedImage()).isEqualTo(agent.image(2));
  }

  @Test
  void aMissingAdvancedDaemonSetIsRefusedByItsName() {
    assertThatThrownBy(
            () ->
                new RevisionRestorer(client)
                    .rollback(
                        DaemonSetApi.ADVANCED,
                        NS,
                        "nope",
                        RollbackTarget.previous(),
                        false,
                        "test",
                        clock.instant()))
        .isInstanceOf(RollbackRefusedException.class)
        .hasMessage("daemonset.apps.kruise.io/nope not found in namespace kruise");
  }

  @Test
  void autoRollbackRollsTheAdvancedDaemonSetBackGivenItsToDaemonSet() {
    AutoRollback auto = new AutoRollback(new RollbackPolicy(true, DELAY), client);
    DaemonSet seen = agent.read().toDaemonSet();
    RolloutVerdict stalled = verdict(seen, clock.instant());
    assertThat(stalled.phase()).isEqualTo(Phase.Stalled);
    assertThat(stalled.apiVersion()).isEqualTo(AdvancedDaemonSet.API_VERSION);
    Instant due = stalled.stalledSince().plus(DELAY);

    RollbackOutcome outcome = auto.apply(seen, verdict(seen, due), List.of(), due);

    assertThat(outcome.refusal()).isNull();
    assertThat(outcome.rolledBack()).isTrue();
    assertThat(outcome.result().to().hash()).isEqualTo(agent.hash(1));
    assertThat(advancedImage()).isEqualTo(agent.image(1));
    assertThat(RollbackRecord.fromAnnotations(agent.read().getMetadata().getAnnotations()))
        .contains(
            new RollbackRecord(agent.hash(2), agent.hash(1), due, RollbackRecord.BY_OPERATOR));
    assertThat(appsImage()).as("the apps/v1 agent is left alone").isEqualTo(apps.image(2));
  }

  @Test
  void autoRollbackGuardsTheAdvancedDaemonSetByTheStalledRevision() {
    AutoRollback auto = new AutoRollback(new RollbackPolicy(true, DELAY), client);
    DaemonSet seen = agent.read().toDaemonSet();
    RolloutVerdict stalled = verdict(seen, clock.instant());
    Instant due = stalled.stalledSince().plus(DELAY);
    RollbackDecision decision = auto.decide(seen, verdict(seen, due), List.of(), due);
    assertThat(decision.rollBack()).isTrue();
    // Meanwhile someone applied revision 3 (the controller recorded it).
    agent.edit(ds -> ds.getSpec().setTemplate(agent.template(3)));
    agent.revision(3);

    RollbackOutcome outcome = auto.perform(seen, decision, due);

    assertThat(outcome.rolledBack()).isFalse();
    assertThat(outcome.refusal())
        .isEqualTo(
            "daemonset.apps.kruise.io/agent no longer runs revision "
                + agent.hash(2)
                + " (now "
                + agent.hash(3)
                + "); not rolling back");
    assertThat(advancedImage()).isEqualTo(agent.image(3));
  }
}
