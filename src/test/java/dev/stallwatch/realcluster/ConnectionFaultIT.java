package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.deploy.NativeHelm;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The connection between the operator and the API server cut, hung and slowed by a TCP proxy of
 * ours on loopback ({@link LoopbackProxy}), then restored. Each time a stall is in progress and the
 * healthy DaemonSet is broken as the fault begins; the fault lasts past stall-after, so the new
 * stall falls due while the operator cannot write, and is recorded once the connection is back.
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class ConnectionFaultIT {
  /** Longer than stall-after (10 s): the healthy DaemonSet's stall falls due during the fault. */
  static final Duration FAULT = Duration.ofSeconds(12);

  static RealCluster cluster;
  static LoopbackProxy proxy;
  static OperatorProcess operator;

  @BeforeAll
  static void start(RealCluster c) throws IOException {
    cluster = c;
    OperatorProcess.DEFAULT_RELEASE.install(c);
    Path direct =
        OperatorProcess.DEFAULT_RELEASE.serviceAccountKubeconfig(
            c, c.dir().resolve("connection-faults-direct.kubeconfig"));
    URI server = URI.create(c.admin().getConfiguration().getMasterUrl());
    proxy = new LoopbackProxy(server.getPort());
    Path viaProxy = c.dir().resolve("connection-faults.kubeconfig");
    Files.writeString(
        viaProxy,
        Files.readString(direct)
            .replace("127.0.0.1:" + server.getPort() + "\n", "127.0.0.1:" + proxy.port() + "\n"));
    operator =
        OperatorProcess.start(
            viaProxy,
            c.dir().resolve("connection-faults-operator.log"),
            "connection-faults-operator",
            "--stall-after=" + OperatorProcess.STALL_AFTER);
    org.awaitility.Awaitility.await("operator ready through the proxy")
        .atMost(Duration.ofMinutes(1))
        .until(() -> operator.ready() || !operator.alive());
    assertThat(operator.alive()).as(operator.output()).isTrue();
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  @Test
  void aConnectionDroppedAndRefusedThenRestoredLosesAndDuplicatesNothing() {
    FaultBed bed = FaultBed.stallInProgress(cluster, "proxy-drop");
    proxy.drop();
    bed.breakHealthy("v2");
    sleep(FAULT);
    proxy.restore();
    Instant back = Instant.now();

    Duration recovery = bed.awaitHealthyStall(back);
    bed.assertIntact();
    bed.assertHealthyStalledOnce();
    assertThat(operator.alive()).isTrue();
    ReliabilityReport.row(
        "operator ↔ API server: every connection closed, new ones refused for 12 s",
        "informers reconnect and resync; the stall that fell due meanwhile recorded once",
        ReliabilityReport.seconds(recovery) + " after the connection is back",
        bed.lostAndDuplicated());
  }

  @Test
  void aConnectionThatHangsWithoutClosingThenResumesLosesAndDuplicatesNothing() {
    FaultBed bed = FaultBed.stallInProgress(cluster, "proxy-hang");
    proxy.hang();
    bed.breakHealthy("v2");
    sleep(FAULT);
    proxy.restore();
    Instant back = Instant.now();

    Duration recovery = bed.awaitHealthyStall(back);
    bed.assertIntact();
    bed.assertHealthyStalledOnce();
    assertThat(operator.alive()).isTrue();
    ReliabilityReport.row(
        "operator ↔ API server: connections hang (open, no byte moves) for 12 s",
        "the held bytes flow on; the stall that fell due meanwhile recorded once",
        ReliabilityReport.seconds(recovery) + " after the connection moves again",
        bed.lostAndDuplicated());
  }

  @Test
  void fiveSecondsOfLatencySlowTheOperatorButLoseAndDuplicateNothing() {
    FaultBed bed = FaultBed.stallInProgress(cluster, "proxy-latency");
    proxy.latency(Duration.ofSeconds(5));
    try {
      bed.breakHealthy("v2");
      Duration late = bed.awaitHealthyStall(Instant.EPOCH);
      bed.assertIntact();
      bed.assertHealthyStalledOnce();
      ReliabilityReport.row(
          "operator ↔ API server: 5 s added to every answer and watch event",
          "the operator works on, 5 s behind; nothing recorded twice",
          ReliabilityReport.seconds(late)
              + " after the stall fell due (new pod created + stall-after; 1 s resolution)",
          bed.lostAndDuplicated());
    } finally {
      proxy.restore();
    }
    assertThat(operator.alive()).isTrue();
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
