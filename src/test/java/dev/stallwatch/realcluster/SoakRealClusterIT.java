package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.deploy.NativeHelm;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A soak: the operator over a long run of everything a cluster does to it at once — {@value
 * #DAEMONSETS} DaemonSets changed in turn (every third change an unpullable image, fixed at the
 * DaemonSet's next turn), a node flapping NotReady for a few seconds now and then, and the API
 * server killed and restarted every {@link #RESTART_EVERY}. Every few minutes the operator's heap
 * after a full GC, its RSS, threads and open files are sampled: they must stay flat. At the end
 * every broken revision has exactly one RolloutStall and one Event (Events live an hour) and no
 * healthy one has any.
 *
 * <p>CI runs {@code PT3M} over 30 nodes; the documented long run is {@code -Dstallwatch.soak=PT2H
 * -Dstallwatch.soak.nodes=200 -Dfailsafe.forkTimeout=9000} (the IT fork's default limit is an
 * hour), which writes its samples into docs/reliability.md ("Soak").
 */
@NativeHelm
class SoakRealClusterIT {
  static final Duration SOAK = Duration.parse(System.getProperty("stallwatch.soak", "PT3M"));
  static final int NODES = Integer.getInteger("stallwatch.soak.nodes", 30);
  static final int DAEMONSETS = 20;
  static final boolean LONG = SOAK.compareTo(Duration.ofMinutes(30)) >= 0;

  /** How often one DaemonSet changes (each one every {@value #DAEMONSETS} turns). */
  static final Duration TURN = LONG ? Duration.ofSeconds(9) : Duration.ofSeconds(4);

  /**
   * The operator's stall-after here: longer than the other real-tier tests' 10 s. An API-server
   * restart holds every pod's progress until the scheduler and kwok have relisted — 11 s at 200
   * nodes — so a healthy rollout in flight then holds back past 10 s: a stall by the rules, of a
   * revision the soak calls healthy. At 30 s the claim "no healthy revision has a stall" is the
   * operator's, not the cluster's luck; a broken one is still recorded long before its next turn.
   */
  static final Duration STALL_AFTER = Duration.ofSeconds(30);

  static final Duration RESTART_EVERY = LONG ? Duration.ofMinutes(20) : SOAK.dividedBy(2);
  static final Duration SAMPLE_EVERY = LONG ? Duration.ofMinutes(5) : Duration.ofMinutes(1);
  static final Duration FLAP_EVERY = Duration.ofSeconds(30);
  static final Duration FLAP_FOR = Duration.ofSeconds(3);

  /** What growth counts as flat between the first and the last sample. */
  static final long HEAP_SLACK = 24L << 20;

  static final int THREAD_SLACK = 10;
  static final int FILE_SLACK = 20;

  static final Path SAMPLES = RealCluster.PROJECT.resolve("target/soak-samples.md");
  static final String BEGIN = "<!-- soak:begin (written by SoakRealClusterIT's long run) -->";
  static final String END = "<!-- soak:end -->";

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

  /** One look at the operator process. */
  record Sample(long minute, long heapMiB, long rssMiB, int threads, int openFiles, int stalls) {
    String row() {
      return "| %d | %d | %d | %d | %d | %d |"
          .formatted(minute, heapMiB, rssMiB, threads, openFiles, stalls);
    }
  }

  @Test
  void everythingAtOnceForALongTimeLeavesTheOperatorFlatAndTheRecordRight() {
    cluster =
        RealClusterExtension.separate(
            "soak",
            "it kills and restarts the API server again and again while DaemonSets churn for"
                + " the whole run");
    Scenario scenario = Scenario.create(cluster, "soak", NODES, 0);
    // Rolled out before the operator starts: the first pods of 20 DaemonSets on every node take
    // kwok longer than stall-after on a busy machine, a stall by the rules but not the soak's.
    Churn churn = new Churn(cluster, scenario, DAEMONSETS);
    operator =
        OperatorProcess.asChartServiceAccount(
            cluster, "soak-operator", "--stall-after=" + STALL_AFTER.toSeconds() + "s");
    List<String> names = churn.names();
    int logged = operator.output().split("\n", -1).length;
    Instant start = Instant.now();
    List<Sample> samples = new ArrayList<>();
    samples.add(sample(start, churn));

    Instant end = start.plus(SOAK);
    Instant nextRestart = start.plus(RESTART_EVERY);
    Instant nextSample = start.plus(SAMPLE_EVERY);
    Instant nextFlap = start.plus(FLAP_EVERY);
    int restarts = 0;
    int flaps = 0;
    int version = 0;
    int turn = 0;
    while (Instant.now().isBefore(end)) {
      String ds = names.get(turn % names.size());
      version++;
      if (churn.open().containsKey(ds)) {
        churn.fix(ds, version);
      } else if ((turn / names.size() + turn) % 3 == 0) {
        churn.breakIt(ds, version);
      } else {
        churn.fix(ds, version); // a healthy new revision
      }
      turn++;
      if (!Instant.now().isBefore(nextFlap)) {
        flap(scenario.nodes().get(flaps % NODES));
        flaps++;
        nextFlap = Instant.now().plus(FLAP_EVERY);
      }
      if (!Instant.now().isBefore(nextRestart) && Instant.now().plus(TURN).isBefore(end)) {
        cluster.restart("kube-apiserver", true, Duration.ofSeconds(3));
        restarts++;
        nextRestart = Instant.now().plus(RESTART_EVERY);
      }
      if (!Instant.now().isBefore(nextSample)) {
        samples.add(sample(start, churn));
        nextSample = nextSample.plus(SAMPLE_EVERY);
      }
      awaitInstant(Instant.now().plus(TURN).isAfter(end) ? end : Instant.now().plus(TURN));
    }
    churn.awaitOpenRecorded();
    samples.add(sample(start, churn));
    // The samples first, so that a failing check below does not lose an hour's measurement.
    System.out.println("soak samples:\n" + table(samples));
    try {
      Files.writeString(SAMPLES, table(samples), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }

    churn.assertEachBrokenRevisionRecordedOnce();
    assertThat(operator.alive()).isTrue();
    List<Duration> detection = new ArrayList<>();
    for (Churn.Broken b : churn.broken()) {
      // From the instant its node crossed stall-after to the RolloutStall's creation (whole
      // seconds: the API server's timestamps).
      var stall = churn.stall(b);
      Instant recorded = Instant.parse(stall.getMetadata().getCreationTimestamp());
      Instant due = stall.getStatus().stalledSinceTime().orElseThrow().plus(STALL_AFTER);
      detection.add(Duration.between(due, recorded));
    }
    detection.sort(null);
    Duration p50 = detection.get(detection.size() / 2);
    Duration p99 = detection.get(Math.min(detection.size() - 1, detection.size() * 99 / 100));
    Duration max = detection.get(detection.size() - 1);
    String[] log = operator.output().split("\n", -1);
    long warnings =
        List.of(log).subList(Math.min(logged, log.length), log.length).stream()
            .filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
            .count();
    Sample first = samples.get(0);
    Sample last = samples.get(samples.size() - 1);
    String table = table(samples);
    System.out.println(
        "soak %s: %d nodes, %d changes, %d broken, %d flaps, %d API-server restarts; detection p50 %s, p99 %s, max %s; %d WARN lines\n%s"
            .formatted(
                SOAK,
                NODES,
                turn,
                churn.broken().size(),
                flaps,
                restarts,
                p50,
                p99,
                max,
                warnings,
                table));
    write(table, samples, turn, churn.broken().size(), flaps, restarts, p50, p99, max, warnings);

    assertThat(last.heapMiB() << 20)
        .as("heap after GC, first and last sample:\n%s", table)
        .isLessThanOrEqualTo((first.heapMiB() << 20) + HEAP_SLACK);
    assertThat(last.threads())
        .as("threads:\n%s", table)
        .isLessThanOrEqualTo(first.threads() + THREAD_SLACK);
    assertThat(last.openFiles())
        .as("open files:\n%s", table)
        .isLessThanOrEqualTo(first.openFiles() + FILE_SLACK);
    // The bound is the point: a stall falling due while the API server is down is recorded once
    // it is back (down 3 s, then the informers' relist) — a stuck informer would miss by
    // minutes or for good; 30 s is room for the relist on a loaded machine.
    assertThat(max).as("slowest detection").isLessThanOrEqualTo(Duration.ofSeconds(30));
    // Per restart: one WARN when the API server goes, nothing else expected.
    assertThat(warnings).as("WARN/ERROR lines").isLessThanOrEqualTo(3L * (restarts + 1));
    ReliabilityReport.row(
        "soak: "
            + SOAK.toMinutes()
            + " min, "
            + NODES
            + " nodes, "
            + DAEMONSETS
            + " DaemonSets changed in turn (every third change broken), a node flapping every "
            + FLAP_EVERY.toSeconds()
            + " s, the API server killed "
            + (LONG ? "every " + RESTART_EVERY.toMinutes() + " min" : restarts + " time(s)"),
        churn.broken().size()
            + " broken revisions of "
            + turn
            + " changes, each one RolloutStall and one Event; heap after GC "
            + first.heapMiB()
            + " → "
            + last.heapMiB()
            + " MiB, threads "
            + first.threads()
            + " → "
            + last.threads()
            + ", open files "
            + first.openFiles()
            + " → "
            + last.openFiles(),
        "detection p50 "
            + ReliabilityReport.seconds(p50)
            + ", p99 "
            + ReliabilityReport.seconds(p99)
            + ", max "
            + ReliabilityReport.seconds(max),
        "0 / 0");
  }

  private Sample sample(Instant start, Churn churn) {
    long pid = operator.pid();
    return new Sample(
        Duration.between(start, Instant.now()).toMinutes(),
        ProcessStats.heapAfterFullGc(pid) >> 20,
        ProcessStats.rssBytes(pid) >> 20,
        ProcessStats.threads(pid),
        ProcessStats.openFiles(pid),
        churn.broken().size());
  }

  /**
   * The node's Ready condition False for {@link #FLAP_FOR}, then True again, as a kubelet would.
   */
  private void flap(String node) {
    ready(node, false);
    awaitInstant(Instant.now().plus(FLAP_FOR));
    ready(node, true);
  }

  private void ready(String node, boolean ready) {
    await("node " + node + " Ready=" + ready)
        .atMost(Duration.ofSeconds(30))
        .ignoreException(KubernetesClientException.class)
        .until(
            () -> {
              Node n = cluster.admin().nodes().withName(node).get();
              String now = Instant.now().toString();
              for (NodeCondition c : n.getStatus().getConditions()) {
                if ("Ready".equals(c.getType())) {
                  c.setStatus(ready ? "True" : "False");
                  c.setReason(ready ? "KubeletReady" : "KubeletNotReady");
                  c.setLastHeartbeatTime(now);
                  c.setLastTransitionTime(now);
                }
              }
              cluster.admin().nodes().resource(n).updateStatus();
              return true;
            });
  }

  /** Until {@code t}: the soak's turns and flaps are paced on the wall clock it measures. */
  private static void awaitInstant(Instant t) {
    await("until " + t)
        .atMost(Duration.ofSeconds(5).plus(maxZero(Duration.between(Instant.now(), t))))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !Instant.now().isBefore(t));
  }

  private static Duration maxZero(Duration d) {
    return d.isNegative() ? Duration.ZERO : d;
  }

  private static String table(List<Sample> samples) {
    StringBuilder t =
        new StringBuilder(
            "| minute | heap after GC (MiB) | RSS (MiB) | threads | open files | stalls so far |\n"
                + "|---|---|---|---|---|---|\n");
    samples.forEach(s -> t.append(s.row()).append('\n'));
    return t.toString();
  }

  /** The samples under target/; the long run also into docs/reliability.md between its markers. */
  private static void write(
      String table,
      List<Sample> samples,
      int changes,
      int broken,
      int flaps,
      int restarts,
      Duration p50,
      Duration p99,
      Duration max,
      long warnings) {
    String summary =
        ("%d min, %d kwok nodes, %d DaemonSets: %d changes (%d broken), %d node flaps, %d"
                + " API-server restarts; detection p50 %s, p99 %s, max %s; %d WARN lines. Command:"
                + " `./mvnw -B verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false"
                + " -Dit.test=SoakRealClusterIT -Dfailsafe.failIfNoSpecifiedTests=false"
                + " -Dfailsafe.forkTimeout=9000 -Dstallwatch.soak=%s -Dstallwatch.soak.nodes=%d`.")
            .formatted(
                SOAK.toMinutes(),
                NODES,
                DAEMONSETS,
                changes,
                broken,
                flaps,
                restarts,
                ReliabilityReport.seconds(p50),
                ReliabilityReport.seconds(p99),
                ReliabilityReport.seconds(max),
                warnings,
                SOAK,
                NODES);
    String block = summary + "\n\n" + table;
    try {
      Files.writeString(SAMPLES, block, StandardCharsets.UTF_8);
      if (!LONG) {
        return;
      }
      String doc = Files.readString(ReliabilityReport.DOC, StandardCharsets.UTF_8);
      int b = doc.indexOf(BEGIN);
      int e = doc.indexOf(END);
      if (b < 0 || e < b) {
        throw new IllegalStateException(ReliabilityReport.DOC + " lacks " + BEGIN + " … " + END);
      }
      Files.writeString(
          ReliabilityReport.DOC,
          doc.substring(0, b + BEGIN.length()) + "\n" + block + doc.substring(e),
          StandardCharsets.UTF_8);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }
}
