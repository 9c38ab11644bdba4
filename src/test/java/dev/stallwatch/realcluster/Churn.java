package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.StallName;
import dev.stallwatch.operator.decision.EventReason;
import dev.stallwatch.rollout.MetadataKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * DaemonSets of one scenario broken (an unpullable image) and fixed again, as a fault test's
 * background: what was broken, and the check that each broken revision was recorded as exactly one
 * RolloutStall with one {@code RolloutStalled} Event and no healthy revision ever was.
 */
final class Churn {
  private final RealCluster cluster;
  private final Scenario scenario;
  private final List<String> names = new ArrayList<>();
  private final List<Broken> broken = new ArrayList<>();
  private final Map<String, Broken> open = new TreeMap<>();

  /** One broken revision of one DaemonSet, and when it was broken. */
  record Broken(String daemonSet, String revision, Instant brokenAt) {}

  /** {@code count} DaemonSets {@code agent-00}, … on the scenario's nodes, each rolled out. */
  Churn(RealCluster cluster, Scenario scenario, int count) {
    this.cluster = cluster;
    this.scenario = scenario;
    for (int i = 0; i < count; i++) {
      String name = String.format("agent-%02d", i);
      names.add(name);
      Scenario.createOnce(cluster, scenario.newDaemonSet(name, "example.com/agent:v0").build());
    }
    names.forEach(scenario::awaitComplete);
  }

  List<String> names() {
    return names;
  }

  /** The DaemonSets broken now, by name. */
  Map<String, Broken> open() {
    return open;
  }

  List<Broken> broken() {
    return broken;
  }

  /** Breaks {@code ds} with a new unpullable image of {@code version}; returns the episode. */
  Broken breakIt(String ds, int version) {
    FaultBed.setImage(cluster, scenario, ds, Scenario.UNPULLABLE + "agent:v" + version);
    Broken b = new Broken(ds, newRevision(ds, "agent:v" + version), Instant.now());
    broken.add(b);
    open.put(ds, b);
    return b;
  }

  /** Fixes {@code ds} with a new healthy image of {@code version}. */
  void fix(String ds, int version) {
    FaultBed.setImage(cluster, scenario, ds, "example.com/agent:v" + version);
    open.remove(ds);
  }

  /** Waits until every DaemonSet still broken has its RolloutStall. */
  void awaitOpenRecorded() {
    for (Broken b : open.values()) {
      await("the stall of " + b.daemonSet() + " revision " + b.revision())
          .atMost(Scenario.WAIT)
          .until(() -> stall(b) != null);
    }
  }

  /**
   * Every broken revision has its RolloutStall, no other revision has one, and each DaemonSet has
   * one {@code RolloutStalled} Event per broken revision.
   */
  void assertEachBrokenRevisionRecordedOnce() {
    List<RolloutStall> stalls = scenario.stalls();
    for (Broken b : broken) {
      assertThat(stall(b))
          .as("the RolloutStall of %s revision %s", b.daemonSet(), b.revision())
          .isNotNull();
    }
    assertThat(stalls)
        .as("RolloutStalls of revisions that were never broken")
        .allMatch(s -> broken.stream().anyMatch(b -> isOf(s, b)));
    // One RolloutStalled Event per broken revision, told apart by the revision its message names.
    // The API server deletes Events an hour after their last update (--event-ttl): a revision
    // recorded longer ago than that may have lost its Event, never gained a second one.
    Instant kept = Instant.now().minus(EVENT_TTL).plus(TTL_MARGIN);
    for (String name : names) {
      Map<String, Integer> byRevision = new TreeMap<>();
      for (var e : scenario.events(name, EventReason.STALLED.reason())) {
        String revision = revisionIn(e.getMessage());
        byRevision.merge(revision, e.getCount() == null ? 1 : e.getCount(), Integer::sum);
      }
      for (Broken b : broken) {
        if (!b.daemonSet().equals(name)) {
          continue;
        }
        int events = byRevision.getOrDefault(b.revision(), 0);
        Instant recorded = Instant.parse(stall(b).getMetadata().getCreationTimestamp());
        if (recorded.isAfter(kept)) {
          assertThat(events)
              .as("RolloutStalled events of %s revision %s", name, b.revision())
              .isOne();
        } else {
          assertThat(events)
              .as(
                  "RolloutStalled events of %s revision %s (older than the Event TTL)",
                  name, b.revision())
              .isLessThanOrEqualTo(1);
        }
      }
      assertThat(byRevision.keySet())
          .as("revisions of %s with a RolloutStalled Event", name)
          .allMatch(
              r ->
                  broken.stream()
                      .anyMatch(b -> b.daemonSet().equals(name) && b.revision().equals(r)));
    }
  }

  /** How long the API server keeps an Event after its last update (kube-apiserver's default). */
  static final Duration EVENT_TTL = Duration.ofHours(1);

  private static final Duration TTL_MARGIN = Duration.ofMinutes(2);

  /** The revision hash a RolloutStalled message names: "…, new revision HASH […]; …". */
  static String revisionIn(String message) {
    var m =
        java.util.regex.Pattern.compile("new revision ([0-9a-z]+)")
            .matcher(message == null ? "" : message);
    return m.find() ? m.group(1) : "";
  }

  RolloutStall stall(Broken b) {
    return scenario.stalls().stream()
        .filter(s -> s.getMetadata().getName().equals(StallName.of(b.daemonSet(), b.revision())))
        .findFirst()
        .orElse(null);
  }

  private static boolean isOf(RolloutStall s, Broken b) {
    return b.daemonSet().equals(s.getSpec().daemonSet())
        && b.revision().equals(s.getSpec().revision());
  }

  /** The revision hash of the pod the controller creates for {@code image}. */
  private String newRevision(String ds, String image) {
    return await("a pod of " + ds + " on " + image)
        .atMost(Scenario.WAIT)
        .until(
            () ->
                scenario.pods(ds).stream()
                    .filter(p -> p.getSpec().getContainers().get(0).getImage().endsWith(image))
                    .map(p -> p.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL))
                    .findFirst()
                    .orElse(null),
            h -> h != null);
  }
}
