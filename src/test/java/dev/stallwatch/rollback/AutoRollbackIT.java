package dev.stallwatch.rollback;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Auto-rollback on the embedded API server, with real verdicts of the analyzer: it fires once after
 * the delay, never rolls back its own rollback, never loops when the broken template is applied
 * again, and does nothing without the opt-in or the global switch.
 */
class AutoRollbackIT {

  static final Duration STALL_AFTER = Duration.ofSeconds(1);
  static final Duration DELAY = Duration.ofMinutes(10);
  static final Map<String, String> OPT_IN = Map.of(MetadataKeys.AUTO_ROLLBACK, "true");

  /** The server's and the test's time: moves only when the test says so. */
  final SimClock clock = SimClock.virtual(Instant.parse("2026-12-02T10:00:00Z"));

  final TestApiServer server = new TestApiServer(clock);
  final KubernetesClient client = server.client();
  final DaemonSetFixture toolkit = new DaemonSetFixture(client, "gpu", "toolkit");
  final AutoRollback auto = new AutoRollback(new RollbackPolicy(true, DELAY), client);

  @BeforeEach
  void seedStall() {
    toolkit.nodes("gpu-node-1", "gpu-node-2", "gpu-node-3");
    toolkit.daemonSet(2, 3, 1, 2);
    Instant t = clock.instant();
    toolkit.waitingPod("gpu-node-1", 2, t, "ImagePullBackOff", "Back-off pulling image");
    toolkit.readyPod("gpu-node-2", 1, t);
    toolkit.readyPod("gpu-node-3", 1, t);
    clock.advance(STALL_AFTER.plusMillis(200));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  DaemonSet ds() {
    return client.apps().daemonSets().inNamespace("gpu").withName("toolkit").get();
  }

  RolloutVerdict verdict(Instant now) {
    return RolloutAnalyzer.analyze(
        Snapshots.of(
            ds(),
            client.pods().inNamespace("gpu").list().getItems(),
            client.nodes().list().getItems(),
            client.apps().controllerRevisions().inNamespace("gpu").list().getItems()),
        now,
        new AnalyzerSettings(STALL_AFTER));
  }

  String image() {
    return ds().getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
  }

  @Test
  void rollsBackOnceTheStallHasLastedTheDelayThenNeverAgain() {
    toolkit.annotate(OPT_IN);
    Instant now = clock.instant();
    RolloutVerdict stalled = verdict(now);
    assertThat(stalled.phase()).isEqualTo(Phase.Stalled);

    RollbackOutcome early = auto.apply(ds(), stalled, List.of(), now);
    assertThat(early.rolledBack()).isFalse();
    assertThat(early.decision().recheckAt()).isEqualTo(stalled.stalledSince().plus(DELAY));
    assertThat(image()).isEqualTo(toolkit.image(2));

    Instant due = stalled.stalledSince().plus(DELAY);
    RollbackOutcome fired = auto.apply(ds(), verdict(due), List.of(), due);
    assertThat(fired.rolledBack()).isTrue();
    assertThat(fired.result().to().number()).isEqualTo(1);
    assertThat(image()).isEqualTo(toolkit.image(1));
    assertThat(RollbackRecord.fromAnnotations(ds().getMetadata().getAnnotations()))
        .contains(
            new RollbackRecord(toolkit.hash(2), toolkit.hash(1), due, RollbackRecord.BY_OPERATOR));

    // The rolled-back revision never becomes available on gpu-node-1 either: its pod (standing in
    // for the controller's replacement) waits for good. Whatever the verdict, a rollback is not
    // rolled back.
    client.pods().inNamespace("gpu").withName("toolkit-gpu-node-1").delete();
    toolkit.waitingPod("gpu-node-1", 1, clock.instant(), "CrashLoopBackOff", "back-off restarting");
    Instant later = due.plus(Duration.ofHours(1));
    RolloutVerdict afterwards = verdict(later);
    RollbackOutcome again = auto.apply(ds(), afterwards, List.of(), later);
    assertThat(again.rolledBack()).isFalse();
    assertThat(image()).isEqualTo(toolkit.image(1));
    assertThat(afterwards.phase()).isEqualTo(Phase.Stalled);
    assertThat(afterwards.newRevision().hash()).isEqualTo(toolkit.hash(1));
    assertThat(again.decision().reason()).contains("never rolling back a rollback");
  }

  @Test
  void reapplyingTheBrokenTemplateDoesNotStartALoop() {
    toolkit.annotate(OPT_IN);
    Instant due = verdict(clock.instant()).stalledSince().plus(DELAY);
    assertThat(auto.apply(ds(), verdict(due), List.of(), due).rolledBack()).isTrue();

    toolkit.applyTemplate(2); // someone applies the same broken image again
    Instant later = due.plus(Duration.ofHours(1));
    RolloutVerdict stalledAgain = verdict(later);
    assertThat(stalledAgain.phase()).isEqualTo(Phase.Stalled);
    RollbackOutcome outcome = auto.apply(ds(), stalledAgain, List.of(), later);

    assertThat(outcome.rolledBack()).isFalse();
    assertThat(outcome.decision().reason())
        .contains("revision " + toolkit.hash(2) + " was already rolled back once");
    assertThat(image()).isEqualTo(toolkit.image(2));
  }

  @Test
  void doesNothingWithoutTheOptInAnnotation() {
    Instant late = clock.instant().plus(Duration.ofHours(2));

    RollbackOutcome outcome = auto.apply(ds(), verdict(late), List.of(), late);

    assertThat(outcome.rolledBack()).isFalse();
    assertThat(outcome.result()).isNull();
    assertThat(image()).isEqualTo(toolkit.image(2));
    assertThat(RollbackRecord.fromAnnotations(ds().getMetadata().getAnnotations())).isEmpty();
  }

  @Test
  void doesNothingWhenTheGlobalSwitchIsOff() {
    toolkit.annotate(OPT_IN);
    AutoRollback off = new AutoRollback(new RollbackPolicy(false, DELAY), client);
    Instant late = clock.instant().plus(Duration.ofHours(2));

    assertThat(off.apply(ds(), verdict(late), List.of(), late).rolledBack()).isFalse();
    assertThat(image()).isEqualTo(toolkit.image(2));
  }

  @Test
  void reportsARefusalWhenTheDaemonSetMovedOnBeforeTheRollback() {
    toolkit.annotate(OPT_IN);
    Instant due = verdict(clock.instant()).stalledSince().plus(DELAY);
    RolloutVerdict stalled = verdict(due);
    DaemonSet seen = ds();
    toolkit.revision(3);
    toolkit.applyTemplate(3); // a fix lands between the verdict and the rollback

    RollbackOutcome outcome = auto.apply(seen, stalled, List.of(), due);

    assertThat(outcome.rolledBack()).isFalse();
    assertThat(outcome.refusal()).contains("no longer runs revision " + toolkit.hash(2));
    assertThat(image()).isEqualTo(toolkit.image(3));
  }

  @Test
  void reportsARefusalWhenTheApiServerCannotBeReachedInsteadOfThrowing() {
    toolkit.annotate(OPT_IN);
    Instant due = verdict(clock.instant()).stalledSince().plus(DELAY);
    RolloutVerdict stalled = verdict(due);
    DaemonSet seen = ds();
    String unreachable = "https://127.0.0.1:1";
    try (KubernetesClient gone =
        new io.fabric8.kubernetes.client.KubernetesClientBuilder()
            .withConfig(
                new io.fabric8.kubernetes.client.ConfigBuilder()
                    .withMasterUrl(unreachable)
                    .withRequestRetryBackoffLimit(0)
                    .withConnectionTimeout(1000)
                    .build())
            .build()) {
      AutoRollback cut = new AutoRollback(new RollbackPolicy(true, DELAY), gone);

      RollbackOutcome outcome = cut.apply(seen, stalled, List.of(), due);

      assertThat(outcome.rolledBack()).isFalse();
      assertThat(outcome.decision().rollBack()).isTrue();
      assertThat(outcome.refusal()).startsWith("could not roll back gpu/toolkit: ");
    }
    assertThat(image()).isEqualTo(toolkit.image(2));
  }
}
