package dev.stallwatch.realcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * kube-state-metrics (built by {@code ksm-build.sh}) as its own process against the scale run's
 * cluster, with its default resources, scraped by {@link #scrape()} as Prometheus would.
 */
final class KubeStateMetrics implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Process process;
  private final int port;
  private final Thread hook;

  private KubeStateMetrics(Process process, int port) {
    this.process = process;
    this.port = port;
    this.hook = new Thread(process::destroyForcibly);
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** The pinned version, from versions.env. */
  static String version() {
    var versions = new java.util.Properties();
    try (var in = Files.newBufferedReader(RealCluster.SCRIPTS.resolve("versions.env"))) {
      versions.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return versions.getProperty("KUBE_STATE_METRICS_VERSION");
  }

  /** The binary ksm-build.sh caches for the pinned version, or null when it is not built. */
  static Path built() {
    String cache = System.getenv("STALLWATCH_REALCLUSTER_CACHE");
    Path root =
        cache != null && !cache.isBlank()
            ? Path.of(cache)
            : Path.of(System.getProperty("user.home"), ".cache/stallwatch/realcluster");
    Path binary = root.resolve("kube-state-metrics-" + version()).resolve("bin/kube-state-metrics");
    return Files.isExecutable(binary) ? binary : null;
  }

  static KubeStateMetrics start(Path binary, Path kubeconfig, Path log) {
    int port = OperatorProcess.freePort();
    int telemetry = OperatorProcess.freePort();
    ProcessBuilder pb =
        new ProcessBuilder(
                List.of(
                    binary.toString(),
                    "--kubeconfig=" + kubeconfig,
                    "--host=127.0.0.1",
                    "--port=" + port,
                    "--telemetry-host=127.0.0.1",
                    "--telemetry-port=" + telemetry))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    try {
      return new KubeStateMetrics(pb.start(), port);
    } catch (IOException e) {
      throw new UncheckedIOException("starting " + binary, e);
    }
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** The whole /metrics text; empty when it does not answer (yet). */
  String scrape() {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                  .timeout(Duration.ofMinutes(1))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? r.body() : "";
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
  }

  /**
   * When the kubernetes-mixin alert {@code KubeDaemonSetRolloutStuck} would fire for one DaemonSet,
   * from its scraped series: its condition ((current != desired) or (misscheduled != 0) or (updated
   * != desired) or (available != desired)) and {@code changes(updated[5m]) == 0}, held for {@code
   * for: 15m}. {@code changes()} stops seeing the last change of {@code updated} once the sample
   * before it has left the 5-minute window. Assumes the series keep their last scraped values (a
   * stalled pod's ImagePullBackOff is final); null when the condition is false at the last scrape.
   *
   * @param scrapes the DaemonSet's series per scrape, in time order
   */
  static java.time.Instant stuckAlertFiresAt(List<DaemonSetSeries> scrapes) {
    if (scrapes.isEmpty() || !scrapes.get(scrapes.size() - 1).unfinished()) {
      return null;
    }
    java.time.Instant windowFrom = scrapes.get(0).at(); // no change seen: from the first scrape
    for (int i = 1; i < scrapes.size(); i++) {
      if (scrapes.get(i).updated() != scrapes.get(i - 1).updated()) {
        windowFrom = scrapes.get(i - 1).at();
      }
    }
    return windowFrom.plus(Duration.ofMinutes(5)).plus(Duration.ofMinutes(15));
  }

  /** The kube_daemonset_status_* values of one DaemonSet in one scrape. */
  record DaemonSetSeries(
      java.time.Instant at,
      double desired,
      double current,
      double updated,
      double available,
      double misscheduled) {
    boolean unfinished() {
      return current != desired || misscheduled != 0 || updated != desired || available != desired;
    }

    /** The series of {@code daemonSet} in namespace {@code ns} in a scrape; null when absent. */
    static DaemonSetSeries of(String text, java.time.Instant at, String ns, String daemonSet) {
      double[] v = new double[5];
      String[] names = {
        "desired_number_scheduled",
        "current_number_scheduled",
        "updated_number_scheduled",
        "number_available",
        "number_misscheduled"
      };
      for (int i = 0; i < names.length; i++) {
        v[i] = Double.NaN;
        for (PromText.Sample s : PromText.samples(text, "kube_daemonset_status_" + names[i])) {
          if (ns.equals(s.label("namespace")) && daemonSet.equals(s.label("daemonset"))) {
            v[i] = s.value();
          }
        }
        if (Double.isNaN(v[i])) {
          return null;
        }
      }
      return new DaemonSetSeries(at, v[0], v[1], v[2], v[3], v[4]);
    }
  }
}
