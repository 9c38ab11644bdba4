package dev.stallwatch.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;

/**
 * Feeds the analyzer random — often nonsensical — snapshots: missing fields, pods on unknown nodes,
 * duplicate node names, conflicting labels, deletion timestamps in the future, odd phases, absurd
 * numbers (negative, {@code MAX_VALUE}) in generations, template generations, revisions and {@code
 * .status}, and Events of every type, reason, subject and time. The analyzer must never throw and
 * must keep its own invariants — never Complete without Full evidence unless {@code .status} itself
 * says so. Seeded, so a failure reproduces.
 */
class RolloutAnalyzerFuzzTest {
  private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");
  private static final String[] WAITING = {
    "",
    "ImagePullBackOff",
    "ErrImagePull",
    "CrashLoopBackOff",
    "ContainerCreating",
    "CreateContainerConfigError",
    "PodInitializing",
    "InvalidImageName"
  };
  private static final String[] PHASES = {"", "Pending", "Running", "Failed", "Succeeded", "Bogus"};

  @RepeatedTest(400)
  void theAnalyzerNeverThrowsAndKeepsItsInvariants(RepetitionInfo info) {
    Random random = new Random(info.getCurrentRepetition() * 7919L);
    RolloutSnapshot snapshot = randomSnapshot(random);
    RolloutVerdict verdict =
        RolloutAnalyzer.analyze(
            snapshot,
            NOW,
            new AnalyzerSettings(Duration.ofSeconds(random.nextInt(900))),
            random.nextBoolean()
                ? StallMemory.NONE
                : new StallMemory("h" + random.nextInt(3), Map.of("n0", NOW.minusSeconds(999))));

    Counts c = verdict.counts();
    assertThat(c.current()).isBetween(0, c.desired());
    assertThat(c.ready()).isBetween(0, c.current());
    assertThat(c.available()).isBetween(0, c.ready());
    assertThat(c.upToDate()).isBetween(0, c.current());
    assertThat(c.unavailable()).isEqualTo(c.desired() - c.available());
    assertThat(verdict.phase()).isNotNull();
    assertThat(verdict.cause() != null).isEqualTo(verdict.phase() == Phase.Stalled);
    assertThat(verdict.stalledNodes().isEmpty()).isEqualTo(verdict.phase() != Phase.Stalled);
    assertThat(verdict.nodes()).extracting(NodeRow::node).doesNotHaveDuplicates().isSorted();
    if (verdict.nextCheck() != null) {
      assertThat(verdict.nextCheck()).isAfter(NOW);
    }
    assertThat(verdict.message()).isNotBlank();
    assertThat(verdict.missing().isEmpty()).isEqualTo(verdict.evidence() == Evidence.Full);
    if (verdict.phase() == Phase.Complete && verdict.evidence() != Evidence.Full) {
      DaemonSetView ds = snapshot.daemonSet();
      assertThat(ds.status() != null && ds.status().reportsComplete(ds.generation()))
          .as("Complete without full evidence only on .status's word")
          .isTrue();
    }
    assertThat(verdict.nodes())
        .noneMatch(
            r ->
                r.standing() == NodeRow.Standing.NOT_DESIRED
                    && !nodeNames(snapshot).contains(r.node()));
    if (verdict.nodes().stream().anyMatch(r -> r.cause() == Cause.FailedCreate)) {
      assertThat(snapshot.events())
          .as("FailedCreate only from a Warning FailedCreate Event")
          .anyMatch(EventView::failedCreate);
    }
  }

  /**
   * The analyzer looks nodes up by name in hash maps and sorts only its output: the order in which
   * the input lists the nodes (an informer's cache: hash order) must not change the verdict. Nodes
   * sharing a name keep their order (the first one wins).
   */
  @RepeatedTest(200)
  void theVerdictDoesNotDependOnTheOrderOfTheNodes(RepetitionInfo info) {
    Random random = new Random(info.getCurrentRepetition() * 104_729L);
    RolloutSnapshot snapshot = randomSnapshot(random);
    Map<String, List<NodeView>> byName = new java.util.LinkedHashMap<>();
    snapshot.nodes().forEach(n -> byName.computeIfAbsent(n.name(), k -> new ArrayList<>()).add(n));
    List<String> names = new ArrayList<>(byName.keySet());
    java.util.Collections.shuffle(names, random);
    List<NodeView> shuffled = new ArrayList<>();
    names.forEach(name -> shuffled.addAll(byName.get(name)));
    RolloutSnapshot reordered =
        new RolloutSnapshot(
            snapshot.daemonSet(),
            snapshot.pods(),
            shuffled,
            snapshot.revisions(),
            snapshot.unreadableNodes(),
            snapshot.podsListed(),
            snapshot.events());
    AnalyzerSettings settings = new AnalyzerSettings(Duration.ofSeconds(random.nextInt(900)));

    assertThat(RolloutAnalyzer.analyze(reordered, NOW, settings))
        .isEqualTo(RolloutAnalyzer.analyze(snapshot, NOW, settings));
  }

