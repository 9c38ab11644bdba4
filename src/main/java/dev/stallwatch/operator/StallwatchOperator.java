package dev.stallwatch.operator;

import dev.stallwatch.operator.cache.CachePruning;
import dev.stallwatch.operator.cache.ListProgress;
import dev.stallwatch.operator.cache.ListingClient;
import dev.stallwatch.operator.cache.StorePerInformer;
import dev.stallwatch.operator.effects.Series;
import dev.stallwatch.operator.effects.StallEvents;
import dev.stallwatch.operator.effects.StallMetrics;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.javaoperatorsdk.operator.processing.event.source.informer.TransformingItemStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator as a whole: a JOSDK {@link Operator} with the {@link DaemonSetRolloutReconciler}
 * registered, configured to work on any API server (no server-side apply), with controller metrics
 * in the given registry and, when enabled, leader election through a Lease.
 *
 * <p>With leader election, every replica starts its informers (a warm standby, ready to take over)
 * but only the Lease holder reconciles. A standby is ready ({@link #ready()}) like the leader, as
 * kube-controller-manager's and cert-manager's standbys are healthy: readiness says the process
 * works, not that it leads, so a two-replica Deployment is fully available and rolls out normally.
 * {@link #close()} stops reconciling, then releases the Lease so that the standby takes over at
 * once. Losing the Lease otherwise stops this operator and completes {@link #leadershipLost()}.
 */
public final class StallwatchOperator implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StallwatchOperator.class);

  private final Operator operator;
  private final Leadership leadership;
  private final KubernetesClient listing;
  private volatile AdvancedDaemonSets advanced; // null unless Advanced DaemonSets are watched
  private boolean closed;

  private final java.util.concurrent.ScheduledExecutorService watchdog;

  private StallwatchOperator(
      Operator operator,
      Leadership leadership,
      ApiReachability reachability,
      KubernetesClient listing) {
    this.operator = operator;
    this.leadership = leadership;
    this.listing = listing;
    this.watchdog =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "stallwatch-api-reachability");
              t.setDaemon(true);
              return t;
            });
    // The informers know first when the watches are gone and when they are all back.
    watchdog.scheduleWithFixedDelay(
        () -> {
          if (isStarted()) {
            reachability.watching(operator.getRuntimeInfo().allEventSourcesAreHealthy());
          }
        },
        WATCH_POLL.toMillis(),
        WATCH_POLL.toMillis(),
        java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** How often the informers' health is looked at for the outage log lines. */
  static final Duration WATCH_POLL = Duration.ofSeconds(2);

  /** Options that only tests and the demo change. */
  public record Timing(
      Clock clock,
      UnaryOperator<Duration> toRealDelay,
      Duration resync,
      LeaseTiming lease,
      Duration advancedLook) {
    /** Wall clock; a full re-check of every DaemonSet every 10 minutes as a safety net. */
    public static final Timing REAL =
        new Timing(Clock.systemUTC(), UnaryOperator.identity(), Duration.ofMinutes(10));

    /** With JOSDK's default lease timing. */
    public Timing(Clock clock, UnaryOperator<Duration> toRealDelay, Duration resync) {
      this(clock, toRealDelay, resync, LeaseTiming.DEFAULT);
    }

    /** Looking for Advanced DaemonSets every {@link AdvancedDaemonSets#LOOK_AGAIN}. */
    public Timing(
        Clock clock, UnaryOperator<Duration> toRealDelay, Duration resync, LeaseTiming lease) {
      this(clock, toRealDelay, resync, lease, AdvancedDaemonSets.LOOK_AGAIN);
    }

    public Timing withLease(LeaseTiming lease) {
      return new Timing(clock, toRealDelay, resync, lease, advancedLook);
    }

    /** How often discovery is asked whether the cluster serves Advanced DaemonSets (tests). */
    public Timing withAdvancedLook(Duration look) {
      return new Timing(clock, toRealDelay, resync, lease, look);
    }
  }

  /**
   * How leader election paces itself (client-go's names). A standby takes the Lease over at most
   * {@code leaseDuration} (plus one retry) after the leader's last renewal; the leader gives up
   * when it could not renew for {@code renewDeadline}, before its Lease can expire.
   *
   * @param leaseDuration how long a Lease is valid after its last renewal (whole seconds: the Lease
   *     stores {@code leaseDurationSeconds})
   * @param renewDeadline how long the leader keeps trying to renew before it stops leading
   * @param retryPeriod how often the leader renews and a standby tries to acquire
   */
  public record LeaseTiming(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
    /** JOSDK's defaults, the same as client-go's: 15 s, 10 s, 2 s. */
    public static final LeaseTiming DEFAULT =
        new LeaseTiming(
            LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE,
            LeaderElectionConfiguration.RENEW_DEADLINE_DEFAULT_VALUE,
            LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE);

    /** fabric8 spreads the retries of a standby up to this factor of the retry period. */
    private static final double JITTER = 1.2;

    public LeaseTiming {
      if (leaseDuration == null
          || leaseDuration.compareTo(Duration.ofSeconds(1)) < 0
          || leaseDuration.toNanosPart() != 0) {
        throw new IllegalArgumentException(
            "leaseDuration must be a whole number of seconds, at least 1: " + leaseDuration);
      }
      if (renewDeadline == null
          || renewDeadline.isZero()
          || renewDeadline.isNegative()
          || renewDeadline.compareTo(leaseDuration) >= 0) {
        throw new IllegalArgumentException(
            "renewDeadline must be positive and shorter than leaseDuration "
                + leaseDuration
                + ": "
                + renewDeadline);
      }
      if (retryPeriod == null
          || retryPeriod.isZero()
          || retryPeriod.isNegative()
          || retryPeriod.toMillis() * JITTER >= renewDeadline.toMillis()) {
        throw new IllegalArgumentException(
            "retryPeriod must be positive and, times "
                + JITTER
                + ", shorter than renewDeadline "
                + renewDeadline
                + ": "
                + retryPeriod);
      }
    }
  }

  /** Builds, registers and starts the operator; returns once the informers have synced. */
  public static StallwatchOperator start(
      KubernetesClient client, OperatorSettings settings, MeterRegistry registry, Timing timing) {
    return start(client, settings, registry, timing, UnaryOperator.identity());
  }

  /**
   * As {@link #start(KubernetesClient, OperatorSettings, MeterRegistry, Timing)}, with JOSDK's
   * metrics passed through {@code observeMetrics} (tests wrap them to count reconciles per
   * DaemonSet, which the registry's metrics leave out).
   */
  public static StallwatchOperator start(
      KubernetesClient client,
      OperatorSettings settings,
      MeterRegistry registry,
      Timing timing,
      UnaryOperator<Metrics> observeMetrics) {
    Leadership leadership =
        settings.leaderElection()
            ? new Leadership(
                client, settings.leaderElectionNamespace(), Leadership.identity(System::getenv))
            : null;
    Operator operator = operator(client, registry, observeMetrics, leadership, timing);
    KubernetesClient listing = ListingClient.of(client);
    try {
      return start(
          client, listing, settings, registry, timing, observeMetrics, leadership, operator);
    } catch (RuntimeException | Error e) {
      listing.close();
      throw e;
    }
  }

  private static StallwatchOperator start(
      KubernetesClient client,
      KubernetesClient listing,
      OperatorSettings settings,
      MeterRegistry registry,
      Timing timing,
      UnaryOperator<Metrics> observeMetrics,
      Leadership leadership,
      Operator operator) {
    StallMetrics metrics = new StallMetrics(registry);
    StallEvents events = new StallEvents(client, timing.clock());
    ApiReachability reachability = new ApiReachability(timing.clock());
    DaemonSetRolloutReconciler reconciler =
        new DaemonSetRolloutReconciler(
            timing.clock(),
            timing.toRealDelay(),
            settings,
            metrics,
            events,
            client,
            listing,
            reachability);
    register(operator, reconciler, CachePruning::daemonSet, settings, timing);
    if (leadership != null) {
      log.info(
          "leader election: Lease {}, identity {}; reconciling once it is acquired",
          leadership.lease(),
          leadership.identity());
    }
    HeapGuard.holding(() -> reconciler.cached().toString());
    try (ListProgress progress = ListProgress.start("DaemonSets", reconciler::cached)) {
      operator.start();
      progress.synced();
    }
    StallwatchOperator started =
        new StallwatchOperator(operator, leadership, reachability, listing);
    if (settings.advancedDaemonSets()) {
      started.advanced =
          new AdvancedDaemonSets(
              client,
              () -> {
                Operator advanced = operator(client, registry, observeMetrics, null, timing);
                AdvancedDaemonSetRolloutReconciler kruise =
                    new AdvancedDaemonSetRolloutReconciler(
                        timing.clock(),
                        timing.toRealDelay(),
                        settings,
                        metrics,
                        events,
                        client,
                        listing,
                        reachability);
                register(advanced, kruise, CachePruning::advancedDaemonSet, settings, timing);
                return new AdvancedDaemonSets.Built(advanced, kruise::cached);
              },
              started::leading,
              timing.advancedLook());
      started.advanced.start();
    }
    // Only the leader exports stall series; this tells replicas apart (and "no leader" apart from
    // "nothing stalled"), as controller-runtime's leader_election_master_status does.
    replicaGauges(registry, started::leading, () -> !reachability.lost());
    if (leadership != null) {
      // Not on the elector's thread: stopping the operator waits for that thread's pool.
      leadership
          .lost()
          .thenRunAsync(started::close, r -> new Thread(r, "stallwatch-lost-lease").start());
    }
    return started;
  }

  /**
   * {@code stallwatch_leader} (1 on the replica that reconciles, 0 on a standby) and {@code
   * stallwatch_api_server_reachable} (0 while {@link ApiReachability} reports an outage: what
   * StallwatchApiServerUnreachable pages on; without it a cut-off operator looks idle).
   */
  public static void replicaGauges(
      MeterRegistry registry,
      java.util.function.BooleanSupplier leading,
      java.util.function.BooleanSupplier reachable) {
    Gauge.builder(Series.LEADER.meter(), leading, l -> l.getAsBoolean() ? 1 : 0)
        .description(Series.LEADER.help())
        .strongReference(true)
        .register(registry);
    Gauge.builder(Series.API_SERVER_REACHABLE.meter(), reachable, r -> r.getAsBoolean() ? 1 : 0)
        .description(Series.API_SERVER_REACHABLE.help())
        .strongReference(true)
        .register(registry);
  }

  /**
   * How long an informer may take to list its objects at start before the operator gives up and
   * exits (JOSDK's default is 2 minutes). At 5,000 nodes × 10 DaemonSets the pod informer reads
   * 50,000 pods, 500 a page, each pod deserialised, pruned and indexed as it arrives: it had read
   * 47,000 when the 2 minutes ran out on a loaded 2-core machine. /readyz stays 503 meanwhile.
   */
  static final Duration CACHE_SYNC_TIMEOUT = Duration.ofMinutes(10);

  /**
   * How many DaemonSets are reconciled at once (JOSDK's default is 50, a thread each once a rollout
   * has reconciled that many). A reconcile is a few milliseconds of CPU on one or two cores
   * (kube-controller-manager syncs 2 DaemonSets at once by default): more threads only hold stacks.
   */
  static final int RECONCILE_THREADS = 8;

  /** A JOSDK operator on {@code client}, with leader election when {@code leadership} is given. */
  private static Operator operator(
      KubernetesClient client,
      MeterRegistry registry,
      UnaryOperator<Metrics> observeMetrics,
      Leadership leadership,
      Timing timing) {
    return new Operator(
        o -> {
          o.withKubernetesClient(client)
              .withCloseClientOnStop(false)
              .withReconciliationTerminationTimeout(Duration.ofSeconds(5))
              .withCacheSyncTimeout(CACHE_SYNC_TIMEOUT)
              .withConcurrentReconciliationThreads(RECONCILE_THREADS)
              .withUseSSAToPatchPrimaryResource(false)
              .withSSABasedCreateUpdateMatchForDependentResources(false)
              .withMetrics(
                  observeMetrics.apply(MicrometerMetrics.withoutPerResourceMetrics(registry)));
          if (leadership != null) {
            o.withLeaderElectionConfiguration(leadership.configuration(timing.lease()));
          }
        });
  }

  /** Registers a reconciler with its primary cache pruned by {@code prune}. */
  private static <P extends HasMetadata> void register(
      Operator operator,
      RolloutReconciler<P> reconciler,
      UnaryOperator<P> prune,
      OperatorSettings settings,
      Timing timing) {
    var overrider =
        ControllerConfigurationOverrider.override(
            operator.getConfigurationService().getConfigurationFor(reconciler));
    configure(overrider, settings, timing);
    // One pruning store, a partition of it per namespace's informer (StorePerInformer).
    operator.register(
        reconciler,
        StorePerInformer.of(overrider.build(), new TransformingItemStore<>(prune::apply)));
  }

  private static <P extends HasMetadata> void configure(
      ControllerConfigurationOverrider<P> o, OperatorSettings settings, Timing timing) {
    if (settings.allNamespaces()) {
      o.watchingAllNamespaces();
    } else {
      o.settingNamespaces(settings.namespaces());
    }
    o.withReconciliationMaxInterval(timing.resync());
  }

  /** True once started and every informer is healthy (synced and watching). */
  public boolean ready() {
    var info = operator.getRuntimeInfo();
    return info.isStarted()
        && info.allEventSourcesAreHealthy()
        && (advanced == null || advanced.healthy());
  }

  /** True while OpenKruise Advanced DaemonSets are watched ({@link AdvancedDaemonSets}). */
  public boolean watchingAdvancedDaemonSets() {
    return advanced != null && advanced.watching();
  }

  /**
   * The identity this operator holds the Lease under, or writes there once it leads; empty without
   * leader election.
   */
  public Optional<String> identity() {
    return Optional.ofNullable(leadership).map(Leadership::identity);
  }

  /** True when this operator reconciles: it holds the Lease, or leader election is off. */
  public boolean leading() {
    return leadership == null ? isStarted() : leadership.leading();
  }

  /**
   * Completes, with what happened, when this operator lost the Lease without being closed (it could
   * not renew it in time, or another replica holds it); it has then stopped reconciling and should
   * exit. Never completes without leader election.
   */
  public CompletableFuture<String> leadershipLost() {
    return leadership == null ? new CompletableFuture<>() : leadership.lost().copy();
  }

  private boolean isStarted() {
    return operator.getRuntimeInfo().isStarted();
  }

  /**
   * Stops reconciling (waiting briefly for reconciliations in progress), then releases the Lease if
   * this operator holds it. Safe to call more than once.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    watchdog.shutdownNow();
    if (leadership != null) {
      leadership.stopping();
    }
    if (advanced != null) {
      advanced.close();
    }
    operator.stop();
    listing.close();
    if (leadership != null) {
      leadership.release();
    }
  }
}
