package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.StallName;
import dev.stallwatch.deploy.NativeHelm;
import dev.stallwatch.operator.StallEvents;
import dev.stallwatch.rollout.MetadataKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Routine GOAWAYs, as managed API servers send them: kube-apiserver with {@code
 * --goaway-chance=0.02} (one HTTP/2 request in 50 answered with a GOAWAY, the client reconnects)
 * for the whole run. The seed story's stall in progress beside a churn of {@value #DAEMONSETS}
 * DaemonSets, each broken (an unpullable image) and fixed again in turn for {@link #CHURN}: every
 * broken revision is recorded as one RolloutStall with one {@code RolloutStalled} Event, no healthy
 * revision ever is, the stall in progress is untouched, the operator's log stays quiet, and a stall
 * falling due at the end (when a stuck informer would show) is recorded within a second.
 *
 * <p>{@code -Dstallwatch.goaway.churn=PT30M} runs the long version (CI runs {@code PT2M}).
 */
@NativeHelm
class GoawayFaultIT {
  static final int DAEMONSETS = 20;
  static final Duration CHURN =
      Duration.parse(System.getProperty("stallwatch.goaway.churn", "PT2M"));

  /** How long a broken revision stands before it is fixed: past stall-after (10 s). */
  static final Duration BROKEN_FOR = Duration.ofSeconds(16);

  /** What the operator may log over the churn: no WARN storm. */
  static final int MAX_WARNINGS = 5;

  private RealCluster cluster;
  private OperatorProcess operator;

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /** One broken revision of one DaemonSet, and when it was fixed. */
  private record Broken(String daemonSet, String revision, Instant brokenAt) {}

  @Test
  void routineGoawaysLoseDuplicateAndInventNoStall() {
    cluster =
        RealClusterExtension.separate(
            "goaway", Map.of("STALLWATCH_APISERVER_FLAGS", "--goaway-chance=0.02"));
    operator = OperatorProcess.asChartServiceAccount(cluster, "goaway-operator");
    FaultBed seed = FaultBed.stallInProgress(cluster, "goaway-seed");
    Scenario churn = Scenario.create(cluster, "goaway-churn", 3, 0);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < DAEMONSETS; i++) {
      String name = String.format("agent-%02d", i);
      names.add(name);
      Scenario.createOnce(cluster, churn.newDaemonSet(name, "example.com/agent:v0").build());
    }
    names.forEach(churn::awaitComplete);
    int logged = operator.output().split("\n", -1).length;

    // Round robin: each DaemonSet broken, then fixed BROKEN_FOR later, again and again.
    List<Broken> broken = new ArrayList<>();
    Map<String, Broken> open = new TreeMap<>();
    Instant end = Instant.now().plus(CHURN);
    int version = 0;
    while (Instant.now().isBefore(end)) {
      // Until some DaemonSet is due a change (or the churn ends): no round that changes nothing.
      await("a DaemonSet due to be broken or fixed")
          .atMost(BROKEN_FOR.plusSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  open.size() < names.size()
                      || !Instant.now().isBefore(end)
                      || open.values().stream()
                          .anyMatch(b -> Instant.now().isAfter(b.brokenAt().plus(BROKEN_FOR))));
      for (String name : names) {
        version++;
        Broken standing = open.get(name);
        if (standing != null && Instant.now().isAfter(standing.brokenAt().plus(BROKEN_FOR))) {
          FaultBed.setImage(cluster, churn, name, "example.com/agent:v" + version);
          open.remove(name);
        } else if (standing == null) {
          FaultBed.setImage(cluster, churn, name, Scenario.UNPULLABLE + "agent:v" + version);
          Broken b = new Broken(name, newRevision(churn, name, "agent:v" + version), Instant.now());
          broken.add(b);
          open.put(name, b);
        }
        if (!Instant.now().isBefore(end)) {
          break;
        }
      }
    }
    // Whatever is still broken stands past stall-after: it must be recorded too.
    for (Broken b : open.values()) {
      await("the stall of " + b.daemonSet() + " revision " + b.revision())
          .atMost(Scenario.WAIT)
          .until(() -> stall(churn, b) != null);
    }

    // A stall falling due now: a stuck informer would miss or delay it.
    seed.breakHealthy("v2");
    Duration detection = seed.awaitHealthyStall(Instant.now());

    List<RolloutStall> stalls = churn.stalls();
    for (Broken b : broken) {
      assertThat(stall(churn, b))
          .as("the RolloutStall of %s revision %s", b.daemonSet(), b.revision())
          .isNotNull();
    }
    assertThat(stalls)
        .as("RolloutStalls of revisions that were never broken")
        .allMatch(s -> broken.stream().anyMatch(b -> isOf(s, b)));
    for (String name : names) {
      long episodes = broken.stream().filter(b -> b.daemonSet().equals(name)).count();
      int events =
          churn.events(name, StallEvents.STALLED).stream()
              .mapToInt(e -> e.getCount() == null ? 1 : e.getCount())
              .sum();
      assertThat(events).as("RolloutStalled events of %s", name).isEqualTo((int) episodes);
    }
    seed.assertIntact();
    seed.assertHealthyStalledOnce();
    assertThat(detection)
        .as("detection of the last stall")
        .isLessThanOrEqualTo(Duration.ofSeconds(1));
    String[] log = operator.output().split("\n", -1);
    List<String> warnings =
        List.of(log).subList(Math.min(logged, log.length), log.length).stream()
            .filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
            .toList();
    assertThat(warnings)
        .as("WARN/ERROR lines over the churn")
        .hasSizeLessThanOrEqualTo(MAX_WARNINGS);
    assertThat(operator.alive()).isTrue();
    ReliabilityReport.row(
        "routine GOAWAYs (kube-apiserver --goaway-chance=0.02) over "
            + CHURN.toMinutes()
            + " min of churn: "
            + DAEMONSETS
            + " DaemonSets broken and fixed in turn",
        broken.size()
            + " broken revisions, each one RolloutStall and one Event; none for a healthy one; the"
            + " stall in progress untouched; "
            + warnings.size()
            + " WARN lines",
        ReliabilityReport.seconds(detection) + " to record a stall falling due at the end",
        "0 / 0");
  }

  private static boolean isOf(RolloutStall s, Broken b) {
    return b.daemonSet().equals(s.getSpec().daemonSet())
        && b.revision().equals(s.getSpec().revision());
  }

  private static RolloutStall stall(Scenario churn, Broken b) {
    return churn.stalls().stream()
        .filter(s -> s.getMetadata().getName().equals(StallName.of(b.daemonSet(), b.revision())))
        .findFirst()
        .orElse(null);
  }

  /** The revision hash of the pod the controller creates for {@code image}. */
  private static String newRevision(Scenario s, String ds, String image) {
    return await("a pod of " + ds + " on " + image)
        .atMost(Scenario.WAIT)
        .until(
            () ->
                s.pods(ds).stream()
                    .filter(p -> p.getSpec().getContainers().get(0).getImage().endsWith(image))
                    .map(p -> p.getMetadata().getLabels().get(MetadataKeys.REVISION_HASH_LABEL))
                    .findFirst()
                    .orElse(null),
            h -> h != null);
  }
}