  private static java.util.Set<String> nodeNames(RolloutSnapshot s) {
    java.util.Set<String> names = new java.util.HashSet<>();
    s.nodes().forEach(n -> names.add(n.name()));
    return names;
  }

  private static RolloutSnapshot randomSnapshot(Random r) {
    List<NodeView> nodes = new ArrayList<>();
    for (int i = 0, n = r.nextInt(6); i < n; i++) {
      nodes.add(
          new NodeView(
              "n" + r.nextInt(5),
              r.nextBoolean() ? Map.of("gpu", "true") : null,
              r.nextBoolean()
                  ? List.of(
                      new NodeView.Taint(
                          pick(r, "node.kubernetes.io/not-ready", "gpu", "x"),
                          null,
                          pick(r, "NoSchedule", "NoExecute", "PreferNoSchedule", ""),
                          null))
                  : null,
              r.nextBoolean(),
              r.nextBoolean()
                  ? new NodeView.Condition(
                      pick(r, "True", "False", "Unknown", ""), null, null, null)
                  : null,
              null));
    }
    List<RevisionView> revisions = new ArrayList<>();
    for (int i = 0, n = r.nextInt(4); i < n; i++) {
      revisions.add(
          new RevisionView(
              "ds-h" + i,
              "h" + i,
              r.nextInt(5) == 0 ? pick(r, -1L, Long.MAX_VALUE, Long.MIN_VALUE) : r.nextInt(4),
              r.nextBoolean() ? NOW.minusSeconds(r.nextInt(3600)) : null,
              r.nextBoolean() ? new OwnerRef("DaemonSet", "ds", "uid-ds") : null,
              r.nextBoolean() ? template(r) : null));
    }
    List<PodView> pods = new ArrayList<>();
    for (int i = 0, n = r.nextInt(8); i < n; i++) {
      pods.add(pod(r, i));
    }
    DaemonSetView ds =
        new DaemonSetView(
            new ObjectRef("ns", "ds", r.nextBoolean() ? "uid-ds" : null),
            r.nextInt(5) == 0 ? pick(r, -1L, Long.MAX_VALUE, Long.MIN_VALUE) : r.nextInt(4),
            r.nextInt(5) == 0
                ? pick(r, -1L, 0L, Long.MAX_VALUE, Long.MIN_VALUE)
                : r.nextBoolean() ? (long) r.nextInt(4) : null,
            r.nextBoolean() ? Map.of(MetadataKeys.ALLOW_NODE_EXCLUSION, "true") : null,
            template(r),
            r.nextBoolean()
                ? null
                : new DaemonSetView.UpdateStrategy(
                    r.nextInt(5) == 0,
                    new IntOrPercent(r.nextInt(3), r.nextBoolean()),
                    new IntOrPercent(r.nextInt(3), r.nextBoolean())),
            r.nextInt(3) * 30,
            r.nextBoolean()
                ? null
                : r.nextBoolean()
                    ? new DaemonSetView.Status(
                        r.nextBoolean() ? (long) r.nextInt(4) : null, 1, 1, 1, 1, 1, 0, 0)
                    : new DaemonSetView.Status(
                        r.nextBoolean() ? pick(r, -1L, 0L, 2L, Long.MAX_VALUE) : null,
                        count(r),
                        count(r),
                        count(r),
                        count(r),
                        count(r),
                        count(r),
                        count(r)),
            null);
    return new RolloutSnapshot(
        ds,
        pods,
        nodes,
        revisions,
        r.nextInt(4) == 0 ? java.util.Set.of("n" + r.nextInt(5)) : java.util.Set.of(),
        r.nextInt(5) != 0,
        events(r));
  }

  /** A number of {@code .status}: mostly small, sometimes negative or absurd. */
  private static int count(Random r) {
    return r.nextInt(4) == 0 ? pick(r, -1, Integer.MAX_VALUE, Integer.MIN_VALUE) : r.nextInt(5);
  }

