package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.operator.StallEvents;
import dev.stallwatch.operator.crd.RolloutStall;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What every fault test breaks things beside: a namespace with a stall in progress (DaemonSet
 * {@value #STALLED}, its new image unpullable, its RolloutStall Active) and a healthy DaemonSet
 * ({@value #HEALTHY}) whose later change the operator must still see. {@link #assertIntact} is the
 * promise checked after each fault: one RolloutStall per stalled rollout, the same object, still
 * Active, {@code stalledSince} unchanged, one {@code RolloutStalled} Event.
 */
final class FaultBed {
  static final String STALLED = "stalled";
  static final String HEALTHY = "healthy";

  final RealCluster cluster;
  final Scenario scenario;
  final RolloutStall before;

  private FaultBed(RealCluster cluster, Scenario scenario, RolloutStall before) {
    this.cluster = cluster;
    this.scenario = scenario;
    this.before = before;
  }

  /** Creates the namespace, rolls both DaemonSets out, breaks one and waits for its stall. */
  static FaultBed stallInProgress(RealCluster cluster, String namespace) {
    Scenario s = Scenario.create(cluster, namespace, 3, 0);
    s.rollOut(STALLED, "example.com/agent:v1", b -> b);
    s.rollOut(HEALTHY, "example.com/probe:v1", b -> b);
    setImage(cluster, s, STALLED, Scenario.UNPULLABLE + "agent:v2");
    RolloutStall stall = s.awaitActiveStall();
    assertThat(stall.getSpec().daemonSet()).isEqualTo(STALLED);
    return new FaultBed(cluster, s, stall);
  }

  String namespace() {
    return scenario.namespace();
  }

  /** Breaks the healthy DaemonSet (the change the operator must see) and waits for its new pod. */
  void breakHealthy(String tag) {
    setImage(cluster, scenario, HEALTHY, Scenario.UNPULLABLE + "probe:" + tag);
    await("a new " + HEALTHY + " pod on " + tag)
        .atMost(Scenario.WAIT)
        .until(
            () ->
                scenario.pods(HEALTHY).stream()
                    .anyMatch(
                        p ->
                            p.getSpec()
                                .getContainers()
                                .get(0)
                                .getImage()
                                .endsWith("probe:" + tag)));
  }

  /**
   * When the healthy DaemonSet's stall falls due: its new pod's creation (whole seconds, as the API
   * server stamps it) plus stall-after.
   */
  Instant healthyStallDue(String tag) {
    return scenario.pods(HEALTHY).stream()
        .filter(p -> p.getSpec().getContainers().get(0).getImage().endsWith("probe:" + tag))
        .map(p -> Instant.parse(p.getMetadata().getCreationTimestamp()))
        .max(Instant::compareTo)
        .orElseThrow()
        .plus(Duration.parse("PT" + OperatorProcess.STALL_AFTER.toUpperCase()));
  }

  /**
   * Waits for the healthy DaemonSet's Active RolloutStall and returns how long after {@code since}
   * it was seen (the test polls every 100 ms).
   */
  Duration awaitHealthyStall(Instant since) {
    await("the operator records the stall of " + HEALTHY)
        .atMost(Scenario.WAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !active(HEALTHY).isEmpty());
    return Duration.between(since, Instant.now());
  }

  List<RolloutStall> active(String ds) {
    return stallsOf(ds).stream()
        .filter(s -> s.getStatus() != null && s.getStatus().active())
        .toList();
  }

  List<RolloutStall> stallsOf(String ds) {
    return scenario.stalls().stream().filter(s -> ds.equals(s.getSpec().daemonSet())).toList();
  }

  /** The number of RolloutStalled Events on {@code ds}, each counted with its {@code count}. */
  int stalledEvents(String ds) {
    return scenario.events(ds, StallEvents.STALLED).stream()
        .mapToInt(e -> e.getCount() == null ? 1 : e.getCount())
        .sum();
  }

  /** The stall in progress is the same object as before the fault, with one Event. */
  void assertIntact() {
    List<RolloutStall> stalls = stallsOf(STALLED);
    assertThat(stalls).as("RolloutStalls of " + STALLED).hasSize(1);
    RolloutStall now = stalls.get(0);
    assertThat(now.getMetadata().getUid()).isEqualTo(before.getMetadata().getUid());
    assertThat(now.getStatus().phase()).isEqualTo("Active");
    assertThat(now.getStatus().stalledSince()).isEqualTo(before.getStatus().stalledSince());
    assertThat(stalledEvents(STALLED)).as("RolloutStalled events on " + STALLED).isEqualTo(1);
  }

  /** After {@link #breakHealthy}: its stall is recorded once, with one Event. */
  void assertHealthyStalledOnce() {
    assertThat(stallsOf(HEALTHY)).as("RolloutStalls of " + HEALTHY).hasSize(1);
    await("one RolloutStalled event on " + HEALTHY)
        .atMost(Duration.ofSeconds(30))
        .until(() -> stalledEvents(HEALTHY) >= 1);
    assertThat(stalledEvents(HEALTHY)).as("RolloutStalled events on " + HEALTHY).isEqualTo(1);
  }

  /** Counts for the reliability table: stalls lost and duplicated in this bed. */
  String lostAndDuplicated() {
    int lost = (stallsOf(STALLED).isEmpty() ? 1 : 0) + (stallsOf(HEALTHY).isEmpty() ? 1 : 0);
    int dup =
        Math.max(0, stallsOf(STALLED).size() - 1)
            + Math.max(0, stallsOf(HEALTHY).size() - 1)
            + Math.max(0, stalledEvents(STALLED) - 1)
            + Math.max(0, stalledEvents(HEALTHY) - 1);
    return lost + " / " + dup;
  }

  static void setImage(RealCluster cluster, Scenario s, String ds, String image) {
    cluster.kubectl("set", "image", "-n", s.namespace(), "daemonset/" + ds, ds + "=" + image).ok();
  }

  static List<Event> events(Scenario s, String ds) {
    return s.events(ds, StallEvents.STALLED);
  }
}
