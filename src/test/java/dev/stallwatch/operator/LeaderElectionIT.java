package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.operator.decision.EventReason;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import dev.stallwatch.testing.DaemonSetFixture.Seed;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two operator replicas with leader election on one API server, as a two-replica Deployment runs
 * them: one holds the Lease and reconciles, the other stands by (ready, writing nothing) and takes
 * over, keeping what the first recorded, when the leader stops or its Lease expires. A leader that
 * loses its Lease stops reconciling; the JVM (here the test's) is not exited.
 */
class LeaderElectionIT {
  private static final String LEASE_NS = "stallwatch-system";
  private static final Duration STALL_AFTER = Duration.ofSeconds(2);
  // Short lease timing, same proportions as the defaults (15 s / 10 s / 2 s).
  private static final StallwatchOperator.LeaseTiming LEASE =
      new StallwatchOperator.LeaseTiming(
          Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(250));
  private static final StallwatchOperator.Timing TIMING =
      StallwatchOperator.Timing.REAL.withLease(LEASE);
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private TestApiServer cluster;
  private final List<Replica> replicas = new ArrayList<>();

  /** One operator process: its operator, its own metrics registry and its /readyz. */
  private record Replica(
      StallwatchOperator operator, PrometheusMeterRegistry registry, HealthEndpoint http)
      implements AutoCloseable {
    String identity() {
      return operator.identity().orElseThrow();
    }

    int readyz() throws IOException, InterruptedException {
      return HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/readyz"))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    }

    @Override
    public void close() {
      operator.close();
      http.close();
    }
  }

  @BeforeEach
  void start() {
    cluster = new TestApiServer();
    DaemonSetFixture.seed(cluster.client(), Seed.NS, Seed.DS, Instant.now()).nodes(Seed.NODES);
  }

  @AfterEach
  void stop() {
    replicas.forEach(Replica::close);
    cluster.close();
  }

  private Replica startReplica() throws IOException {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    OperatorSettings settings =
        new OperatorSettings(Set.of(), STALL_AFTER, Duration.ofHours(24), 0, true, LEASE_NS);
    StallwatchOperator operator =
        StallwatchOperator.start(cluster.client(), settings, registry, TIMING);
    Replica replica =
        new Replica(operator, registry, HealthEndpoint.start(0, registry, operator::ready));
    replicas.add(replica);
    return replica;
  }

  @Test
  void onlyTheLeaseHolderReconcilesAndTheStandbyTakesOverWithoutDuplicatingTheStall()
      throws Exception {
    DaemonSetFixture toolkit =
        DaemonSetFixture.seed(cluster.client(), "gpu-operator", "toolkit", Instant.now())
            .stalledOnFirstNode();
    Replica first = startReplica();
    Replica second = startReplica();
    assertThat(first.identity()).isNotEqualTo(second.identity());

    String holder = await().atMost(WAIT).until(this::holder, h -> h != null);
    Replica leader = holder.equals(first.identity()) ? first : second;
    Replica standby = leader == first ? second : first;
    assertThat(holder).isEqualTo(leader.identity());
    await().atMost(WAIT).until(() -> leader.operator().leading());
    assertThat(standby.operator().leading()).isFalse();
    assertThat(cluster.client().leases().inAnyNamespace().list().getItems())
        .extracting(l -> l.getMetadata().getNamespace() + "/" + l.getMetadata().getName())
        .containsExactly(LEASE_NS + "/" + OperatorSettings.LEASE_NAME);

    RolloutStall stall =
        await().atMost(WAIT).until(() -> cluster.active("gpu-operator"), s -> s != null);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(cluster.events("gpu-operator", "toolkit", EventReason.STALLED.reason()))
                    .hasSize(1));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(leader.registry().scrape()).contains("stallwatch_rollout_stalled{"));
    // Both are ready: a standby is a working replica, not a failing one.
    assertThat(leader.operator().ready()).isTrue();
    assertThat(standby.operator().ready()).isTrue();
    assertThat(leader.readyz()).isEqualTo(200);
    assertThat(standby.readyz()).isEqualTo(200);
    // The standby watches (its informers run) but never reconciled: no series of its own.
    assertThat(standby.registry().scrape())
        .doesNotContain("stallwatch_rollout_stalled{")
        .doesNotContain("operator_sdk_reconciliations_started")
        .contains("stallwatch_leader 0.0");
    assertThat(leader.registry().scrape()).contains("stallwatch_leader 1.0");
    assertThat(cluster.stalls("gpu-operator")).hasSize(1);

    Instant closed = Instant.now();
    leader.operator().close();
    await()
        .atMost(WAIT)
        .until(() -> standby.identity().equals(holder()) && standby.operator().leading());
    Duration takeover = Duration.between(closed, Instant.now());
    // The leader hands the Lease over on close: no wait for it to expire.
    assertThat(takeover).isLessThan(LEASE.leaseDuration());
    assertThat(lease().getSpec().getLeaseTransitions()).isEqualTo(1);
    assertThat(standby.readyz()).isEqualTo(200);
    assertThat(leader.readyz()).isEqualTo(503);
    assertThat(standby.registry().scrape()).contains("stallwatch_leader 1.0");

    // The new leader picks the stall up where the old one left it.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(standby.registry().scrape()).contains("stallwatch_rollout_stalled{"));
    List<RolloutStall> kept = cluster.stalls("gpu-operator");
    assertThat(kept).hasSize(1);
    assertThat(kept.get(0).getMetadata().getUid()).isEqualTo(stall.getMetadata().getUid());
    assertThat(kept.get(0).getStatus().phase()).isEqualTo("Active");
    assertThat(kept.get(0).getStatus().stalledSince()).isEqualTo(stall.getStatus().stalledSince());
    assertThat(cluster.events("gpu-operator", "toolkit", EventReason.STALLED.reason())).hasSize(1);

    // ... and reconciles what changes from then on.
    DaemonSetFixture.seed(cluster.client(), "gpu-b", "driver", Instant.now()).stalledOnFirstNode();
    toolkit.rolledBack();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.active("gpu-b")).isNotNull();
              assertThat(cluster.events("gpu-b", "driver", EventReason.STALLED.reason()))
                  .hasSize(1);
              assertThat(cluster.stalls("gpu-operator").get(0).getStatus().phase())
                  .isEqualTo("Resolved");
              assertThat(cluster.events("gpu-operator", "toolkit", EventReason.RESOLVED.reason()))
                  .hasSize(1);
            });
    assertThat(cluster.stalls("gpu-operator")).hasSize(1);
    assertThat(cluster.events("gpu-operator", "toolkit", EventReason.STALLED.reason())).hasSize(1);
  }

  @Test
  void standbysWaitForTheLeaseOfALeaderThatVanishedToExpireThenOneTakesOver() throws Exception {
    // A leader that crashed or lost the network: it renewed a moment ago and will not again.
    // Standbys honour the duration written in the Lease, whatever their own.
    Duration ghostLease = Duration.ofSeconds(5);
    ZonedDateTime renewed = ZonedDateTime.now(ZoneOffset.UTC);
    cluster
        .client()
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withNamespace(LEASE_NS)
                .withName(OperatorSettings.LEASE_NAME)
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("stallwatch-crashed_0")
                .withLeaseDurationSeconds((int) ghostLease.toSeconds())
                .withAcquireTime(renewed)
                .withRenewTime(renewed)
                .withLeaseTransitions(4)
                .endSpec()
                .build())
        .create();
    // Stalled long ago: a reconciling operator would record it at once.
    DaemonSetFixture.seed(
            cluster.client(), "gpu-operator", "toolkit", Instant.now().minusSeconds(600))
        .stalledOnFirstNode();
    Replica first = startReplica();
    Replica second = startReplica();

    // fabric8's elector reads the wall clock (not injectable): the Lease stays valid in real
    // time, and both standbys must hold off for as long as it does.
    Instant expiry = renewed.toInstant().plus(ghostLease);
    Duration valid = Duration.between(Instant.now(), expiry.minusSeconds(1));
    assertThat(valid).as("time left to check while the Lease is still valid").isPositive();
    await()
        .during(valid)
        .atMost(valid.plusSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              assertThat(holder()).isEqualTo("stallwatch-crashed_0");
              assertThat(first.operator().leading()).isFalse();
              assertThat(second.operator().leading()).isFalse();
              assertThat(cluster.stalls("gpu-operator")).isEmpty();
              assertThat(first.readyz()).isEqualTo(200);
              assertThat(second.readyz()).isEqualTo(200);
            });

    String holder =
        await()
            .atMost(WAIT)
            .until(this::holder, h -> h != null && !h.equals("stallwatch-crashed_0"));
    Instant acquired = Instant.now();
    assertThat(holder).isIn(first.identity(), second.identity());
    assertThat(lease().getSpec().getLeaseTransitions()).isEqualTo(5);
    // The bound is the point: a standby tries every retryPeriod (plus jitter), so it takes over
    // within a few of them after the expiry; three and a second is room for a loaded machine.
    assertThat(acquired).isAfter(expiry);
    assertThat(Duration.between(expiry, acquired))
        .as("takeover after the lease expired")
        .isLessThan(LEASE.retryPeriod().multipliedBy(3).plusSeconds(1));
    await().atMost(WAIT).until(() -> cluster.active("gpu-operator"), s -> s != null);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(cluster.events("gpu-operator", "toolkit", EventReason.STALLED.reason()))
                    .hasSize(1));
    Replica leader = holder.equals(first.identity()) ? first : second;
    Replica standby = leader == first ? second : first;
    assertThat(leader.operator().leading()).isTrue();
    assertThat(standby.operator().leading()).isFalse();
    assertThat(standby.registry().scrape()).doesNotContain("stallwatch_rollout_stalled{");
    assertThat(cluster.stalls("gpu-operator")).hasSize(1);
  }

  @Test
  void aLeaderWhoseLeaseIsTakenStopsReconcilingAndReportsItInsteadOfExitingTheJvm()
      throws Exception {
    Replica only = startReplica();
    await().atMost(WAIT).until(() -> only.operator().leading());

    // Someone else now holds the Lease, for long (a replica that took it over after a network
    // partition, or a person). A real leader finds out on its next renewal.
    takeLease("stallwatch-other_1", Duration.ofMinutes(5));

    String lost = only.operator().leadershipLost().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(lost).contains(LEASE_NS + "/" + OperatorSettings.LEASE_NAME).contains("other_1");
    await().atMost(WAIT).until(() -> !only.operator().ready());
    assertThat(only.operator().leading()).isFalse();
    assertThat(only.readyz()).isEqualTo(503);
    assertThat(holder()).isEqualTo("stallwatch-other_1");

    // Stopped: a rollout that stalled long ago gets no RolloutStall from it.
    DaemonSetFixture.seed(
            cluster.client(), "gpu-operator", "toolkit", Instant.now().minusSeconds(600))
        .stalledOnFirstNode();
    // An absence, watched for a while (a stopped operator has no informers to wake it up).
    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(5))
        .until(() -> cluster.stalls("gpu-operator").isEmpty());
    // Closing afterwards is harmless and leaves the other holder's Lease alone.
    only.operator().close();
    assertThat(holder()).isEqualTo("stallwatch-other_1");
  }

  // The shipped process, with the production lease timing (15 s / 10 s / 2 s) and POD_NAME as a
  // Deployment's downward API sets it.

  @Test
  void theOperatorProcessHandsTheLeaseOverAndExitsPromptlyOnSigterm(@TempDir Path tmp)
      throws Exception {
    Process leader = startProcess(tmp, "stallwatch-7d9f-abcde");
    try {
      String holder = await().atMost(WAIT).until(this::holder, h -> h != null || !leader.isAlive());
      assertThat(holder).as(stderr(tmp)).startsWith("stallwatch-7d9f-abcde_");

      leader.destroy(); // SIGTERM, as the kubelet sends it

      // No hang in the shutdown hook (JOSDK's System.exit there blocks forever).
      assertThat(leader.waitFor(20, TimeUnit.SECONDS)).as(stderr(tmp)).isTrue();
      assertThat(leader.exitValue()).isEqualTo(143);
      assertThat(holder()).as("released for the standby").isNull();
      assertThat(lease().getSpec().getLeaseTransitions()).isZero();
    } finally {
      leader.destroyForcibly();
    }
  }

  @Test
  void theOperatorProcessExitsWithAnAccessErrorWhenItLosesTheLease(@TempDir Path tmp)
      throws Exception {
    Process leader = startProcess(tmp, "stallwatch-7d9f-abcde");
    try {
      await().atMost(WAIT).until(() -> holder() != null || !leader.isAlive());
      assertThat(leader.isAlive()).as(stderr(tmp)).isTrue();

      takeLease("stallwatch-other_1", Duration.ofMinutes(5));

      // Found at its next renewal (every 2 s): it stops and exits, to come back as a standby.
      assertThat(leader.waitFor(20, TimeUnit.SECONDS)).as(stderr(tmp)).isTrue();
      assertThat(leader.exitValue()).as(stderr(tmp)).isEqualTo(3);
      assertThat(stderr(tmp))
          .contains(
              "error: lost the Lease "
                  + LEASE_NS
                  + "/"
                  + OperatorSettings.LEASE_NAME
                  + " to stallwatch-other_1; exiting to restart as a standby");
      assertThat(holder()).isEqualTo("stallwatch-other_1");
    } finally {
      leader.destroyForcibly();
    }
  }

  private Process startProcess(Path tmp, String podName) throws IOException {
    Path jar = Path.of("target/stallwatch.jar").toAbsolutePath();
    assertThat(jar).as("the packaged jar (run the ITs with ./mvnw verify)").exists();
    Path kubeconfig = cluster.writeKubeconfig(tmp.resolve("kubeconfig"));
    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-jar",
            jar.toString(),
            "operator",
            "--leader-election",
            "--leader-election-namespace=" + LEASE_NS,
            "--metrics-port=0",
            "--stall-after=2s");
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment().remove("KUBERNETES_MASTER");
    pb.environment().put("POD_NAME", podName);
    pb.redirectOutput(tmp.resolve("out").toFile());
    pb.redirectError(tmp.resolve("err").toFile());
    return pb.start();
  }

  private static String stderr(Path tmp) throws IOException {
    return Files.readString(tmp.resolve("err"), StandardCharsets.UTF_8);
  }

  /** Writes the Lease as another holder would, retrying while the leader renews it. */
  private void takeLease(String holder, Duration duration) {
    await()
        .atMost(WAIT)
        .ignoreException(KubernetesClientException.class)
        .until(
            () -> {
              Lease lease = lease();
              ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
              lease.getSpec().setHolderIdentity(holder);
              lease.getSpec().setLeaseDurationSeconds((int) duration.toSeconds());
              lease.getSpec().setAcquireTime(now);
              lease.getSpec().setRenewTime(now);
              cluster.client().resource(lease).update();
              return true;
            });
  }

  private Lease lease() {
    return cluster
        .client()
        .leases()
        .inNamespace(LEASE_NS)
        .withName(OperatorSettings.LEASE_NAME)
        .get();
  }

  private String holder() {
    Lease lease = lease();
    return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
  }
}
