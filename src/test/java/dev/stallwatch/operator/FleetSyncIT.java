package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.operator.cache.RolloutEventSources;
import dev.stallwatch.realcluster.ImageJvmFlags;
import dev.stallwatch.realcluster.OperatorProcess;
import dev.stallwatch.realcluster.ProcessStats;
import dev.stallwatch.testing.DaemonSetFixture;
import dev.stallwatch.testing.EmbeddedFleet;
import dev.stallwatch.testing.FleetObjects;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A fleet-sized cluster served to the operator as its own process with a small heap: 2,000 nodes ×
 * 10 DaemonSets, 20,000 DaemonSet pods shaped like a real cluster's ({@link FleetObjects}: three
 * containers, env, mounts, full status, managedFields for the controller and the kubelet), listed
 * 500 a page as kube-apiserver lists them ({@link EmbeddedFleet}). With the image's JVM options
 * ({@link ImageJvmFlags}) the operator must sync in {@value #HEAP} of heap and then record a stall
 * injected afterwards — watching all namespaces, and a list of namespaces (an informer per
 * namespace). A heap too small for the cluster ends it at once with one line that says so; an API
 * server that answers pages slowly does not end it.
 */
class FleetSyncIT {
  static final String HEAP = "-Xmx128m";
  static final int NODES = 2_000;
  static final int DAEMON_SETS = 10;

  EmbeddedFleet fleet;
  OperatorProcess operator;

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
    if (fleet != null) {
      fleet.close();
    }
  }

  static Stream<Arguments> modes() {
    return Stream.of(
        Arguments.of("all namespaces", List.of("fleet"), List.of()),
        Arguments.of(
            "a list of namespaces",
            List.of("fleet-a", "fleet-b"),
            List.of("--namespaces=fleet-a,fleet-b")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("modes")
  void anOperatorWithA128MiBHeapSyncs20000DaemonSetPodsThenRecordsAStall(
      String mode, List<String> namespaces, List<String> flags, @TempDir Path tmp) {
    fleet =
        new EmbeddedFleet(
            NODES, DAEMON_SETS, namespaces, RolloutEventSources.LIST_PAGE, Duration.ZERO);
    long started = System.nanoTime();
    operator =
        start(tmp, HEAP, Stream.concat(Stream.of("--stall-after=2s"), flags.stream()).toList());
    await("operator synced")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> operator.ready() || !operator.alive());
    assertThat(operator.alive()).as(operator.output()).isTrue();
    double sync = (System.nanoTime() - started) / 1e9;
    // Every handler reads the cache's pruned copies the informers hand out after their first list
    // as it read the objects themselves: no event fails.
    assertThat(operator.output().lines().filter(l -> l.contains(" ERROR ") || l.contains(" WARN ")))
        .as("errors and warnings in the operator's log")
        .isEmpty();
    assertThat(fleet.podListsCompleted())
        .as("pod lists served to the end")
        .isEqualTo(namespaces.size());
    assertThat(fleet.nodeListsCompleted()).as("node lists served to the end").isEqualTo(1);
    long heap = ProcessStats.heapAfterFullGc(operator.pid());
    System.out.printf(
        "FleetSyncIT (%s): synced %d pods and %d nodes in %.1f s; heap after full GC %.1f MiB,"
            + " peak RSS %.1f MiB%n",
        mode,
        fleet.podCount(),
        NODES,
        sync,
        heap / 1048576.0,
        ProcessStats.peakRssBytes(operator.pid()) / 1048576.0);

    DaemonSetFixture broken = fleet.daemonSet(3);
    broken.applyTemplate(2);
    broken.revision(2);
    broken.pullBackOffPod(FleetObjects.nodeName(0), 2, Instant.now());

    await("the stall of " + broken.name() + " recorded")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> activeStall(broken) != null || !operator.alive());
    assertThat(operator.alive()).as(operator.output()).isTrue();
    RolloutStall stall = activeStall(broken);
    assertThat(stall.getStatus().cause()).isEqualTo("ImagePull");
    assertThat(stall.getStatus().node()).isEqualTo(FleetObjects.nodeName(0));
    assertThat(fleet.client().resources(RolloutStall.class).inAnyNamespace().list().getItems())
        .as("no other DaemonSet stalled")
        .hasSize(1);
  }

  @Test
  void aHeapTooSmallForTheClusterEndsTheOperatorAtOnceWithOneLineThatSaysSo(@TempDir Path tmp) {
    fleet =
        new EmbeddedFleet(
            NODES, DAEMON_SETS, List.of("fleet"), RolloutEventSources.LIST_PAGE, Duration.ZERO);
    operator = start(tmp, "-Xmx40m", List.of());

    await("operator ended")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> !operator.alive());

    String out = operator.output();
    // -XX:+ExitOnOutOfMemoryError, or HeapGuard after full collections in a row that free nothing
    assertThat(operator.exitCode()).as(out).isEqualTo(HeapGuard.EXIT_CODE);
    String end =
        out.lines()
            .filter(l -> l.contains("stayed full across") || l.contains("Terminating due to"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("neither end said why:\n" + out));
    System.err.println("fleet: the -Xmx40m operator ended: " + end);
    assertThat(out.lines().filter(l -> l.contains("the heap is nearly full")))
        .as(out)
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .containsPattern("\\d+ of \\d+ MiB in use after a full collection, holding")
                    .contains("DaemonSet pods", "resources.limits.memory", HeapGuard.SIZING));
    assertThat(out).as("no stack trace").doesNotContain("\tat ");
    assertThat(fleet.podListsCompleted()).as("the list never ended").isZero();
  }

  @Test
  void anApiServerThatAnswersPagesSlowlyDoesNotEndTheOperatorWhichSaysHowFarItHasGot(
      @TempDir Path tmp) {
    // the first page slower than fabric8's default request timeout (10 s)
    fleet =
        new EmbeddedFleet(
            500, 4, List.of("fleet"), RolloutEventSources.LIST_PAGE, Duration.ofSeconds(12));
    operator = start(tmp, HEAP, List.of());

    await("operator synced")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> operator.ready() || !operator.alive());
    String out = operator.output();
    assertThat(operator.alive()).as(out).isTrue();
    List<String> progress = out.lines().filter(l -> l.contains("listing DaemonSets: ")).toList();
    assertThat(progress)
        .as(out)
        .hasSizeBetween(2, 4) // one line every 5 s, not one per page
        .allMatch(
            l ->
                l.matches(
                    ".* DaemonSet pods, [\\d,]+ nodes, \\d+ ControllerRevisions read so far \\(\\d+ s\\)"));
    assertThat(out)
        .contains("caches of DaemonSets synced in")
        .contains("2,000 DaemonSet pods, 500 nodes");
  }

  private OperatorProcess start(Path tmp, String heap, List<String> flags) {
    List<String> jvm = new ArrayList<>(ImageJvmFlags.flags());
    jvm.add(heap); // after the image's MaxRAMPercentage: the test's machine is no container
    return OperatorProcess.start(
        OperatorProcess.JAR,
        fleet.kubeconfig(tmp.resolve("kubeconfig")),
        tmp.resolve("operator.log"),
        "stallwatch-fleet",
        jvm,
        flags.toArray(String[]::new));
  }

  private RolloutStall activeStall(DaemonSetFixture ds) {
    return fleet
        .client()
        .resources(RolloutStall.class)
        .inNamespace(ds.namespace())
        .list()
        .getItems()
        .stream()
        .filter(s -> ds.name().equals(s.getSpec().daemonSet()))
        .filter(s -> s.getStatus() != null && s.getStatus().active())
        .findFirst()
        .orElse(null);
  }
}