  /** Events of every kind: the controller's FailedCreate, its look-alikes, and garbage. */
  private static List<EventView> events(Random r) {
    List<EventView> events = new ArrayList<>();
    for (int i = 0, n = r.nextInt(4); i < n; i++) {
      events.add(
          new EventView(
              pick(r, "Warning", "Warning", "Normal", "warning", "", null),
              pick(r, "FailedCreate", "FailedCreate", "failedcreate", "SuccessfulCreate", "", null),
              pick(
                  r,
                  "Error creating: pods \"ds-x\" is forbidden: exceeded quota: gpu",
                  "",
                  null,
                  "x".repeat(5000),
                  "line\nbreak\ttab \u0000 nul"),
              pick(
                  r,
                  null,
                  NOW,
                  NOW.minusSeconds(r.nextInt(7200)),
                  NOW.plusSeconds(3600),
                  Instant.EPOCH,
                  Instant.MIN,
                  Instant.MAX),
              pick(r, "DaemonSet", "DaemonSet", "Pod", "", null),
              pick(r, "ds", "ds", "other", "", null),
              pick(r, "uid-ds", "other", "", null)));
    }
    return events;
  }

  private static PodTemplateView template(Random r) {
    Map<String, String> selector = new HashMap<>();
    if (r.nextBoolean()) {
      selector.put("gpu", "true");
    }
    return new PodTemplateView(
        null,
        selector,
        r.nextInt(4) == 0
            ? List.of(
                new PodTemplateView.NodeSelectorTerm(
                    List.of(new PodTemplateView.Requirement("gpu", pick(r, "In", "Gt", "?"), null)),
                    null))
            : null,
        r.nextBoolean()
            ? List.of(new PodTemplateView.Toleration(null, "Exists", null, null, null))
            : null,
        r.nextInt(6) == 0 ? "n1" : null,
        r.nextBoolean(),
        null,
        List.of(new PodTemplateView.Container("c", "img:" + r.nextInt(3), null)),
        "t" + r.nextInt(3));
  }

  private static PodView pod(Random r, int i) {
    Map<String, String> labels = new HashMap<>();
    if (r.nextBoolean()) {
      labels.put(MetadataKeys.REVISION_HASH_LABEL, "h" + r.nextInt(4));
    }
    if (r.nextBoolean()) {
      labels.put(MetadataKeys.TEMPLATE_GENERATION_LABEL, pick(r, "1", "2", "x", ""));
    }
    List<PodView.Condition> conditions = new ArrayList<>();
    if (r.nextBoolean()) {
      conditions.add(
          new PodView.Condition(
              "Ready",
              pick(r, "True", "False"),
              null,
              null,
              r.nextBoolean() ? NOW.minusSeconds(r.nextInt(600)) : null));
    }
    if (r.nextBoolean()) {
      conditions.add(
          new PodView.Condition(
              "PodScheduled",
              "False",
              "Unschedulable",
              pick(r, "0/3: 1 Insufficient cpu", ""),
              null));
    }
    String node = "n" + r.nextInt(6);
    return new PodView(
        "ns",
        "p" + i,
        null,
        labels,
        r.nextInt(5) == 0 ? null : new OwnerRef("DaemonSet", "ds", pick(r, "uid-ds", "other")),
        r.nextBoolean() ? node : null,
        r.nextInt(6) == 0 ? null : node,
        r.nextBoolean() ? NOW.minusSeconds(r.nextInt(3600)) : null,
        r.nextInt(4) == 0 ? NOW.plusSeconds(r.nextInt(600) - 300) : null,
        pick(r, PHASES),
        pick(r, "", "OutOfcpu", "NodeLost"),
        null,
        conditions,
        r.nextBoolean() ? List.of("init") : null,
        List.of("img"),
        r.nextBoolean() ? List.of(status(r, "init")) : null,
        r.nextBoolean() ? List.of(status(r, "c")) : null);
  }

  private static PodView.ContainerStatus status(Random r, String name) {
    boolean running = r.nextBoolean();
    return new PodView.ContainerStatus(
        name,
        "img",
        r.nextBoolean(),
        r.nextInt(3),
        running ? null : pick(r, WAITING),
        null,
        running,
        r.nextInt(4) == 0 ? pick(r, "Completed", "Error", "") : null,
        r.nextInt(4) == 0 ? r.nextInt(2) : null,
        null);
  }

  @SafeVarargs
  private static <T> T pick(Random r, T... options) {
    return options[r.nextInt(options.length)];
  }
}
