package dev.stallwatch.realcluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * kube-state-metrics (built by {@code ksm-build.sh}) as its own process against the scale run's
 * cluster, with its default resources, scraped by {@link #scrape()} as Prometheus would.
 */
final class KubeStateMetrics implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final ChildProcess process;
  private final int port;

  private KubeStateMetrics(ChildProcess process, int port) {
    this.process = process;
    this.port = port;
  }

  /** The pinned version, from versions.env. */
  static String version() {
    return RealCluster.pinned("KUBE_STATE_METRICS_VERSION");
  }

  /** The binary ksm-build.sh caches for the pinned version, or null when it is not built. */
  static Path built() {
    Path binary =
        RealCluster.cached("kube-state-metrics-" + version()).resolve("bin/kube-state-metrics");
    return Files.isExecutable(binary) ? binary : null;
  }

  static KubeStateMetrics start(Path binary, Path kubeconfig, Path log) {
    int port = OperatorProcess.freePort();
    int telemetry = OperatorProcess.freePort();
    return new KubeStateMetrics(
        ChildProcess.start(
            List.of(
                binary.toString(),
                "--kubeconfig=" + kubeconfig,
                "--host=127.0.0.1",
                "--port=" + port,
                "--telemetry-host=127.0.0.1",
                "--telemetry-port=" + telemetry),
            log),
        port);
  }

  /** host:port of its /metrics, as a scrape config names it. */
  String address() {
    return "127.0.0.1:" + port;
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.alive();
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
    process.close();
  }
}
