package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.kube.PodTemplates;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.testcluster.TestApiServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Drives the simulated DaemonSet controller the way upstream's {@code update_test.go} drives the
 * real one: one sync at a time, counting creates and deletes, with pods marked ready by hand. Pods
 * stay unbound (no scheduler, no kubelet), so deletions take effect at once, as with upstream's
 * fake pod control. After every sync the controller's status sync runs and the written status must
 * equal the analyzer's recount ({@link StatusAgreement}).
 */
final class ControllerHarness implements AutoCloseable {

  static final String NS = "default";

  final TestApiServer api = new TestApiServer();
  final SimClock clock;
  final DaemonSetController controller;
  private final TemplateGenerationKeeper keeper;
  private final List<Consumer<ControllerHarness>> checks = new ArrayList<>();
  private String name;

  ControllerHarness(int nodes, Instant start) {
    clock = SimClock.virtual(start);
    controller = new DaemonSetController(api.client(), clock, 7);
    keeper = new TemplateGenerationKeeper(api.client());
    checks.add(h -> StatusAgreement.assertAgrees(h.api.client(), h.clock.instant()));
    for (int i = 0; i < nodes; i++) {
      api.client().resource(ScenarioObjects.node("node-" + i, 0)).create();
    }
  }

  /** Upstream's {@code newDaemonSet}: OnDelete, revision history limit 2, image foo/bar. */
  static DaemonSet newDaemonSet(String name) {
    return ScenarioObjects.daemonSet(NS, name, "foo/bar")
        .editSpec()
        .withRevisionHistoryLimit(2)
        .withNewUpdateStrategy()
        .withType("OnDelete")
        .endUpdateStrategy()
        .endSpec()
        .build();
  }

  void create(DaemonSet ds) {
    name = ds.getMetadata().getName();
    api.client().resource(ds).create();
  }

  DaemonSet daemonSet() {
    return api.client().apps().daemonSets().inNamespace(NS).withName(name).get();
  }

  void edit(Consumer<DaemonSet> change) {
    api.client()
        .apps()
        .daemonSets()
        .inNamespace(NS)
        .withName(name)
        .edit(
            d -> {
              change.accept(d);
              return d;
            });
  }

  void setTime(Instant t) {
    clock.advance(Duration.between(clock.instant(), t));
  }

  /** One sync; asserts upstream's expected creates and deletes. */
  void expectSync(int creates, int deletes) {
    keeper.reconcileAll();
    SyncResult result = controller.sync(NS, name);
    controller.syncStatusAll();
    assertThat(result)
        .as("creates and deletes of one sync")
        .isEqualTo(new SyncResult(creates, deletes));
    checks.forEach(c -> c.accept(this));
  }

  List<Pod> pods() {
    return api.client().pods().inNamespace(NS).list().getItems().stream()
        .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
        .toList();
  }

  String currentHash() {
    DaemonSet ds = daemonSet();
    return new ControllerRevisions(api.client())
        .owned(ds).stream()
            .filter(r -> PodTemplates.matches(ds.getSpec().getTemplate(), r.getData()))
            .findFirst()
            .orElseThrow()
            .getMetadata()
            .getLabels()
            .get(MetadataKeys.REVISION_HASH_LABEL);
  }

  void markPodsReady() {
    setPodReadiness(true, Integer.MAX_VALUE, p -> true);
  }

  /** Upstream's {@code setPodReadiness}: flips up to {@code count} matching pods, stamped now. */
  void setPodReadiness(boolean ready, int count, Predicate<Pod> which) {
    int left = count;
    for (Pod pod : pods()) {
      if (left <= 0) {
        break;
      }
      PodCondition current = PodConditions.condition(pod.getStatus(), "Ready");
      boolean isReady = current != null && "True".equals(current.getStatus());
      if (pod.getMetadata().getDeletionTimestamp() != null
          || isReady == ready
          || !which.test(pod)) {
        continue;
      }
      PodStatus status = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
      status.setConditions(
          PodConditions.replace(
              status.getConditions(),
              new PodCondition(
                  null,
                  clock.instant().toString(),
                  null,
                  null,
                  null,
                  ready ? "True" : "False",
                  "Ready")));
      pod.setStatus(status);
      api.client().resource(pod).updateStatus();
      left--;
    }
    if (count != Integer.MAX_VALUE) {
      assertThat(left).as("pods left to mark ready=" + ready).isZero();
    }
  }

  @Override
  public void close() {
    api.close();
  }
}
