package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.deploy.NativeHelm;
import dev.stallwatch.operator.decision.EventReason;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Relists across the operator's namespaces, in both modes the chart offers: a list of namespaces
 * ({@code operator.namespaces}, one informer per namespace and kind) and all namespaces. Watched:
 * two namespaces with a stall in progress ({@link FaultBed}), two with rollouts completed minutes
 * earlier (one with {@code minReadySeconds}), one whose DaemonSet breaks while the operator is
 * down; not watched in the namespaced mode: one with a stall of its own. Then the API server is
 * killed and back within seconds, etcd is compacted under the watches (410, every informer
 * relists), the operator is killed while a new stall falls due, and — in the namespaced mode, as
 * the fault was first met — the API server is stopped with SIGTERM (its 60 s graceful shutdown:
 * every node goes NotReady for a while and the DaemonSet controller replaces pods).
 *
 * <p>After each: every stall keeps its uid, node set's first node, cause and {@code stalledSince}
 * with one Event; nothing is Resolved or deleted; no RolloutStall or Event appears for a completed
 * rollout or an unwatched namespace; no {@code -norevision} object; the operator's count of cached
 * pods per namespace ({@code stallwatch_cache_pods}) is what the API server holds.
 */
@NativeHelm
class NamespacedRelistFaultIT {
  private static final String STALLED_1 = "rl-stalled-1";
  private static final String STALLED_2 = "rl-stalled-2";
  private static final String DONE = "rl-done";
  private static final String DONE_MIN_READY = "rl-done-minready";
  private static final String LATE = "rl-late";
  private static final String UNWATCHED = "rl-unwatched";
  private static final List<String> WATCHED =
      List.of(STALLED_1, STALLED_2, DONE, DONE_MIN_READY, LATE);

  /** What an outage may add to the operator's log: a line when lost, one when back. */
  private static final int MAX_LOG_LINES = 10;

  /**
   * Whether the operator logs at debug or trace (STALLWATCH_LOG_LEVEL, inherited by its process):
   * to look into a failure; its log is then not counted.
   */
  private static final boolean VERBOSE =
      List.of("debug", "trace").contains(System.getenv().getOrDefault("STALLWATCH_LOG_LEVEL", ""));

  private RealCluster cluster;
  private OperatorProcess operator;
  private final List<FaultBed> beds = new ArrayList<>();
  private final Map<String, Scenario> scenarios = new TreeMap<>();
  private ChartInstall release;
  private WatchCutProxy proxy;
  private Path kubeconfig;
  private String[] flags;
  private int generation;

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aListOfNamespacesKeepsEveryRecordThroughRelistsRestartsAndAnOperatorKill() {
    setUp("relist-namespaced", true);

    fault(
        "the watches of one namespace cut and answered 410: its informers relist, no other's",
        this::cutWatchesInOneNamespace);
    fault("kube-apiserver SIGKILL, back in ~12 s", () -> restartApiServer(true));
    fault("etcd compacted, kube-apiserver restarted: 410, every informer relists", this::compact);
    operatorKilledWhileAStallFallsDue();
    // The case first met: SIGTERM's graceful shutdown keeps the API server away past the node
    // grace period; nodes go NotReady, the controller replaces unavailable pods (a real change).
    fault("kube-apiserver SIGTERM (60 s graceful shutdown)", () -> restartApiServer(false));
  }

  @Test
  void allNamespacesKeepEveryRecordThroughRelistsRestartsAndAnOperatorKill() {
    setUp("relist-all", false);

    // What an outage leaves for a moment, made to stay: DESIRED 0 with the broken pod still there.
    fault(
        "every node of a stalled namespace tainted NoSchedule: out of DESIRED, the broken pod left",
        () -> taintNodes(STALLED_1, true));
    taintNodes(STALLED_1, false);

    fault("kube-apiserver SIGKILL, back in ~12 s", () -> restartApiServer(true));
    fault("etcd compacted, kube-apiserver restarted: 410, every informer relists", this::compact);
    operatorKilledWhileAStallFallsDue();
  }

