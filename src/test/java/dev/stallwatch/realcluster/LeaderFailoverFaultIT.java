package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.deploy.NativeHelm;
import dev.stallwatch.operator.OperatorSettings;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two replicas with leader election (the chart's HA release), each as its ServiceAccount. Under
 * load — three more DaemonSets rolling while the fault happens — the leader is SIGKILLed; and in a
 * network split the leader, whose connection runs through {@link LoopbackProxy}, is cut off from
 * the API server while it keeps running: it cannot renew the Lease, gives up leading after the
 * renew deadline (10 s) and exits non-zero (Kubernetes restarts it as a standby), before the other
 * replica may take the Lease (15 s after the last renewal) — so two replicas never write at once.
 * Each time: the stall in progress kept, the stall that fell due meanwhile recorded once, nothing
 * written for the DaemonSets that merely rolled.
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class LeaderFailoverFaultIT {
  static final ChartInstall HA = LeaderElectionRealClusterIT.HA;
  static final int LOAD = 3;

  final List<AutoCloseable> started = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = started.size() - 1; i >= 0; i--) {
      started.get(i).close();
    }
  }

  @Test
  void theLeaderKilledUnderLoadHandsOverWithoutLosingOrDuplicatingAStall(RealCluster cluster) {
    HA.install(cluster);
    Path direct =
        HA.serviceAccountKubeconfig(cluster, cluster.dir().resolve("failover.kubeconfig"));
    OperatorProcess a = replica(cluster, direct, "load-replica-a");
    await("load-replica-a holds the Lease")
        .atMost(Scenario.WAIT)
        .until(() -> "load-replica-a".equals(holderPod(cluster)));
    OperatorProcess b = replica(cluster, direct, "load-replica-b");
    await("load-replica-b ready as a standby").atMost(Scenario.WAIT).until(b::ready);

    FaultBed bed = FaultBed.stallInProgress(cluster, "failover-load");
    for (int i = 0; i < LOAD; i++) {
      bed.scenario.rollOut("load-" + i, "example.com/load:v1", x -> x);
    }
    for (int i = 0; i < LOAD; i++) {
      FaultBed.setImage(cluster, bed.scenario, "load-" + i, "example.com/load:v2");
    }
    bed.breakHealthy("v2");
    a.kill();
    Instant killed = Instant.now();
    for (int i = 0; i < LOAD; i++) {
      FaultBed.setImage(cluster, bed.scenario, "load-" + i, "example.com/load:v3");
    }

    await("load-replica-b takes the Lease over")
        .atMost(Scenario.WAIT)
        .until(() -> "load-replica-b".equals(holderPod(cluster)));
    Duration recovery = bed.awaitHealthyStall(killed);
    for (int i = 0; i < LOAD; i++) {
      bed.scenario.awaitComplete("load-" + i);
    }
    await("the standby has seen the rollouts through")
        .during(Duration.ofSeconds(3))
        .until(() -> true);
    for (int i = 0; i < LOAD; i++) {
      assertThat(bed.stallsOf("load-" + i)).as("RolloutStalls of load-" + i).isEmpty();
    }
    bed.assertIntact();
    bed.assertHealthyStalledOnce();
    assertThat(b.alive()).isTrue();
    ReliabilityReport.row(
        "leader SIGKILLed under load (2 replicas; 3 more DaemonSets rolling through the failover)",
        "the standby takes the Lease when it expires and picks the stall up; the rolling"
            + " DaemonSets get no stall; no Event repeated",
        ReliabilityReport.seconds(recovery)
            + " after the later of the kill and the stall falling due (the Lease expires 15 s"
            + " after its last renewal)",
        bed.lostAndDuplicated());
  }

  @Test
  void aLeaderCutOffFromTheApiServerStopsBeforeTheOtherTakesOverAndNothingIsDuplicated(
      RealCluster cluster) {
    splitTheLeader(
        cluster,
        "split",
        LoopbackProxy::drop,
        "network split: the leader's connection to the API server cut (2 replicas)",
        "cut");
  }

  /**
   * As the cut, but the split holds the leader's connection open and moves no byte: what it sent
   * before the fence is held, not refused, and reaches the API server when the split heals — after
   * the other replica took the Lease, from a process that has exited. Optimistic concurrency makes
   * it harmless: nothing it held changes an object or adds an Event.
   */
  @Test
  void aLeaderWhoseConnectionHangsStopsBeforeTheOtherTakesOverAndItsHeldRequestsChangeNothing(
      RealCluster cluster) {
    splitTheLeader(
        cluster,
        "hang",
        LoopbackProxy::hang,
        "network split that holds the leader's connection open (no byte moves; 2 replicas)",
        "split");
  }

  private void splitTheLeader(
      RealCluster cluster,
      String tag,
      java.util.function.Consumer<LoopbackProxy> fault,
      String faultText,
      String faultWord) {
    HA.install(cluster);
    Path direct = HA.serviceAccountKubeconfig(cluster, cluster.dir().resolve(tag + ".kubeconfig"));
    URI server = URI.create(cluster.admin().getConfiguration().getMasterUrl());
    LoopbackProxy proxy = new LoopbackProxy(server.getPort());
    started.add(proxy::close);
    Path viaProxy = cluster.dir().resolve(tag + "-proxied.kubeconfig");
    try {
      Files.writeString(
          viaProxy,
          Files.readString(direct)
              .replace("127.0.0.1:" + server.getPort() + "\n", "127.0.0.1:" + proxy.port() + "\n"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String nameA = tag + "-replica-a";
    String nameB = tag + "-replica-b";
    OperatorProcess a = replica(cluster, viaProxy, nameA);
    await(nameA + " holds the Lease")
        .atMost(Scenario.WAIT)
        .until(() -> nameA.equals(holderPod(cluster)));
    OperatorProcess b = replica(cluster, direct, nameB);
    await(nameB + " ready as a standby").atMost(Scenario.WAIT).until(b::ready);

    FaultBed bed = FaultBed.stallInProgress(cluster, "failover-" + tag);
    bed.breakHealthy("v2");
    fault.accept(proxy);
    Instant split = Instant.now();

    await("the cut-off leader gives up")
        .atMost(Duration.ofSeconds(40))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> !a.alive());
    Instant exited = Instant.now();
    assertThat(a.exitCode()).as("exit code of the replica that lost the Lease").isNotZero();
    String aLog = a.output();
    Instant fenced = logged(aLog, "lost the Lease");
    await(nameB + " takes the Lease over")
        .atMost(Scenario.WAIT)
        .until(() -> nameB.equals(holderPod(cluster)));
    Instant acquired = lease(cluster).getSpec().getAcquireTime().toInstant();
    assertThat(fenced)
        .as(
            "the cut-off leader stopped leading (%s) before the other acquired the Lease (%s)",
            fenced, acquired)
        .isBefore(acquired);
    assertThat(
            aLog.lines()
                .filter(l -> l.contains("StallWrites") || l.contains("StallEvents"))
                .filter(l -> !instantOf(l).isBefore(fenced))
                .toList())
        .as("writes of the cut-off leader after it stopped leading")
        .isEmpty();
    Duration recovery = bed.awaitHealthyStall(split);
    await("the new leader has written what it had to")
        .during(Duration.ofSeconds(3))
        .until(() -> true);
    java.util.Map<String, String> versions = resourceVersions(bed);
    int events = bed.stalledEvents(FaultBed.STALLED) + bed.stalledEvents(FaultBed.HEALTHY);

    // The split heals (what a hang held reaches the API server now); the replica comes back (as
    // Kubernetes restarts it) as a standby.
    proxy.restore();
    OperatorProcess a2 = replica(cluster, viaProxy, tag + "-replica-a2");
    await(tag + "-replica-a2 ready as a standby").atMost(Scenario.WAIT).until(a2::ready);
    await("nothing more is written").during(Duration.ofSeconds(5)).until(() -> true);
    long held = proxy.heldBytesDeliveredToServer();
    assertThat(resourceVersions(bed))
        .as("RolloutStalls after the heal (%d bytes the split held delivered)", held)
        .isEqualTo(versions);
    assertThat(bed.stalledEvents(FaultBed.STALLED) + bed.stalledEvents(FaultBed.HEALTHY))
        .as("RolloutStalled events after the heal")
        .isEqualTo(events);
    assertThat(holderPod(cluster)).isEqualTo(nameB);
    assertThat(a2.metrics()).contains("stallwatch_leader 0.0");
    bed.assertIntact();
    bed.assertHealthyStalledOnce();
    ReliabilityReport.row(
        faultText,
        "the cut-off leader stops leading at the renew deadline (its own fence) before the"
            + " other may take the Lease ("
            + ReliabilityReport.seconds(Duration.between(split, fenced))
            + " after the "
            + faultWord
            + "; the other acquired it after "
            + ReliabilityReport.seconds(Duration.between(split, acquired))
            + "; it exited "
            + ReliabilityReport.seconds(Duration.between(split, exited))
            + " after it); never two writers; healed, it rejoins as a standby"
            + (held > 0
                ? "; "
                    + held
                    + " bytes of its requests held by the split reached the server"
                    + " after the takeover and changed nothing"
                : ""),
        ReliabilityReport.seconds(recovery)
            + " after the later of the "
            + faultWord
            + " and the stall falling due",
        bed.lostAndDuplicated());
  }

  /** Every RolloutStall of the bed's namespace by name: its resourceVersion. */
  private static java.util.Map<String, String> resourceVersions(FaultBed bed) {
    java.util.Map<String, String> versions = new java.util.TreeMap<>();
    bed.scenario
        .stalls()
        .forEach(
            s -> versions.put(s.getMetadata().getName(), s.getMetadata().getResourceVersion()));
    return versions;
  }

  private OperatorProcess replica(RealCluster cluster, Path kubeconfig, String pod) {
    try {
      Files.deleteIfExists(cluster.dir().resolve(pod + ".log")); // its lines are read back
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    OperatorProcess p =
        OperatorProcess.start(
            kubeconfig,
            cluster.dir().resolve(pod + ".log"),
            pod,
            "--stall-after=" + OperatorProcess.STALL_AFTER,
            "--leader-election",
            "--leader-election-namespace=" + HA.namespace());
    started.add(p);
    return p;
  }

  /**
   * When the first log line with {@code text} was written. Lines without a time of their own are
   * skipped: the process's one-line {@code error:} on stderr says the same words, and the two
   * streams interleave in any order.
   */
  private static Instant logged(String log, String text) {
    return log.lines()
        .filter(l -> l.contains(text))
        .map(LeaderFailoverFaultIT::instantOf)
        .filter(at -> !at.equals(Instant.EPOCH))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no line with \"" + text + "\" in:\n" + log));
  }

  private static Instant instantOf(String line) {
    try {
      return Instant.parse(line.substring(0, line.indexOf(' ')));
    } catch (RuntimeException e) {
      return Instant.EPOCH; // a line without a time: a stack trace's, or stderr's one line
    }
  }

  private static Lease lease(RealCluster cluster) {
    return cluster
        .admin()
        .leases()
        .inNamespace(HA.namespace())
        .withName(OperatorSettings.LEASE_NAME)
        .get();
  }

  /** The pod part of the Lease holder's identity ({@code POD_NAME_suffix}), or null. */
  private static String holderPod(RealCluster cluster) {
    Lease lease = lease(cluster);
    if (lease == null || lease.getSpec().getHolderIdentity() == null) {
      return null;
    }
    String holder = lease.getSpec().getHolderIdentity();
    int cut = holder.lastIndexOf('_');
    return cut < 0 ? holder : holder.substring(0, cut);
  }
}
