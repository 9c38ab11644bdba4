package dev.stallwatch.realcluster;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.stallwatch.crd.RolloutStall;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The scale run of issue 12 on the real control plane: N kwok nodes × D DaemonSets plus ordinary
 * pods, the operator jar as the chart's ServiceAccount, kube-state-metrics beside it (optional),
 * and the measurements of {@link ScaleResult}. {@code src/test/realcluster/scale.sh} runs {@link
 * #main} once per size; {@code ScaleSmokeIT} runs a small size in CI so the path cannot rot.
 */
public final class ScaleRun {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * @param ksm the kube-state-metrics binary, or null to run without it
   * @param steady length of the quiet window (heartbeat round included)
   * @param jfr whether the operator runs under a flight recording (profile settings), dumped to
   *     {@code dir/operator-sync.jfr} once synced and {@code dir/operator.jfr} at the end
   */
  record Options(
      int nodes,
      int daemonSets,
      int stalls,
      int ordinaryPods,
      Duration stallAfter,
      Duration steady,
      String operatorHeap,
      Path ksm,
      Path dir,
      long seed,
      boolean jfr,
      int rolloutDaemonSets,
      String memoryLimit) {

    /**
     * stall-after 5 minutes, the chart's default: while every DaemonSet rolls at once over
     * thousands of nodes on 2 shared cores, a healthy node's new pod waits for the scheduler longer
     * than a short stall-after (at 2,000 × 10 with 10 s, 11 DaemonSets were recorded as stalled,
     * Pending, and moved on within a minute), which is the rule working, not what the rollout's
     * figures are meant to show. Detection is measured from the crossing, whatever stall-after is.
     */
    static Options forSize(int nodes, int daemonSets, Path dir, Path ksm) {
      return new Options(
          nodes,
          daemonSets,
          20,
          Math.max(20, nodes / 5),
          Duration.ofMinutes(5),
          Duration.ofSeconds(30),
          null,
          ksm,
          dir,
          12,
          false,
          daemonSets,
          CHART_MEMORY_LIMIT);
    }

    /**
     * The JVM options of the operator: the image's ({@link ImageJvmFlags}); with {@code
     * operatorHeap} set, {@code -Xmx} of it after them, and no memory cgroup.
     */
    List<String> jvm() {
      List<String> jvm = new ArrayList<>(ImageJvmFlags.flags());
      if (operatorHeap != null) {
        jvm.add("-Xmx" + operatorHeap);
      }
      return jvm;
    }

    /** The memory cgroup's limit, or 0 for none (a heap given, or no cgroup to be had here). */
    long memoryLimitBytes() {
      return operatorHeap == null && MemoryCgroup.available() ? MemoryCgroup.bytes(memoryLimit) : 0;
    }
  }

  /** The chart's default memory limit (values.yaml resources.limits.memory). */
  static final String CHART_MEMORY_LIMIT = "640Mi";

  /** kwok's parallelism in the scale run's clusters (its default, 4, plays ≈ 18 pods/s here). */
  static final int KWOK_PARALLELISM = 16;

  /**
   * The node lease duration kwok plays in the scale run's clusters, and the controller manager's
   * grace period to match. The kubelet's 40 s lease is renewed every 10 s: 500 writes a second at
   * 5,000 nodes, more than 2 cores carry beside everything else (at 2,000 nodes kwok fell behind
   * and nodes flapped NotReady). Renewed every 60 s instead (a quarter of 240 s), with a grace
   * period of the whole lease as the kubelet's defaults keep it, a node still turns NotReady 4
   * minutes after its kubelet stops: the operator's work does not depend on how soon.
   */
  static final int NODE_LEASE_SECONDS = 240;

  /**
   * The controller manager's DaemonSet workers: one per DaemonSet of the workload instead of 2, as
   * large clusters run it, so that a rollout of every DaemonSet at once is not queued behind two.
   */
  static final int CONCURRENT_DAEMONSET_SYNCS = 10;

  /** The control plane's settings for the scale run, in cluster.sh's environment. */
  static Map<String, String> clusterTuning() {
    return Map.of(
        "STALLWATCH_KWOK_PARALLELISM",
        String.valueOf(KWOK_PARALLELISM),
        "STALLWATCH_NODE_LEASE_SECONDS",
        String.valueOf(NODE_LEASE_SECONDS),
        "STALLWATCH_KCM_FLAGS",
        "--node-monitor-grace-period="
            + NODE_LEASE_SECONDS
            + "s --concurrent-daemonset-syncs="
            + CONCURRENT_DAEMONSET_SYNCS);
  }

  /** The cause kwok's pull-failure cue leads to. */
  static final String INJECTED_CAUSE = "ImagePull";

  private final Options o;
  private final Path auditLog;
  private final List<String> log = new ArrayList<>();

  private ScaleRun(Options o) {
    this.o = o;
    this.auditLog = o.dir().resolve("cluster/logs/audit.log");
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new TreeMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    int nodes = Integer.parseInt(a.getOrDefault("nodes", "500"));
    int ds = Integer.parseInt(a.getOrDefault("daemonsets", "10"));
    Path dir = Path.of(a.getOrDefault("dir", "target/scale/run-" + nodes)).toAbsolutePath();
    Path ksm = a.containsKey("ksm") ? Path.of(a.get("ksm")) : null;
    Options base = Options.forSize(nodes, ds, dir, ksm);
    Options o =
        new Options(
            nodes,
            ds,
            Integer.parseInt(a.getOrDefault("stalls", String.valueOf(base.stalls()))),
            base.ordinaryPods(),
            a.containsKey("stall-after")
                ? Duration.parse("PT" + a.get("stall-after").toUpperCase())
                : base.stallAfter(),
            base.steady(),
            a.getOrDefault("operator-heap", base.operatorHeap()),
            ksm,
            dir,
            base.seed(),
            Boolean.parseBoolean(a.getOrDefault("jfr", "false")),
            Math.min(
                ds,
                Integer.parseInt(
                    a.getOrDefault(
                        "rollout-daemonsets", String.valueOf(base.rolloutDaemonSets())))),
            a.getOrDefault("memory-limit", base.memoryLimit()));
    Path out = Path.of(a.getOrDefault("out", "target/scale/scale-" + nodes + ".json"));
    Files.createDirectories(out.toAbsolutePath().getParent());
    ScaleRun run = new ScaleRun(o);
    ScaleResult r;
    try {
      r = run.measure();
    } catch (Exception | OutOfMemoryError e) {
      // What was measured so far (each figure is a progress line), then one line naming the cause.
      Path failed =
          out.resolveSibling(out.getFileName().toString().replace(".json", ".failed.log"));
      List<String> lines = new ArrayList<>(run.log);
      lines.add("failed: " + e);
      Files.write(failed, lines);
      System.err.printf(
          "scale: %d × %d failed: %s (measured so far: %s; logs: %s/cluster/logs/, %s/operator.log)%n",
          nodes, ds, e.toString().lines().findFirst().orElse(""), failed, dir, dir);
      System.exit(1);
      return;
    }
    JSON.writeValue(out.toFile(), r);
    System.out.println("scale run written to " + out);
    System.exit(0); // the fabric8 client's threads would keep the JVM up
  }

  static ScaleResult run(Options o) throws Exception {
    return new ScaleRun(o).measure();
  }

  private void say(String line) {
    String l = Instant.now() + " scale[" + o.nodes() + "x" + o.daemonSets() + "] " + line;
    log.add(l);
    System.out.println(l);
  }

  private static double since(long nanos) {
    return (System.nanoTime() - nanos) / 1e9;
  }

  private ScaleResult measure() throws Exception {
    Path bin = RealCluster.binaries();
    if (bin == null) {
      throw new IllegalStateException(
          "the control plane binaries are not built: run src/test/realcluster/build.sh");
    }
    Files.createDirectories(o.dir());
    ChartInstall release = OperatorProcess.DEFAULT_RELEASE;
    String user = "system:serviceaccount:" + release.namespace() + ":" + release.fullname();
    Path policy = o.dir().resolve("audit-policy.yaml");
    Files.writeString(policy, AuditLog.policyFor(user));
    String startedAt = Instant.now().toString();
    long t = System.nanoTime();
    try (RealCluster cluster =
        RealCluster.start(o.dir().resolve("cluster"), bin, o.nodes(), 0, withAuditPolicy(policy))) {
      double clusterStart = since(t);
      say("cluster up in %.1f s".formatted(clusterStart));
      ScaleWorkload workload = new ScaleWorkload(cluster.admin());
      List<String> probeNodes = probeNodes();
      t = System.nanoTime();
      workload.create(o.daemonSets(), o.ordinaryPods(), probeNodes);
      await("workload rolled out")
          // a ceiling, not a target: 2,000 × 10 came up at ≈ 9 pods/s on a loaded 2-core machine
          .atMost(Duration.ofSeconds(180 + o.nodes() * (o.daemonSets() + 1L) / 5))
          .pollInterval(Duration.ofSeconds(2))
          .until(workload::settled);
      double workloadReady = since(t);
      say(
          "%d DaemonSets, %d ordinary pods, %d probes ready in %.1f s"
              .formatted(o.daemonSets(), o.ordinaryPods(), probeNodes.size(), workloadReady));

      release.install(cluster);
      Path kubeconfig =
          release.serviceAccountKubeconfig(cluster, o.dir().resolve("operator.kubeconfig"));
      t = System.nanoTime();
      Instant operatorStarted = Instant.now();
      // The GC log (wall-clock time of every pause) attributes the reconciles' wall-time tail.
      Path gcLog = o.dir().resolve("operator-gc.log");
      List<String> jvm = new ArrayList<>(o.jvm());
      jvm.add("-Xlog:gc:file=" + gcLog + ":time,uptime");
      if (o.jfr()) {
        jvm.add("-XX:StartFlightRecording=name=scale,settings=profile");
      }
      long limit = o.memoryLimitBytes();
      try (MemoryCgroup cgroup = limit > 0 ? MemoryCgroup.create("stallwatch-scale", limit) : null;
          OperatorProcess operator = startOperator(kubeconfig, "operator", jvm, cgroup)) {
        say(
            "operator started with %s%s"
                .formatted(jvm, cgroup == null ? "" : " in a memory cgroup of " + o.memoryLimit()));
        if (!awaitSynced(operator)) {
          throw new IllegalStateException("operator exited:\n" + operator.output());
        }
        double sync = since(t);
        double cpuAtSync = ProcessStats.cpuSeconds(operator.pid());
        long[] listHeap = ProcessStats.heapPeaks(gcLog, sync + 1);
        long listPeak = ProcessStats.peakRssBytes(operator.pid());
        long listCgroupPeak = cgroup == null ? -1 : cgroup.peakBytes();
        settle(operator);
        if (o.jfr()) {
          ProcessStats.jfrDump(operator.pid(), "scale", o.dir().resolve("operator-sync.jfr"));
        }
        Map<String, Integer> syncRequests =
            AuditLog.countsByVerb(auditLog, operatorStarted, Instant.now());
        long heap = ProcessStats.heapAfterFullGc(operator.pid());
        long rss = ProcessStats.rssBytes(operator.pid());
        var op =
            new ScaleResult.Operator(
                sync,
                heap,
                rss,
                listPeak,
                cpuAtSync,
                syncRequests,
                listCgroupPeak,
                listHeap[0],
                listHeap[1],
                jvm,
                limit);
        say(
            ("operator synced in %.1f s (%.1f CPU s); through the list: peak RSS %.1f MiB, cgroup"
                    + " %.1f MiB, heap %.1f MiB before GC / %.1f after; after sync: heap after full"
                    + " GC %.1f MiB, RSS %.1f MiB")
                .formatted(
                    sync,
                    cpuAtSync,
                    listPeak / 1048576.0,
                    listCgroupPeak / 1048576.0,
                    listHeap[0] / 1048576.0,
                    listHeap[1] / 1048576.0,
                    heap / 1048576.0,
                    rss / 1048576.0));

        ScaleResult.Steady steady = steady(operator, workload);
        try (KubeStateMetrics ksm =
            o.ksm() == null
                ? null
                : KubeStateMetrics.start(
                    o.ksm(), cluster.kubeconfig(), o.dir().resolve("ksm.log"))) {
          KsmSync ksmSync = ksm == null ? null : ksmSync(ksm);
          ScaleResult.Rollout rollout = rollout(operator, workload);
          StallOutcome stalls = stalls(operator, workload, cluster, ksm);
          ScaleResult.Relist relist = relist(operator, cluster, cgroup);
          if (o.jfr()) {
            ProcessStats.jfrDump(operator.pid(), "scale", o.dir().resolve("operator.jfr"));
          }
          ScaleResult.Ksm ksmResult =
              ksm == null
                  ? null
                  : new ScaleResult.Ksm(
                      KubeStateMetrics.version(),
                      ksmSync.seconds,
                      ksmSync.rss,
                      ProcessStats.peakRssBytes(ksm.pid()),
                      ksmSync.series,
                      ksmSync.scrapeSeconds,
                      stalls.ksmAlert);
          ScaleResult.Sized sized = sized(kubeconfig);
          return new ScaleResult(
              o.nodes(),
              o.daemonSets(),
              o.ordinaryPods(),
              startedAt,
              clusterStart,
              workloadReady,
              op,
              steady,
              rollout,
              stalls.detection,
              ksmResult,
              notReadyEvents(cluster),
              sized,
              relist);
        }
      }
    }
  }

  private static Map<String, String> withAuditPolicy(Path policy) {
    Map<String, String> env = new TreeMap<>(clusterTuning());
    env.put("STALLWATCH_AUDIT_POLICY", policy.toAbsolutePath().toString());
    return env;
  }

  /**
   * The operator jar as the chart's ServiceAccount ({@code kubeconfig}), logging to {@code
   * dir/NAME.log}, with the run's stall-after.
   */
  private OperatorProcess startOperator(
      Path kubeconfig, String name, List<String> jvm, MemoryCgroup cgroup) {
    return OperatorProcess.start(
        OperatorProcess.JAR,
        kubeconfig,
        o.dir().resolve(name + ".log"),
        "scale-" + name,
        jvm,
        cgroup,
        "--stall-after=" + o.stallAfter().toSeconds() + "s");
  }

  /** Objects per page of the operator's informer lists (its RolloutEventSources.LIST_PAGE). */
  static final int LIST_PAGE = 100;

  /**
   * Every informer made to list again (etcd compacted, kube-apiserver killed and started again):
   * the peaks of the operator's memory from then until it has listed its pods again and settled.
   */
  private ScaleResult.Relist relist(
      OperatorProcess operator, RealCluster cluster, MemoryCgroup cgroup) {
    ProcessStats.resetPeakRss(operator.pid());
    if (cgroup != null) {
      cgroup.resetPeak();
    }
    // from before the restart: the informers list again as soon as it answers, which may be
    // before restart() returns (it waits for the API server's health and its own checks)
    Instant back = Instant.now();
    long t = System.nanoTime();
    long compacted = cluster.compactEtcd();
    cluster.restart("kube-apiserver", true, Duration.ofSeconds(5));
    int pages = (int) Math.ceil((double) o.nodes() * o.daemonSets() / LIST_PAGE);
    int[] lists = {0};
    List<Integer> perMinute = new ArrayList<>();
    long[] minute = {t + TimeUnit.MINUTES.toNanos(1)};
    boolean relisted;
    try {
      await("the operator's pods listed again")
          .atMost(Duration.ofMinutes(10))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                lists[0] =
                    AuditLog.countsByVerb(auditLog, back, Instant.now())
                        .getOrDefault("list pods", 0);
                if (System.nanoTime() >= minute[0]) {
                  perMinute.add(lists[0] - perMinute.stream().mapToInt(Integer::intValue).sum());
                  minute[0] += TimeUnit.MINUTES.toNanos(1);
                }
                return (lists[0] >= pages && operator.ready()) || !operator.alive();
              });
      relisted = operator.alive();
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      relisted = false;
    }
    double seconds = since(t);
    if (operator.alive()) {
      settle(operator);
    }
    boolean alive = operator.alive();
    long peak = alive ? ProcessStats.peakRssBytes(operator.pid()) : -1;
    long cgroupPeak = cgroup == null ? -1 : cgroup.peakBytes();
    long heap = alive ? ProcessStats.heapAfterFullGc(operator.pid()) : -1;
    say(
        ("relist (etcd compacted at revision %d, kube-apiserver restarted): %s in %.1f s, %d pod"
                + " pages; peak RSS %.1f MiB, cgroup %.1f MiB; heap after GC %.1f MiB")
            .formatted(
                compacted,
                relisted ? "listed again" : "NOT listed again",
                seconds,
                lists[0],
                peak / 1048576.0,
                cgroupPeak / 1048576.0,
                heap / 1048576.0));
    Map<String, Integer> byCode =
        AuditLog.countsByVerbAndCode(auditLog, back, Instant.now()).entrySet().stream()
            .filter(e -> e.getKey().startsWith("list ") || e.getKey().startsWith("watch "))
            .collect(
                java.util.stream.Collectors.toMap(
                    Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, java.util.TreeMap::new));
    say(
        "relist: pod pages per minute %s; lists and watches by code %s"
            .formatted(perMinute, byCode));
    return new ScaleResult.Relist(
        seconds, peak, cgroupPeak, heap, lists[0], perMinute, byCode, relisted, alive);
  }

  /** Waits (up to 10 minutes) until the operator is ready or has exited; whether it is alive. */
  private static boolean awaitSynced(OperatorProcess operator) {
    await("operator synced")
        .atMost(Duration.ofMinutes(10))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> operator.ready() || !operator.alive());
    return operator.alive();
  }

  /** The heap the chart's defaults give the operator: 50 % (MaxRAMPercentage) of 640 MiB. */
  static final String CHART_HEAP = "320m";

  /**
   * A second operator process started at the end as the chart's defaults run it: the image's JVM
   * options in a memory cgroup of the chart's limit ({@value #CHART_MEMORY_LIMIT}; without a cgroup
   * to be had, {@code -Xmx}{@value #CHART_HEAP}): whether it syncs the whole cluster (a restart's
   * sync, beside the first operator), how long it takes, its heap after GC and its peak RSS. Not
   * fatal: a failure is reported in the result.
   */
  private ScaleResult.Sized sized(Path kubeconfig) {
    long t = System.nanoTime();
    boolean contained = MemoryCgroup.available();
    String as = contained ? CHART_MEMORY_LIMIT + " limit" : "-Xmx" + CHART_HEAP;
    List<String> jvm = new ArrayList<>(ImageJvmFlags.flags());
    if (!contained) {
      jvm.add("-Xmx" + CHART_HEAP);
    }
    try (MemoryCgroup cgroup =
            contained
                ? MemoryCgroup.create(
                    "stallwatch-scale-sized", MemoryCgroup.bytes(CHART_MEMORY_LIMIT))
                : null;
        OperatorProcess second = startOperator(kubeconfig, "operator-sized", jvm, cgroup)) {
      if (!awaitSynced(second)) {
        say("operator at " + as + " exited before it synced (operator-sized.log)");
        return new ScaleResult.Sized(as, false, since(t), 0, 0, "exited before sync");
      }
      double sync = since(t);
      settle(second);
      long heap = ProcessStats.heapAfterFullGc(second.pid());
      long peak = ProcessStats.peakRssBytes(second.pid());
      say(
          "operator at %s synced in %.1f s; heap after GC %.1f MiB, peak RSS %.1f MiB"
              .formatted(as, sync, heap / 1048576.0, peak / 1048576.0));
      return new ScaleResult.Sized(as, true, sync, heap, peak, null);
    } catch (RuntimeException e) {
      say("operator at " + as + " not measured: " + e);
      return new ScaleResult.Sized(as, false, since(t), 0, 0, e.toString());
    }
  }

  /**
   * NodeNotReady Events the node lifecycle controller wrote over the run: 0 when kwok kept every
   * node's lease and status fresh throughout.
   */
  private int notReadyEvents(RealCluster cluster) {
    int n =
        cluster
            .admin()
            .v1()
            .events()
            .inAnyNamespace()
            .withField("reason", "NodeNotReady")
            .list()
            .getItems()
            .size();
    say("NodeNotReady events over the run: " + n);
    return n;
  }

  /** Distinct random nodes for the probes (seeded: the same nodes on every run of a size). */
  private List<String> probeNodes() {
    Random random = new Random(o.seed());
    Set<String> nodes = new LinkedHashSet<>();
    while (nodes.size() < Math.min(o.stalls(), o.nodes())) {
      nodes.add("node-" + random.nextInt(o.nodes()));
    }
    return List.copyOf(nodes);
  }

  private static double reconciles(OperatorProcess operator) {
    return PromText.value(operator.metrics(), "stallwatch_reconcile_seconds_count");
  }

  /** Waits until no reconcile has run for 3 s (the initial round, a rollout's tail). */
  private static void settle(OperatorProcess operator) {
    double[] last = {-1};
    long[] stableSince = {System.nanoTime()};
    await("operator quiet")
        .atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              double now = reconciles(operator);
              if (now != last[0]) {
                last[0] = now;
                stableSince[0] = System.nanoTime();
              }
              return since(stableSince[0]) >= 3;
            });
  }

  /**
   * Two halves of the steady window: one with no write at all (reconciles the operator makes on its
   * own), then one that starts with a heartbeat round over every node; the difference is what the
   * heartbeats cause.
   */
  private ScaleResult.Steady steady(OperatorProcess operator, ScaleWorkload workload)
      throws Exception {
    Instant from = Instant.now();
    long t = System.nanoTime();
    long half = o.steady().toMillis() / 2;
    double before = reconciles(operator);
    double cpu0 = ProcessStats.cpuSeconds(operator.pid());
    Thread.sleep(half); // a fixed observation window: nothing to wait for
    double quiet = reconciles(operator) - before;
    long h = System.nanoTime();
    int written = workload.heartbeatRound(8);
    long left = half - (long) (since(h) * 1000);
    if (left > 0) {
      Thread.sleep(left);
    }
    double withHeartbeats = reconciles(operator) - before - quiet;
    double cpu = ProcessStats.cpuSeconds(operator.pid()) - cpu0;
    Instant to = Instant.now();
    double seconds = since(t);
    Map<String, Integer> verbs = AuditLog.countsByVerb(auditLog, from, to);
    say(
        ("steady %.0f s: %.0f reconciles in the quiet half, %.0f in the half with a heartbeat round"
                + " on %d nodes; requests %s; operator CPU %.2f s")
            .formatted(seconds, quiet, withHeartbeats, written, verbs, cpu));
    return new ScaleResult.Steady(
        seconds, quiet, written, withHeartbeats, verbs, perSecond(verbs, seconds), cpu);
  }

  private static double perSecond(Map<String, Integer> verbs, double seconds) {
    return verbs.values().stream().mapToInt(Integer::intValue).sum() / seconds;
  }

  /**
   * JOSDK's reconciler threads ("ReconcilerExecutor-…") as the kernel keeps the name (15 chars).
   */
  static final String RECONCILER_THREADS = "ReconcilerExec";

  /** Adds each thread's current name to the names it has had. */
  private static void seeNames(Map<String, Set<String>> names, long pid) {
    ProcessStats.threadNames(pid)
        .forEach(
            (tid, name) ->
                names.computeIfAbsent(tid, k -> ConcurrentHashMap.newKeySet()).add(name));
  }

  /**
   * The threads of JOSDK's reconciler pool: each thread seen named "ReconcilerExecutor-…" and every
   * thread that had the pool name ("pool-K-thread-") one of those had at another poll.
   */
  static Set<String> reconcilerThreads(Map<String, Set<String>> names) {
    Set<String> pools = new java.util.HashSet<>();
    Set<String> out = new java.util.HashSet<>();
    names.forEach(
        (tid, seen) -> {
          if (seen.stream().anyMatch(n -> n.startsWith(RECONCILER_THREADS))) {
            out.add(tid);
            seen.stream()
                .filter(n -> n.matches("pool-\\d+-thread-.*"))
                .forEach(n -> pools.add(n.substring(0, n.indexOf("-thread-") + 8)));
          }
        });
    names.forEach(
        (tid, seen) -> {
          if (seen.stream().anyMatch(n -> pools.stream().anyMatch(n::startsWith))) {
            out.add(tid);
          }
        });
    return out;
  }

  /** JOSDK's gauge of the operator's work queue: DaemonSets waiting for a reconcile. */
  static final String QUEUE_SIZE = "operator_sdk_reconciliations_queue_size";

  /** DaemonSets waiting in the operator's work queues now (JOSDK's gauge of each controller). */
  static double queued(String metrics) {
    return metrics
        .lines()
        .filter(l -> l.startsWith(QUEUE_SIZE))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  /**
   * A new image for the first {@code rolloutDaemonSets} DaemonSets at once, until each is updated
   * and available on every node: the operator's reconciles (count, wall and thread-CPU quantiles
   * from the deltas of its histograms), its CPU, the depth of its work queue (polled every 200 ms)
   * and its API requests.
   */
  private ScaleResult.Rollout rollout(OperatorProcess operator, ScaleWorkload workload)
      throws InterruptedException {
    List<String> rolled =
        java.util.stream.IntStream.range(0, o.rolloutDaemonSets())
            .mapToObj(ScaleWorkload::daemonSet)
            .toList();
    String before = operator.metrics();
    double count0 = PromText.value(before, "stallwatch_reconcile_seconds_count");
    var buckets0 = PromText.buckets(before, "stallwatch_reconcile_seconds");
    var cpuBuckets0 = PromText.buckets(before, "stallwatch_reconcile_cpu_seconds");
    double cpu0 = ProcessStats.cpuSeconds(operator.pid());
    double wall0 = PromText.value(before, "stallwatch_reconcile_seconds_sum");
    var sched0 = ProcessStats.threadSchedstat(operator.pid());
    // JOSDK names a thread of its reconciler pool "ReconcilerExecutor-…" only while it reconciles
    // and gives it back its pool name ("pool-K-thread-M") after: every name each thread had at a
    // poll, to find the pool's threads at the end.
    Map<String, Set<String>> names = new ConcurrentHashMap<>();
    List<Double> depths = java.util.Collections.synchronizedList(new ArrayList<>());
    ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor();
    poller.scheduleWithFixedDelay(
        () -> {
          depths.add(queued(operator.metrics()));
          seeNames(names, operator.pid());
        },
        0,
        200,
        TimeUnit.MILLISECONDS);
    Instant from = Instant.now();
    long t = System.nanoTime();
    double seconds;
    try {
      rolled.forEach(ds -> workload.setImage(ds, ScaleWorkload.NEXT_IMAGE));
      await("rollout of " + rolled)
          .atMost(Duration.ofSeconds(120 + (long) o.nodes() * rolled.size() / 5))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> rolled.stream().allMatch(workload::rolledOut));
      seconds = since(t);
      settle(operator);
    } finally {
      poller.shutdownNow();
      poller.awaitTermination(1, TimeUnit.MINUTES);
    }
    Instant to = Instant.now();
    String after = operator.metrics();
    double reconciles = PromText.value(after, "stallwatch_reconcile_seconds_count") - count0;
    var buckets1 = PromText.buckets(after, "stallwatch_reconcile_seconds");
    var cpuBuckets1 = PromText.buckets(after, "stallwatch_reconcile_cpu_seconds");
    double p50 = PromText.quantile(0.50, buckets0, buckets1) * 1000;
    double p99 = PromText.quantile(0.99, buckets0, buckets1) * 1000;
    double cpuP50 = PromText.quantile(0.50, cpuBuckets0, cpuBuckets1) * 1000;
    double cpuP99 = PromText.quantile(0.99, cpuBuckets0, cpuBuckets1) * 1000;
    double cpu = ProcessStats.cpuSeconds(operator.pid()) - cpu0;
    double reconcileWall = PromText.value(after, "stallwatch_reconcile_seconds_sum") - wall0;
    double onCpu = 0;
    double waitingForCpu = 0;
    seeNames(names, operator.pid());
    Set<String> reconcilers = reconcilerThreads(names);
    for (var e : ProcessStats.threadSchedstat(operator.pid()).entrySet()) {
      if (!reconcilers.contains(e.getKey())) {
        continue;
      }
      long[] then = sched0.getOrDefault(e.getKey(), new long[2]);
      onCpu += (e.getValue()[0] - then[0]) / 1e9;
      waitingForCpu += (e.getValue()[1] - then[1]) / 1e9;
    }
    double queueMax;
    double queueLast;
    synchronized (depths) {
      queueMax = depths.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
      queueLast = depths.isEmpty() ? Double.NaN : depths.get(depths.size() - 1);
    }
    Map<String, Integer> verbs = AuditLog.countsByVerb(auditLog, from, to);
    double window = Duration.between(from, to).toMillis() / 1000.0;
    say(
        ("rollout of %d DaemonSets over %d nodes in %.1f s: %.0f reconciles, wall p50 %.1f ms, p99"
                    + " %.1f ms, thread CPU p50 %.1f ms, p99 %.1f ms, process CPU %.1f s, work queue"
                    + " max %.0f (at the end %.0f); reconcile wall time %.1f s, reconciler threads on a"
                    + " CPU %.1f s, waiting for one %.1f s;")
                .formatted(
                    rolled.size(),
                    o.nodes(),
                    seconds,
                    reconciles,
                    p50,
                    p99,
                    cpuP50,
                    cpuP99,
                    cpu,
                    queueMax,
                    queueLast,
                    reconcileWall,
                    onCpu,
                    waitingForCpu)
            + " requests "
            + verbs);
    return new ScaleResult.Rollout(
        rolled.size(),
        seconds,
        reconciles,
        p50,
        p99,
        cpuP50,
        cpuP99,
        queueMax,
        queueLast,
        reconcileWall,
        onCpu,
        waitingForCpu,
        cpu,
        verbs,
        perSecond(verbs, window));
  }

  private record KsmSync(double seconds, long rss, long series, double scrapeSeconds) {}

  /**
   * Waits until kube-state-metrics serves every pod: a {@code kube_pod_info} series for each
   * DaemonSet pod and ordinary pod. (A series count that stops growing is not enough: it serves its
   * node and DaemonSet series long before its pod list ends.)
   */
  private KsmSync ksmSync(KubeStateMetrics ksm) {
    long t = System.nanoTime();
    long pods = (long) o.nodes() * o.daemonSets() + o.ordinaryPods();
    await("kube-state-metrics serving " + pods + " pods")
        .atMost(Duration.ofMinutes(10))
        .pollInterval(Duration.ofSeconds(3))
        .until(
            () -> {
              if (!ksm.alive()) {
                throw new IllegalStateException("kube-state-metrics exited (ksm.log)");
              }
              return PromText.linesStartingWith(ksm.scrape(), "\nkube_pod_info{") >= pods;
            });
    double seconds = since(t);
    long s = System.nanoTime();
    long series = PromText.seriesCount(ksm.scrape());
    double scrape = since(s);
    long rss = ProcessStats.rssBytes(ksm.pid());
    say(
        "kube-state-metrics synced in %.1f s: %d series, RSS %.1f MiB, one scrape %.2f s"
            .formatted(seconds, series, rss / 1048576.0, scrape));
    return new KsmSync(seconds, rss, series, scrape);
  }

  private record StallOutcome(ScaleResult.Detection detection, List<Double> ksmAlert) {}

  private StallOutcome stalls(
      OperatorProcess operator, ScaleWorkload workload, RealCluster cluster, KubeStateMetrics ksm)
      throws Exception {
    int n = Math.min(o.stalls(), o.nodes());
    Map<String, Long> stallSeen = new ConcurrentHashMap<>();
    Map<String, Long> metricSeen = new ConcurrentHashMap<>();
    Map<String, List<DaemonSetSeries>> ksmSeries = new ConcurrentHashMap<>();
    ScheduledExecutorService pollers = Executors.newScheduledThreadPool(2);
    Instant from = Instant.now();
    try (Watch watch =
        cluster
            .admin()
            .resources(RolloutStall.class)
            .inNamespace(ScaleWorkload.NAMESPACE)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, RolloutStall stall) {
                    if (action == Action.ADDED) {
                      stallSeen.putIfAbsent(
                          stall.getMetadata().getName(), System.currentTimeMillis());
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {
      pollers.scheduleWithFixedDelay(
          () -> {
            long now = System.currentTimeMillis();
            for (var s : PromText.samples(operator.metrics(), "stallwatch_rollout_stalled")) {
              metricSeen.putIfAbsent(s.label("daemonset") + "/" + s.label("cause"), now);
            }
          },
          0,
          100,
          TimeUnit.MILLISECONDS);
      if (ksm != null) {
        // Prometheus' usual scrape interval for kube-state-metrics is 15–30 s
        pollers.scheduleWithFixedDelay(
            () -> {
              Instant at = Instant.now();
              String text =
                  ksm.scrape()
                      .lines()
                      .filter(l -> l.startsWith("kube_daemonset_status_"))
                      .collect(Collectors.joining("\n"));
              for (int i = 0; i < n; i++) {
                var s =
                    DaemonSetSeries.of(text, at, ScaleWorkload.NAMESPACE, ScaleWorkload.probe(i));
                if (s != null) {
                  ksmSeries.computeIfAbsent(ScaleWorkload.probe(i), k -> new ArrayList<>()).add(s);
                }
              }
            },
            0,
            15,
            TimeUnit.SECONDS);
      }
      // Spread the injections over 10 s so the crossings do not all fall in the same instant.
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        long due = t0 + TimeUnit.MILLISECONDS.toNanos(i * 10_000L / n);
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        workload.setImage(ScaleWorkload.probe(i), ScaleWorkload.BROKEN_IMAGE);
      }
      await("every injected stall detected")
          .atMost(o.stallAfter().plus(Duration.ofMinutes(3)))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  java.util.stream.IntStream.range(0, n)
                      .allMatch(
                          i ->
                              metricSeen.containsKey(
                                  ScaleWorkload.probe(i) + "/" + INJECTED_CAUSE)));
      if (ksm != null) {
        Thread.sleep(35_000); // two more scrapes of kube-state-metrics after the last stall
      }
    } finally {
      pollers.shutdownNow();
      pollers.awaitTermination(1, TimeUnit.MINUTES);
    }
    Instant to = Instant.now();
    List<Double> toStall = new ArrayList<>();
    List<Double> toMetric = new ArrayList<>();
    List<Double> ksmAlert = new ArrayList<>();
    List<String> others = new ArrayList<>();
    for (RolloutStall stall :
        cluster
            .admin()
            .resources(RolloutStall.class)
            .inNamespace(ScaleWorkload.NAMESPACE)
            .list()
            .getItems()) {
      String ds = stall.getSpec().daemonSet();
      String name = stall.getMetadata().getName();
      var status = stall.getStatus();
      boolean injected =
          status != null
              && status.newRevision() != null
              && status.newRevision().images() != null
              && status.newRevision().images().contains(ScaleWorkload.BROKEN_IMAGE);
      if (!injected) {
        others.add(ds + "/" + name + " " + (status == null ? "?" : status.cause()));
        continue;
      }
      Instant crossing = crossing(stall);
      if (crossing == null || !stallSeen.containsKey(name)) {
        continue;
      }
      toStall.add((stallSeen.get(name) - crossing.toEpochMilli()) / 1000.0);
      Long metric = metricSeen.get(ds + "/" + status.cause());
      if (metric != null) {
        toMetric.add((metric - crossing.toEpochMilli()) / 1000.0);
      }
      Instant fires = DaemonSetSeries.stuckAlertFiresAt(ksmSeries.getOrDefault(ds, List.of()));
      if (fires != null) {
        ksmAlert.add(Duration.between(crossing, fires).toMillis() / 1000.0);
      }
    }
    var detection =
        new ScaleResult.Detection(
            n,
            toStall.size(),
            o.stallAfter().toSeconds(),
            toStall,
            toMetric,
            ScaleResult.Percentiles.of(toStall),
            ScaleResult.Percentiles.of(toMetric),
            AuditLog.countsByVerb(auditLog, from, to),
            others);
    say(
        "stalls: %d injected, %d detected; to RolloutStall %s, to metric %s; KSM alert after %s;"
                .formatted(
                    n, toStall.size(), detection.rolloutStall(), detection.metric(), ksmAlert)
            + " other stalls "
            + others);
    return new StallOutcome(detection, ksmAlert);
  }

  /** The instant the stall's earliest node crossed stall-after, by the stall's own record. */
  private Instant crossing(RolloutStall stall) {
    if (stall.getStatus() == null || stall.getStatus().nodes() == null) {
      return null;
    }
    return stall.getStatus().nodes().stream()
        .map(n -> n.since())
        .filter(java.util.Objects::nonNull)
        .map(Instant::parse)
        .min(Instant::compareTo)
        .map(s -> s.plus(o.stallAfter()))
        .orElse(null);
  }
}
