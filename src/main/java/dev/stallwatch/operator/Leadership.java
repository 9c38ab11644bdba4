package dev.stallwatch.operator;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This process's side of leader election through the Lease {@value OperatorSettings#LEASE_NAME}:
 * its identity, whether it leads, and what happens when it stops leading.
 *
 * <p>JOSDK's default on losing the Lease is {@code System.exit(1)} from inside its callback. That
 * kills whatever JVM runs the operator (a test's too), and when the loss comes from our own {@code
 * close()} in a shutdown hook (SIGTERM on the leader), {@code System.exit} inside a hook blocks
 * forever and the pod hangs until SIGKILL. So exiting is turned off in JOSDK and decided here
 * instead: a deliberate stop is quiet (and hands the Lease over, see {@link #release()}); a real
 * loss completes {@link #lost()}, on which the operator stops reconciling and {@code stallwatch
 * operator} exits non-zero, so that Kubernetes restarts the replica as a standby.
 */
final class Leadership {
  private static final Logger log = LoggerFactory.getLogger(Leadership.class);

  private final KubernetesClient client;
  private final String namespace;
  private final String identity;
  private final CompletableFuture<String> lost = new CompletableFuture<>();
  private volatile boolean leading;
  private volatile boolean stopping;
  private volatile String leader;

  // The fence: the Lease's renewTime as this process last read it while holding it. fabric8's
  // elector checks its renew deadline only between attempts, and one attempt against an
  // unreachable server (client retries with backoff) can outlast it: the replica then still
  // believes it leads after the Lease expired and another took it (seen in a network split: 6 s of
  // two leaders). So the deadline is also kept here, independently of any request returning.
  private volatile Instant renewedAt;
  private volatile Duration renewDeadline = StallwatchOperator.LeaseTiming.DEFAULT.renewDeadline();
  private volatile Duration retryPeriod = StallwatchOperator.LeaseTiming.DEFAULT.retryPeriod();
  private final AtomicBoolean reading = new AtomicBoolean();
  private ScheduledExecutorService fence;

  Leadership(KubernetesClient client, String namespace, String identity) {
    this.client = client;
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.identity = Objects.requireNonNull(identity, "identity");
  }

  /**
   * The identity written to the Lease's {@code holderIdentity}: the pod's name ({@code POD_NAME}
   * from the downward API, else {@code HOSTNAME}, which Kubernetes sets to the pod's name, else the
   * host name) plus a random suffix, as kube-controller-manager and controller-runtime do. The
   * suffix keeps two processes apart even when they share a name (a restarted container, two
   * operators in one JVM), so a process never mistakes its predecessor's Lease for its own.
   */
  static String identity(UnaryOperator<String> env) {
    String name = firstNonBlank(env.apply("POD_NAME"), env.apply("HOSTNAME"));
    if (name == null) {
      name = Objects.requireNonNullElse(firstNonBlank(hostName()), "stallwatch");
    }
    return name + "_" + UUID.randomUUID();
  }

  /** JOSDK's configuration: this identity, these timings, and no {@code System.exit}. */
  LeaderElectionConfiguration configuration(StallwatchOperator.LeaseTiming timing) {
    renewDeadline = timing.renewDeadline();
    retryPeriod = timing.retryPeriod();
    return LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(
            OperatorSettings.LEASE_NAME)
        .withLeaseNamespace(namespace)
        .withIdentity(identity)
        .withLeaseDuration(timing.leaseDuration())
        .withRenewDeadline(timing.renewDeadline())
        .withRetryPeriod(timing.retryPeriod())
        .withExitOnStopLeading(false)
        .withLeaderCallbacks(
            new LeaderCallbacks(this::startedLeading, this::stoppedLeading, this::newLeader))
        .build();
  }

  String identity() {
    return identity;
  }

  boolean leading() {
    return leading;
  }

  /** The holder last seen in the Lease (null before the first look). */
  String leader() {
    return leader;
  }

  /** Completes (with a description) when the Lease is lost other than by {@link #stopping()}. */
  CompletableFuture<String> lost() {
    return lost;
  }

  String lease() {
    return namespace + "/" + OperatorSettings.LEASE_NAME;
  }

  /** From now on, stopping to lead is expected: the operator is being closed. */
  void stopping() {
    stopping = true;
    synchronized (this) {
      if (fence != null) {
        fence.shutdownNow();
      }
    }
  }

  /**
   * Hands the Lease over at once if this process still holds it, as {@code client-go} does with
   * {@code ReleaseOnCancel}: clears the holder, so that a standby takes over on its next try
   * instead of waiting for the Lease to expire. Call only once reconciliation has stopped. The
   * write is guarded by the Lease's resourceVersion; any failure leaves the Lease to expire.
   */
  void release() {
    try {
      Lease lease =
          client.leases().inNamespace(namespace).withName(OperatorSettings.LEASE_NAME).get();
      if (lease == null
          || lease.getSpec() == null
          || !identity.equals(lease.getSpec().getHolderIdentity())) {
        return;
      }
      ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
      lease.getSpec().setHolderIdentity(null);
      lease.getSpec().setLeaseDurationSeconds(1);
      lease.getSpec().setAcquireTime(now);
      lease.getSpec().setRenewTime(now);
      client.resource(lease).update();
      log.info("released the Lease {} ({})", lease(), identity);
    } catch (KubernetesClientException e) {
      log.warn(
          "could not release the Lease {}; a standby takes over once it expires: {}",
          lease(),
          e.getMessage());
    }
  }

  private void startedLeading() {
    renewedAt = Instant.now();
    leading = true;
    log.info("acquired the Lease {} as {}: reconciling", lease(), identity);
    startFence();
  }

  /**
   * Whether a leader whose Lease was last seen renewed at {@code renewedAt} has passed its renew
   * deadline at {@code now}: it must stop, because a standby may take the Lease once it expires
   * ({@code leaseDuration}, longer than the deadline) after that renewal.
   */
  static boolean overdue(Instant renewedAt, Duration renewDeadline, Instant now) {
    return renewedAt != null && now.isAfter(renewedAt.plus(renewDeadline));
  }

  /** The Lease's {@code renewTime} when {@code identity} holds it, else null. */
  static Instant renewedBy(Lease lease, String identity) {
    if (lease == null
        || lease.getSpec() == null
        || !identity.equals(lease.getSpec().getHolderIdentity())
        || lease.getSpec().getRenewTime() == null) {
      return null;
    }
    return lease.getSpec().getRenewTime().toInstant();
  }

  private synchronized void startFence() {
    if (fence != null || client == null) {
      return;
    }
    fence =
        Executors.newScheduledThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "stallwatch-lease-fence");
              t.setDaemon(true);
              return t;
            });
    long period = Math.max(100, retryPeriod.toMillis() / 4);
    fence.scheduleWithFixedDelay(this::checkFence, period, period, TimeUnit.MILLISECONDS);
  }

  private void checkFence() {
    if (!leading || stopping) {
      return;
    }
    if (reading.compareAndSet(false, true)) {
      // The read may hang as long as the connection does; the deadline below does not wait for it.
      fence.execute(
          () -> {
            try {
              Instant seen =
                  renewedBy(
                      client
                          .leases()
                          .inNamespace(namespace)
                          .withName(OperatorSettings.LEASE_NAME)
                          .get(),
                      identity);
              Instant before = renewedAt;
              if (seen != null && (before == null || seen.isAfter(before))) {
                renewedAt = seen;
              }
            } catch (RuntimeException e) {
              log.debug("could not read the Lease {}: {}", lease(), e.getMessage());
            } finally {
              reading.set(false);
            }
          });
    }
    Instant at = renewedAt;
    if (leading && !stopping && overdue(at, renewDeadline, Instant.now())) {
      leading = false;
      String what =
          "lost the Lease "
              + lease()
              + " (its last renewal seen was at "
              + at
              + ", more than the renew deadline of "
              + renewDeadline.toSeconds()
              + " s ago)";
      if (lost.complete(what)) {
        log.error("{}: stopping reconciliation", what);
      }
    }
  }

  private void stoppedLeading() {
    leading = false;
    if (stopping) {
      log.info("stopped leading ({}): shutting down", identity);
      return;
    }
    String what =
        "lost the Lease "
            + lease()
            + (leader != null && !leader.equals(identity)
                ? " to " + leader
                : " (not renewed within the renew deadline)");
    if (lost.complete(what)) {
      log.error("{}: stopping reconciliation", what);
    }
  }

  private void newLeader(String holder) {
    leader = holder;
    if (holder != null && !holder.equals(identity)) {
      log.info("standing by: the Lease {} is held by {}", lease(), holder);
    }
  }

  private static String firstNonBlank(String... values) {
    for (String v : values) {
      if (v != null && !v.isBlank()) {
        return v.trim();
      }
    }
    return null;
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return null;
    }
  }
}
