package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.StallName;
import dev.stallwatch.operator.StallEvents;
import dev.stallwatch.rollout.MetadataKeys;
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
    for (String name : names) {
      long episodes = broken.stream().filter(b -> b.daemonSet().equals(name)).count();
      int events =
          scenario.events(name, StallEvents.STALLED).stream()
              .mapToInt(e -> e.getCount() == null ? 1 : e.getCount())
              .sum();
      assertThat(events).as("RolloutStalled events of %s", name).isEqualTo((int) episodes);
    }
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