  /**
   * Taints (or untaints) every node of {@code ns} with a NoSchedule taint its DaemonSets do not
   * tolerate: by the controller's rules they leave DESIRED, and since NoSchedule does not evict,
   * the stalled DaemonSet's broken pod is still there while "all 0 desired nodes run the new
   * revision".
   */
  private void taintNodes(String ns, boolean taint) {
    for (var node : cluster.admin().nodes().withLabel(Scenario.LABEL, ns).list().getItems()) {
      cluster
          .admin()
          .nodes()
          .withName(node.getMetadata().getName())
          .edit(
              n -> {
                var taints = new ArrayList<>(n.getSpec().getTaints());
                taints.removeIf(t -> OUTAGE_TAINT.equals(t.getKey()));
                if (taint) {
                  taints.add(
                      new io.fabric8.kubernetes.api.model.TaintBuilder()
                          .withKey(OUTAGE_TAINT)
                          .withEffect("NoSchedule")
                          .build());
                }
                n.getSpec().setTaints(taints);
                return n;
              });
    }
    // The operator judges by its own recount from the nodes; the controller's status may lag for
    // minutes here (its DaemonSet sync backs off after "read version … is not as new as written
    // version"). The pods stay either way: NoSchedule does not evict.
    await("the taint on every node of " + ns + (taint ? "" : " gone"))
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                cluster.admin().nodes().withLabel(Scenario.LABEL, ns).list().getItems().stream()
                    .allMatch(
                        n ->
                            taint
                                == n.getSpec().getTaints().stream()
                                    .anyMatch(t -> OUTAGE_TAINT.equals(t.getKey()))));
  }

  private static final String OUTAGE_TAINT = "stallwatch.dev/test-outage";

  private void setUp(String name, boolean namespaced) {
    cluster =
        RealClusterExtension.separate(
            name,
            "it kills the API server, compacts etcd and stops the API server gracefully (every"
                + " node NotReady for a while)");
    for (String ns : List.of(STALLED_1, STALLED_2, LATE, UNWATCHED)) {
      scenarios.put(ns, FaultBed.rolledOut(cluster, ns));
    }
    Scenario done = Scenario.create(cluster, DONE, 3, 0);
    done.rollOut("agent", "example.com/agent:v1", b -> b);
    scenarios.put(DONE, done);
    Scenario minReady = Scenario.create(cluster, DONE_MIN_READY, 3, 0);
    minReady.rollOut(
        "agent", "example.com/agent:v1", b -> b.editSpec().withMinReadySeconds(3).endSpec());
    scenarios.put(DONE_MIN_READY, minReady);

    release =
        namespaced
            ? new ChartInstall("stallwatch", "stallwatch-system", namespacesValue())
            : OperatorProcess.DEFAULT_RELEASE;
    release.install(cluster);
    kubeconfig = release.serviceAccountKubeconfig(cluster, cluster.dir().resolve(name + ".kc"));
    if (namespaced) {
      // Through a front that sees each request, to cut one namespace's watches only.
      proxy = new WatchCutProxy(cluster.apiServer(), cluster.caCertificate());
      kubeconfig = proxy.kubeconfigThrough(kubeconfig, cluster.dir().resolve(name + "-cut.kc"));
    }
    flags =
        namespaced
            ? new String[] {
              "--stall-after=" + OperatorProcess.STALL_AFTER,
              "--namespaces=" + String.join(",", WATCHED)
            }
            : new String[] {"--stall-after=" + OperatorProcess.STALL_AFTER};
    startOperator();

    // Both completed DaemonSets move to a second revision, finished before any fault.
    for (String ns : List.of(DONE, DONE_MIN_READY)) {
      FaultBed.setImage(cluster, scenarios.get(ns), "agent", "example.com/agent:v2");
      scenarios.get(ns).awaitComplete("agent");
    }
    beds.add(FaultBed.stallInProgress(cluster, scenarios.get(STALLED_1)));
    beds.add(FaultBed.stallInProgress(cluster, scenarios.get(STALLED_2)));
    if (!namespaced) {
      beds.add(FaultBed.stallInProgress(cluster, scenarios.get(UNWATCHED)));
    } else {
      FaultBed.setImage(
          cluster, scenarios.get(UNWATCHED), FaultBed.STALLED, Scenario.UNPULLABLE + "agent:v2");
    }
    awaitCachedPodsMatchTheCluster();
    assertRecordsIntact(namespaced);
  }

  /** {@code operator.namespaces} as {@code --set operator.namespaces[i]=…}. */
  private static Map<String, String> namespacesValue() {
    Map<String, String> values = new TreeMap<>();
    for (int i = 0; i < WATCHED.size(); i++) {
      values.put("operator.namespaces[" + i + "]", WATCHED.get(i));
    }
    return values;
  }

  private void startOperator() {
    generation++;
    String name = cluster.dir().getFileName() + "-operator-" + generation;
    operator = OperatorProcess.start(kubeconfig, cluster.dir().resolve(name + ".log"), name, flags);
    await("operator " + name + " ready")
        .atMost(Duration.ofMinutes(1))
        .until(() -> operator.ready() || !operator.alive());
    assertThat(operator.alive()).as("operator %s running:%n%s", name, operator.output()).isTrue();
  }

  private void restartApiServer(boolean kill) {
    cluster.restart("kube-apiserver", kill, Duration.ofSeconds(10));
  }

  private void compact() {
    for (int i = 0; i < 30; i++) {
      cluster
          .admin()
          .configMaps()
          .inNamespace(LATE)
          .resource(
              new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("churn-" + generation + "-" + i)
                  .endMetadata()
                  .build())
          .create();
    }
    assertThat(cluster.compactEtcd()).isPositive();
    cluster.restart("kube-apiserver", false, Duration.ofSeconds(1));
  }

  /** What the operator's informers watch in each namespace. */
  private static final List<String> INFORMED = List.of("pods", "daemonsets", "controllerrevisions");

  /**
   * {@link #STALLED_1}'s watches closed and answered 410 when they come back, as the API server
   * does when their resourceVersion has left its watch cache: that namespace's informers list it
   * again while every other namespace's watches stay open. With a store shared across namespaces a
   * relist of one would evict the others' objects; the caches are compared after it.
   */
  private void cutWatchesInOneNamespace() {
    int from = proxy.requests().size();
    assertThat(proxy.cutWatches(STALLED_1)).as("watches open in %s", STALLED_1).isPositive();
    try {
      await("the informers of " + STALLED_1 + " list it again after 410")
          .atMost(Duration.ofMinutes(1))
          .until(() -> listed(from, STALLED_1).containsAll(INFORMED));
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      List<String> all = proxy.requests();
      throw new AssertionError(
          "answered 410: "
              + proxy.expiredResources()
              + "; requests since the cut:\n"
              + String.join("\n", all.subList(from, all.size())),
          e);
    }
    assertThat(proxy.expiredResources()).containsAll(INFORMED);
    for (String ns : WATCHED) {
      if (!ns.equals(STALLED_1)) {
        assertThat(listed(from, ns)).as("resources listed again in %s", ns).isEmpty();
      }
    }
  }

  /** The informed resources listed (not watched) in {@code ns} since request {@code from}. */
  private List<String> listed(int from, String ns) {
    List<String> all = proxy.requests();
    return all.subList(from, all.size()).stream()
        .filter(r -> r.startsWith("GET ") && !r.contains("watch=true"))
        .map(r -> r.split("[ ?]")[1])
        .filter(path -> path.contains("/namespaces/" + ns + "/"))
        .map(path -> path.substring(path.lastIndexOf('/') + 1))
        .filter(INFORMED::contains)
        .distinct()
        .toList();
  }

  /** Runs {@code fault}, then checks every record and the caches; one reliability row. */
  private void fault(String what, Runnable fault) {
    int logged = operator.output().split("\n", -1).length;
    fault.run();
    Instant back = Instant.now();
    await("operator ready after: " + what)
        .atMost(Duration.ofMinutes(3))
        .until(() -> operator.ready() || !operator.alive());
    awaitCachedPodsMatchTheCluster();
    Duration settled = Duration.between(back, Instant.now());
    // Whatever a lagging cache would write is written within moments of the relist.
    await().pollDelay(Duration.ofSeconds(5)).until(() -> true);
    assertRecordsIntactOrTell(what, logged);
    String[] log = operator.output().split("\n", -1);
    List<String> during = List.of(log).subList(Math.min(logged, log.length) - 1, log.length);
    if (!VERBOSE) {
      assertThat(during.stream().filter(l -> !l.isBlank()).toList())
          .as("the operator's log lines across: %s", what)
          .hasSizeLessThanOrEqualTo(MAX_LOG_LINES);
    }
    ReliabilityReport.row(
        what + (flags.length > 1 ? " — operator watching 5 namespaces" : " — all namespaces"),
        "every stall kept (uid, stalledSince, one Event); no stall or Event for the completed"
            + " rollouts; nothing Resolved or deleted; no -norevision; cached pods per namespace"
            + " as in the cluster",
        ReliabilityReport.seconds(settled) + " until the caches matched the cluster again",
        lostAndDuplicated());
  }

  /**
   * The operator killed (SIGKILL); while it is down, {@link #LATE}'s healthy DaemonSet breaks and
   * its stall falls due: recorded within stall-after + 5 s of the new process starting.
   */
  private void operatorKilledWhileAStallFallsDue() {
    operator.kill();
    FaultBed late = FaultBed.untouched(cluster, scenarios.get(LATE));
    late.breakHealthy("v2");
    Instant due = late.healthyStallDue(late.healthyRevision);
    await("the stall of " + LATE + " falls due while the operator is down")
        .atMost(Duration.ofMinutes(1))
        .until(() -> Instant.now().isAfter(due.plusSeconds(1)));
    Instant restarted = Instant.now();
    startOperator();
    await("the stall that fell due while the operator was down")
        .atMost(Duration.parse("PT" + OperatorProcess.STALL_AFTER.toUpperCase()).plusSeconds(5))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> !late.active(FaultBed.HEALTHY).isEmpty());
    Duration recorded = Duration.between(restarted, Instant.now());
    late.assertHealthyStalledOnce();
    awaitCachedPodsMatchTheCluster();
    assertRecordsIntactOrTell("the operator killed", 0);
    ReliabilityReport.row(
        "operator SIGKILLed, a new stall falling due while it is down"
            + (flags.length > 1 ? " — operator watching 5 namespaces" : " — all namespaces"),
        "the new process records the new stall once; every other record kept",
        ReliabilityReport.seconds(recorded) + " after the new process started",
        lostAndDuplicated());
  }

  /** Lost / duplicated stalls summed over every namespace with a stall in progress. */
  private String lostAndDuplicated() {
    int lost = 0;
    int duplicated = 0;
    for (FaultBed bed : beds) {
      String[] counts = bed.lostAndDuplicated().split(" / ");
      lost += Integer.parseInt(counts[0]);
      duplicated += Integer.parseInt(counts[1]);
    }
    return lost + " / " + duplicated;
  }

  private void awaitCachedPodsMatchTheCluster() {
    await("the operator's cached pods per namespace match the cluster's")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> cachedPods().equals(clusterPods()));
  }

  /** What the API server holds: DaemonSet pods per watched namespace. */
  private Map<String, Integer> clusterPods() {
    Map<String, Integer> counts = new TreeMap<>();
    for (String ns : watched()) {
      counts.put(
          ns,
          cluster
              .admin()
              .pods()
              .inNamespace(ns)
              .withLabel("pod-template-generation")
              .list()
              .getItems()
              .size());
    }
    return counts;
  }

  private List<String> watched() {
    return flags.length > 1
        ? WATCHED
        : Stream.concat(WATCHED.stream(), Stream.of(UNWATCHED)).sorted().toList();
  }

  private Map<String, Integer> cachedPods() {
    Map<String, Integer> counts = new TreeMap<>();
    watched().forEach(ns -> counts.put(ns, 0));
    for (PromText.Sample s : PromText.samples(operator.metrics(), "stallwatch_cache_pods")) {
      if (counts.containsKey(s.label("namespace"))) {
        counts.put(s.label("namespace"), (int) s.value());
      }
    }
    return counts;
  }

  /**
   * {@link #assertRecordsIntact}; a failure carries the operator's log lines since line {@code
   * from} (stack traces left out), which say what it wrote and why.
   */
  private void assertRecordsIntactOrTell(String what, int from) {
    try {
      assertRecordsIntact(flags.length > 1);
    } catch (AssertionError e) {
      String[] log = operator.output().split("\n", -1);
      String lines =
          String.join(
              "\n",
              List.of(log).subList(Math.min(from, log.length), log.length).stream()
                  .filter(l -> !l.isBlank() && !l.startsWith("\t") && !l.startsWith("Caused by"))
                  .toList());
      throw new AssertionError(
          e.getMessage()
              + "\nafter: "
              + what
              + "; the operator's log since:\n"
              + lines
              + "\nthe cluster now:\n"
              + clusterState(),
          e);
    }
  }

  /** Each stalled namespace's nodes (Ready, taints) and DaemonSet pods, for a failure message. */
  private String clusterState() {
    StringBuilder out = new StringBuilder();
    for (String ns : List.of(STALLED_1, STALLED_2, LATE)) {
      for (var node : cluster.admin().nodes().withLabel(Scenario.LABEL, ns).list().getItems()) {
        out.append("node ").append(node.getMetadata().getName());
        node.getStatus().getConditions().stream()
            .filter(c -> "Ready".equals(c.getType()))
            .forEach(
                c ->
                    out.append(" Ready=")
                        .append(c.getStatus())
                        .append(" since ")
                        .append(c.getLastTransitionTime()));
        out.append(" taints ").append(node.getSpec().getTaints()).append('\n');
      }
      for (var ds : cluster.admin().apps().daemonSets().inNamespace(ns).list().getItems()) {
        out.append("ds ").append(ns).append('/').append(ds.getMetadata().getName());
        out.append(" generation ").append(ds.getMetadata().getGeneration());
        out.append(" status ").append(ds.getStatus()).append('\n');
      }
      for (var pod : cluster.admin().pods().inNamespace(ns).list().getItems()) {
        out.append("pod ").append(ns).append('/').append(pod.getMetadata().getName());
        out.append(" on ").append(pod.getSpec().getNodeName());
        out.append(" hash ").append(pod.getMetadata().getLabels().get("controller-revision-hash"));
        out.append(" phase ").append(pod.getStatus().getPhase());
        out.append(" deleting ").append(pod.getMetadata().getDeletionTimestamp()).append('\n');
      }
    }
    return out.toString();
  }

  private void assertRecordsIntact(boolean namespaced) {
    for (FaultBed bed : beds) {
      bed.assertIntact();
      assertThat(bed.newStalls(FaultBed.HEALTHY))
          .as("stalls of the untouched DaemonSet in %s", bed.namespace())
          .isEmpty();
    }
    for (String ns : List.of(DONE, DONE_MIN_READY)) {
      Scenario s = scenarios.get(ns);
      assertThat(s.stalls()).as("RolloutStalls of the completed rollout in %s", ns).isEmpty();
      assertThat(s.events("agent", EventReason.STALLED.reason()))
          .as("RolloutStalled in %s", ns)
          .isEmpty();
    }
    if (namespaced) {
      assertThat(scenarios.get(UNWATCHED).stalls()).as("RolloutStalls of " + UNWATCHED).isEmpty();
    }
    List<RolloutStall> all =
        cluster.admin().resources(RolloutStall.class).inAnyNamespace().list().getItems();
    assertThat(all)
        .as("RolloutStalls written without the DaemonSet's revisions")
        .noneMatch(x -> x.getMetadata().getName().endsWith("-norevision"));
    assertThat(all)
        .as("RolloutStalls no longer Active")
        .allMatch(x -> x.getStatus() != null && x.getStatus().active());
  }
}
