package dev.stallwatch.operator;

import dev.stallwatch.cli.ClusterOptions;
import dev.stallwatch.cli.DurationParser;
import dev.stallwatch.cli.ExitCodes;
import dev.stallwatch.cli.LogSetup;
import dev.stallwatch.operator.decision.RoutingLabels;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code stallwatch operator}: watches DaemonSets and records stalled rollouts as RolloutStalls,
 * Events and metrics. Every flag has an environment variable, for a Deployment's {@code env}.
 */
@Command(
    name = "operator",
    mixinStandardHelpOptions = true,
    description = {
      "Watch DaemonSet rollouts: write a RolloutStall, an Event and metrics when one stalls.",
      "Every option can also be set through the environment variable shown."
    })
public final class OperatorCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(OperatorCommand.class);

  @Option(
      names = "--namespaces",
      split = ",",
      defaultValue = "${env:STALLWATCH_NAMESPACES:-}",
      description = "Namespaces to watch, comma-separated; empty = all (STALLWATCH_NAMESPACES).")
  String[] namespaces = {};

  @Option(
      names = "--stall-after",
      converter = DurationParser.class,
      defaultValue = "${env:STALLWATCH_STALL_AFTER:-5m}",
      description = "How long a node may hold a rollout back (STALLWATCH_STALL_AFTER, 5m).")
  Duration stallAfter;

  @Option(
      names = "--resolved-ttl",
      converter = DurationParser.class,
      defaultValue = "${env:STALLWATCH_RESOLVED_TTL:-24h}",
      description = "How long Resolved RolloutStalls are kept (STALLWATCH_RESOLVED_TTL, 24h).")
  Duration resolvedTtl;

  @Option(
      names = "--metrics-port",
      defaultValue = "${env:STALLWATCH_METRICS_PORT:-8080}",
      description = "Port of /metrics, /healthz, /readyz (STALLWATCH_METRICS_PORT, 8080).")
  int metricsPort;

  @Option(
      names = "--leader-election",
      arity = "0..1",
      defaultValue = "${env:STALLWATCH_LEADER_ELECTION:-false}",
      description =
          "Hold the Lease "
              + OperatorSettings.LEASE_NAME
              + " before acting"
              + " (STALLWATCH_LEADER_ELECTION, false).")
  boolean leaderElection;

  @Option(
      names = "--leader-election-namespace",
      defaultValue = "${env:STALLWATCH_LEADER_ELECTION_NAMESPACE:-${env:POD_NAMESPACE:-}}",
      description =
          "Namespace of the Lease (STALLWATCH_LEADER_ELECTION_NAMESPACE, default POD_NAMESPACE).")
  String leaderElectionNamespace;

  @Option(
      names = "--log-level",
      defaultValue = "${env:STALLWATCH_LOG_LEVEL:-info}",
      description = "trace, debug, info, warn or error (STALLWATCH_LOG_LEVEL, info).")
  String logLevel;

  @Option(
      names = "--log-format",
      defaultValue = "${env:STALLWATCH_LOG_FORMAT:-text}",
      description = "text or json (STALLWATCH_LOG_FORMAT, text).")
  LogSetup.Format logFormat;

  @Option(
      names = "--auto-rollback",
      arity = "0..1",
      defaultValue = "${env:STALLWATCH_AUTO_ROLLBACK:-false}",
      description =
          "Roll back a stalled rollout once it has lasted --auto-rollback-after, for DaemonSets"
              + " annotated stallwatch.dev/auto-rollback: \"true\" (STALLWATCH_AUTO_ROLLBACK,"
              + " false).")
  boolean autoRollback;

  @Option(
      names = "--auto-rollback-after",
      paramLabel = "DURATION",
      converter = DurationParser.class,
      defaultValue = "${env:STALLWATCH_AUTO_ROLLBACK_AFTER:-10m}",
      description =
          "How long a stall lasts before auto-rollback (STALLWATCH_AUTO_ROLLBACK_AFTER, 10m).")
  Duration autoRollbackAfter;

  @Option(
      names = "--label-allowlist",
      split = ",",
      paramLabel = "KEY",
      defaultValue = "${env:STALLWATCH_LABEL_ALLOWLIST:-}",
      description =
          "DaemonSet labels copied onto its RolloutStall and, as label_<key>, onto"
              + " stallwatch_rollout_stalled, comma-separated, to route the alert"
              + " (STALLWATCH_LABEL_ALLOWLIST, none).")
  String[] labelAllowlist = {};

  @Option(
      names = "--advanced-daemonsets",
      arity = "0..1",
      defaultValue = "${env:STALLWATCH_ADVANCED_DAEMONSETS:-false}",
      description =
          "Also watch OpenKruise Advanced DaemonSets (daemonsets.apps.kruise.io) wherever the"
              + " cluster serves them, looking again every 30s until it does"
              + " (STALLWATCH_ADVANCED_DAEMONSETS, false).")
  boolean advancedDaemonSets;

  @Option(
      names = "--daemonset-conditions",
      arity = "0..1",
      defaultValue = "${env:STALLWATCH_DAEMONSET_CONDITIONS:-false}",
      description =
          "While a rollout is stalled, set the DaemonSet's status condition Stalled=True (cause,"
              + " node, suspect), False once resolved: what Helm --wait, Flux, Argo CD and kubectl"
              + " wait read. Needs patch on daemonsets/status (STALLWATCH_DAEMONSET_CONDITIONS,"
              + " false).")
  boolean daemonSetConditions;

  /**
   * The cluster to work on; null: the kubeconfig or the in-cluster service account (tests set it).
   */
  Config config;

  /** The validated settings; a bad value becomes one clear usage error. */
  public OperatorSettings settings() {
    Set<String> ns = new LinkedHashSet<>();
    Arrays.stream(namespaces).map(String::trim).filter(s -> !s.isEmpty()).forEach(ns::add);
    List<String> allowlist =
        Arrays.stream(labelAllowlist)
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .distinct()
            .toList();
    try {
      return new OperatorSettings(
          ns,
          stallAfter,
          resolvedTtl,
          metricsPort,
          leaderElection,
          leaderElectionNamespace,
          autoRollback,
          autoRollbackAfter,
          new RoutingLabels(allowlist),
          advancedDaemonSets,
          daemonSetConditions);
    } catch (IllegalArgumentException e) {
      throw new ExitCodes.UserException(e.getMessage(), e);
    }
  }

  /** Connect timeout of the start-up check: an API server in reach answers in milliseconds. */
  static final int CHECK_CONNECT_TIMEOUT_MILLIS = 5_000;

  /** Request timeout of the start-up check. */
  static final int CHECK_REQUEST_TIMEOUT_MILLIS = 10_000;

  /**
   * Asks the API server for its version once, without retries: an unreachable server or rejected
   * credentials (401) then stop the operator within seconds. (The operator's own client retries
   * every request with backoff — right for a running operator, but at start-up it turned "no
   * cluster" into some 20 s of retries before JOSDK gave up.) Any other answer means the server is
   * there: a cluster that does not let us read {@code /version} may still let us watch.
   */
  static void checkReachable(Config config) {
    Config once =
        new ConfigBuilder(config)
            .withRequestRetryBackoffLimit(0)
            .withConnectionTimeout(CHECK_CONNECT_TIMEOUT_MILLIS)
            .withRequestTimeout(CHECK_REQUEST_TIMEOUT_MILLIS)
            // HTTP/1.1: kube-apiserver answers an unauthenticated HTTP/2 client with a GOAWAY
            // beside its 401 (its mitigation of HTTP/2 floods), which the JDK client reports as a
            // lost connection; over HTTP/1.1 the 401 itself arrives.
            .withHttp2Disable(true)
            .build();
    try (KubernetesClient check = new KubernetesClientBuilder().withConfig(once).build()) {
      check.getKubernetesVersion();
    } catch (KubernetesClientException e) {
      if (e.getCode() <= 0 || e.getCode() == 401) { // no HTTP answer, or rejected credentials
        throw e;
      }
    }
  }

  @Override
  public Integer call() throws IOException, InterruptedException {
    OperatorSettings settings = settings();
    try {
      LogSetup.apply(logLevel, logFormat);
    } catch (IllegalArgumentException e) {
      throw new ExitCodes.UserException(e.getMessage(), e);
    }
    HeapGuard.install();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Config clusterConfig = config != null ? config : Config.autoConfigure(null);
    KubernetesClient client = new KubernetesClientBuilder().withConfig(clusterConfig).build();
    StallwatchOperator[] operator = new StallwatchOperator[1];
    try (HealthEndpoint http =
        HealthEndpoint.start(
            settings.metricsPort(), registry, () -> operator[0] != null && operator[0].ready())) {
      log.info(
          "serving /metrics /healthz /readyz on port {}; watching {}",
          http.port(),
          settings.allNamespaces() ? "all namespaces" : settings.namespaces());
      try {
        checkReachable(clusterConfig);
        OperatorSettings checked = StartupCheck.run(client, settings);
        operator[0] =
            StallwatchOperator.start(client, checked, registry, StallwatchOperator.Timing.REAL);
      } catch (RuntimeException e) {
        if (HeapGuard.causedByOutOfMemory(e)) {
          // An informer's list ran out of heap (a JVM without -XX:+ExitOnOutOfMemoryError).
          String line =
              HeapGuard.outOfMemory(Runtime.getRuntime().maxMemory(), HeapGuard.holding());
          HeapGuard.terminationMessage(java.nio.file.Path.of(HeapGuard.TERMINATION_LOG), line);
          throw new ExitCodes.AccessException(line, null);
        }
        // JOSDK reports an informer that cannot list (403, no route) as "Error starting operator"
        // around an ExecutionException: say in one line what the cluster answered (exit 3).
        RuntimeException problem =
            ClusterOptions.clusterProblem(e, String.valueOf(client.getMasterUrl()));
        throw problem != null ? problem : e;
      }
      CountDownLatch stop = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    operator[0].close();
                    stop.countDown();
                  },
                  "stallwatch-shutdown"));
      operator[0].leadershipLost().thenRun(stop::countDown);
      stop.await();
      String lost = operator[0].leadershipLost().getNow(null);
      if (lost != null) {
        // The operator has stopped reconciling; a restarted container stands by for the Lease.
        throw new ExitCodes.AccessException(lost + "; exiting to restart as a standby", null);
      }
    } finally {
      client.close();
    }
    return ExitCodes.OK;
  }
}
