package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.operator.decision.EventReason;
import dev.stallwatch.rollout.MetadataKeys;
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

  /** RolloutStalls there before the fault: also transient ones of a slow first rollout. */
  private final java.util.Set<String> preexisting;

  private final int stalledEventsBefore;
  private final int healthyEventsBefore;

  private FaultBed(RealCluster cluster, Scenario scenario, RolloutStall before) {
    this.cluster = cluster;
    this.scenario = scenario;
    this.before = before;
    this.preexisting =
        scenario.stalls().stream()
            .map(x -> x.getMetadata().getUid())
            .collect(java.util.stream.Collectors.toSet());
    this.stalledEventsBefore = stalledEvents(STALLED);
    this.healthyEventsBefore = stalledEvents(HEALTHY);
  }

  /** Creates the namespace, rolls both DaemonSets out, breaks one and waits for its stall. */
  static FaultBed stallInProgress(RealCluster cluster, String namespace) {
    return stallInProgress(cluster, rolledOut(cluster, namespace));
  }

  /** The namespace with both DaemonSets rolled out, nothing broken yet. */
  static Scenario rolledOut(RealCluster cluster, String namespace) {
    Scenario s = Scenario.create(cluster, namespace, 3, 0);
    s.rollOut(STALLED, "example.com/agent:v1", b -> b);
    s.rollOut(HEALTHY, "example.com/probe:v1", b -> b);
    return s;
  }

  /**
   * A bed over {@link #rolledOut} with nothing broken, for a stall still to come ({@link
   * #breakHealthy}); {@link #assertIntact} does not apply to it.
   */
  static FaultBed untouched(RealCluster cluster, Scenario s) {
    return new FaultBed(cluster, s, null);
  }

  /**
   * Breaks {@link #rolledOut}'s {@value #STALLED} and waits for the stall of the broken revision
   * (not any Active stall: one of a slow first rollout may stand for a moment).
   */
  static FaultBed stallInProgress(RealCluster cluster, Scenario s) {
    int eventsBefore = s.events(STALLED, EventReason.STALLED.reason()).size();
    setImage(cluster, s, STALLED, Scenario.UNPULLABLE + "agent:v2");
    String revision = awaitRevision(s, STALLED, "agent:v2");
    RolloutStall stall =
        await("the stall of " + STALLED + " revision " + revision)
            .atMost(Scenario.WAIT)
            .until(
                () ->
                    s.stalls().stream()
                        .filter(x -> x.getStatus() != null && x.getStatus().active())
                        .filter(x -> STALLED.equals(x.getSpec().daemonSet()))
                        .filter(x -> revision.equals(x.getSpec().revision()))
                        .findFirst()
                        .orElse(null),
                x -> x != null);
    // The Event follows the status write: wait for it, so the baseline below counts it.
    await("the RolloutStalled event of " + STALLED)
        .atMost(Duration.ofSeconds(30))
        .until(() -> s.events(STALLED, EventReason.STALLED.reason()).size() > eventsBefore);
    return new FaultBed(cluster, s, stall);
  }

  String namespace() {
    return scenario.namespace();
  }

  /** The revision hash of the healthy DaemonSet's broken template, once broken. */
  String healthyRevision;

  /** Breaks the healthy DaemonSet (the change the operator must see) and waits for its new pod. */
  void breakHealthy(String tag) {
    setImage(cluster, scenario, HEALTHY, Scenario.UNPULLABLE + "probe:" + tag);
    healthyRevision = awaitRevision(scenario, HEALTHY, "probe:" + tag);
  }

  /** Waits for a pod of {@code ds} whose image ends with {@code image}; its revision hash. */
  private static String awaitRevision(Scenario s, String ds, String image) {
    await("a new " + ds + " pod on " + image)
        .atMost(Scenario.WAIT)
        .until(
            () ->
                s.pods(ds).stream()
                    .anyMatch(p -> p.getSpec().getContainers().get(0).getImage().endsWith(image)));
    return s.pods(ds).stream()
        .filter(p -> p.getSpec().getContainers().get(0).getImage().endsWith(image))
        .findFirst()
        .orElseThrow()
        .getMetadata()
        .getLabels()
        .get(MetadataKeys.REVISION_HASH_LABEL);
  }

  /**
   * When the healthy DaemonSet's stall falls due: its new pod's creation (whole seconds, as the API
   * server stamps it) plus stall-after.
   */
  Instant healthyStallDue(String revisionHash) {
    return scenario.pods(HEALTHY).stream()
        .filter(
            p ->
                revisionHash.equals(
                    p.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL)))
        .map(p -> Instant.parse(p.getMetadata().getCreationTimestamp()))
        .min(Instant::compareTo)
        .orElse(Instant.EPOCH)
        .plus(Duration.parse("PT" + OperatorProcess.STALL_AFTER.toUpperCase()));
  }

  /**
   * Waits for the healthy DaemonSet's Active RolloutStall; returns how long after the later of
   * {@code faultEnd} and the instant its stall fell due it was seen (polled every 100 ms).
   */
  Duration awaitHealthyStall(Instant faultEnd) {
    await("the operator records the stall of " + HEALTHY)
        .atMost(Scenario.WAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                active(HEALTHY).stream()
                    .anyMatch(x -> healthyRevision.equals(x.getSpec().revision())));
    Instant seen = Instant.now();
    Instant due = healthyStallDue(healthyRevision);
    Instant from = due.isAfter(faultEnd) ? due : faultEnd;
    return Duration.between(from, seen).isNegative() ? Duration.ZERO : Duration.between(from, seen);
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
    return scenario.events(ds, EventReason.STALLED.reason()).stream()
        .mapToInt(e -> e.getCount() == null ? 1 : e.getCount())
        .sum();
  }

  /** RolloutStalls of {@code ds} written after the bed was set up. */
  List<RolloutStall> newStalls(String ds) {
    return stallsOf(ds).stream()
        .filter(x -> !preexisting.contains(x.getMetadata().getUid()))
        .toList();
  }

  /**
   * New RolloutStalls of {@code ds} for a revision other than {@code revision}: what a reconcile on
   * caches that had not all caught up after the fault would record (the previous revision judged as
   * new, superseded a moment later). The operator defers such verdicts ({@code SnapshotLag}); any
   * found counts as duplicated.
   */
  List<RolloutStall> ofOtherRevisions(String ds, String revision) {
    return newStalls(ds).stream().filter(x -> !revision.equals(x.getSpec().revision())).toList();
  }

  /** The stall in progress is the same object as before the fault, its Event not repeated. */
  void assertIntact() {
    List<RolloutStall> active = active(STALLED);
    assertThat(active)
        .as(() -> "Active RolloutStalls of " + STALLED + "; all of them: " + described(STALLED))
        .hasSize(1);
    RolloutStall now = active.get(0);
    assertThat(now.getMetadata().getUid()).isEqualTo(before.getMetadata().getUid());
    assertThat(now.getStatus().phase()).isEqualTo("Active");
    assertThat(now.getStatus().stalledSince()).isEqualTo(before.getStatus().stalledSince());
    assertThat(newStalls(STALLED)).as("new RolloutStalls of " + STALLED).isEmpty();
    assertThat(stalledEvents(STALLED) - stalledEventsBefore)
        .as("new RolloutStalled events on " + STALLED)
        .isZero();
  }

  /** Every RolloutStall of {@code ds}: name, uid, phase and its last condition's words. */
  String described(String ds) {
    return stallsOf(ds).stream()
        .map(
            x ->
                x.getMetadata().getName()
                    + " (uid "
                    + x.getMetadata().getUid()
                    + ", "
                    + (x.getStatus() == null
                        ? "no status"
                        : x.getStatus().phase()
                            + " "
                            + x.getStatus().reason()
                            + ": "
                            + x.getStatus().message()
                            + "; conditions "
                            + x.getStatus().conditions())
                    + ")")
        .toList()
        .toString();
  }

  /** After {@link #breakHealthy}: its stall is recorded once, with one Event. */
  void assertHealthyStalledOnce() {
    List<RolloutStall> active = active(HEALTHY);
    assertThat(active).as("Active RolloutStalls of " + HEALTHY).hasSize(1);
    assertThat(ofOtherRevisions(HEALTHY, active.get(0).getSpec().revision()))
        .as("stalls of other revisions of " + HEALTHY + " (a verdict on old news)")
        .isEmpty();
    assertThat(newStalls(HEALTHY)).as("new RolloutStalls of " + HEALTHY).hasSize(1);
    await("one RolloutStalled event on " + HEALTHY)
        .atMost(Duration.ofSeconds(30))
        .until(() -> stalledEvents(HEALTHY) - healthyEventsBefore >= 1);
    assertThat(stalledEvents(HEALTHY) - healthyEventsBefore)
        .as("new RolloutStalled events on " + HEALTHY)
        .isEqualTo(1);
  }

  /**
   * For the reliability table: stalls lost / duplicated; a stall of another revision written after
   * the fault (even one resolved at once) counts as duplicated.
   */
  String lostAndDuplicated() {
    // The healthy DaemonSet owes a stall only once it has been broken.
    boolean healthyOwes = healthyRevision != null;
    int lost =
        (active(STALLED).isEmpty() ? 1 : 0) + (healthyOwes && active(HEALTHY).isEmpty() ? 1 : 0);
    int dup = Math.max(0, active(STALLED).size() - 1) + Math.max(0, active(HEALTHY).size() - 1);
    dup += ofOtherRevisions(STALLED, before.getSpec().revision()).size();
    if (!active(HEALTHY).isEmpty()) {
      dup += ofOtherRevisions(HEALTHY, active(HEALTHY).get(0).getSpec().revision()).size();
    }
    return lost + " / " + dup;
  }

  static void setImage(RealCluster cluster, Scenario s, String ds, String image) {
    cluster.kubectl("set", "image", "-n", s.namespace(), "daemonset/" + ds, ds + "=" + image).ok();
  }

  static List<Event> events(Scenario s, String ds) {
    return s.events(ds, EventReason.STALLED.reason());
  }
}
