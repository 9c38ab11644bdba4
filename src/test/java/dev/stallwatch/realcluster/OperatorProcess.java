package dev.stallwatch.realcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code java -jar target/stallwatch.jar operator} as its own process, authenticated by a
 * kubeconfig (in these tests: a ServiceAccount token, so the chart's RBAC is what it gets). Stopped
 * by {@link #close()}, and by a shutdown hook should the test JVM exit first.
 */
public final class OperatorProcess implements AutoCloseable {
  public static final Path JAR = RealCluster.PROJECT.resolve("target/stallwatch.jar");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Process process;
  private final int metricsPort;
  private final Path log;
  private final Thread hook;

  private OperatorProcess(Process process, int metricsPort, Path log) {
    this.process = process;
    this.metricsPort = metricsPort;
    this.log = log;
    this.hook = new Thread(process::destroyForcibly);
    Runtime.getRuntime().addShutdownHook(hook);
    killWhenGone(ProcessHandle.current().pid(), process);
  }

  /**
   * Kills {@code child} once the process {@code owner} is gone: the shutdown hook does not run when
   * the test JVM is killed (failsafe's fork timeout sends SIGKILL), and an operator left behind
   * keeps writing into the next run's cluster. A shell loop beside the child, looking every 2 s; it
   * ends by itself when the child ends first.
   */
  static void killWhenGone(long owner, Process child) {
    long pid = child.pid();
    String loop =
        "while kill -0 %d 2>/dev/null && kill -0 %d 2>/dev/null; do sleep 2; done; kill -0 %d"
                .formatted(owner, pid, owner)
            + " 2>/dev/null || kill -9 %d 2>/dev/null".formatted(pid);
    try {
      new ProcessBuilder("sh", "-c", loop)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts the operator with {@code kubeconfig}, its log in {@code log}, and extra flags. */
  public static OperatorProcess start(Path kubeconfig, Path log, String podName, String... flags) {
    return start(kubeconfig, log, podName, List.of("-Xmx256m"), flags);
  }

  /** As {@link #start(Path, Path, String, String...)} with the JVM's own options (e.g. -Xmx). */
  public static OperatorProcess start(
      Path kubeconfig, Path log, String podName, List<String> jvmOptions, String... flags) {
    if (!Files.isRegularFile(JAR)) {
      throw new IllegalStateException(JAR + " is missing: run the ITs with ./mvnw verify");
    }
    return start(JAR, kubeconfig, log, podName, jvmOptions, flags);
  }

  /** As {@link #start(Path, Path, String, List, String...)} from another build's {@code jar}. */
  public static OperatorProcess start(
      Path jar,
      Path kubeconfig,
      Path log,
      String podName,
      List<String> jvmOptions,
      String... flags) {
    return start(jar, kubeconfig, log, podName, jvmOptions, null, flags);
  }

  /**
   * As {@link #start(Path, Path, Path, String, List, String...)}, inside {@code cgroup} (null:
   * none): the JVM then sizes itself by the cgroup's limit, as in the chart's pod.
   */
  public static OperatorProcess start(
      Path jar,
      Path kubeconfig,
      Path log,
      String podName,
      List<String> jvmOptions,
      MemoryCgroup cgroup,
      String... flags) {
    int port = freePort();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-jar");
    command.add(jar.toString());
    command.add("operator");
    command.add("--metrics-port=" + port);
    command.addAll(List.of(flags));
    ProcessBuilder pb =
        new ProcessBuilder(cgroup == null ? command : cgroup.wrap(command))
            .redirectErrorStream(true);
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    if (plainHttp(kubeconfig)) {
      // The embedded API server (plain HTTP) accepts the JDK client's h2c upgrade, then breaks
      // concurrent multi-megabyte answers on it (frames over the negotiated size): HTTP/1.1 there.
      // Over TLS (a real API server) the client negotiates HTTP/2 by ALPN, as in a cluster.
      pb.environment().put("HTTP2_DISABLE", "true"); // fabric8: system property http2.disable
    }
    pb.environment().put("POD_NAME", podName);
    pb.environment().remove("KUBERNETES_MASTER");
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    try {
      return new OperatorProcess(pb.start(), port, log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean plainHttp(Path kubeconfig) {
    try {
      return Files.readString(kubeconfig, StandardCharsets.UTF_8).contains("server: http://");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The chart release the operator ITs install with default values. */
  public static final ChartInstall DEFAULT_RELEASE =
      new ChartInstall("stallwatch", "stallwatch-system", java.util.Map.of());

  /** How long a node may hold a rollout back in these tests. */
  public static final String STALL_AFTER = "10s";

  /**
   * Installs the chart's default release and starts the operator as its ServiceAccount, logging to
   * {@code target/realcluster/NAME.log}; stall-after is {@link #STALL_AFTER} unless {@code flags}
   * give one.
   */
  public static OperatorProcess asChartServiceAccount(
      RealCluster cluster, String name, String... flags) {
    return asChartServiceAccount(cluster, DEFAULT_RELEASE, name, flags);
  }

  /**
   * As above, with the chart installed as {@code release} says (its values grant what it needs).
   */
  public static OperatorProcess asChartServiceAccount(
      RealCluster cluster, ChartInstall release, String name, String... flags) {
    release.install(cluster);
    Path kubeconfig =
        release.serviceAccountKubeconfig(cluster, cluster.dir().resolve(name + ".kubeconfig"));
    List<String> all = new ArrayList<>();
    if (Stream.of(flags).noneMatch(f -> f.startsWith("--stall-after"))) {
      all.add("--stall-after=" + STALL_AFTER);
    }
    all.addAll(List.of(flags));
    OperatorProcess operator =
        start(kubeconfig, cluster.dir().resolve(name + ".log"), name, all.toArray(String[]::new));
    org.awaitility.Awaitility.await("operator " + name + " ready")
        .atMost(Duration.ofMinutes(1))
        .until(() -> operator.ready() || !operator.alive());
    if (!operator.alive()) {
      throw new IllegalStateException("operator " + name + " exited:\n" + operator.output());
    }
    return operator;
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The loopback port of {@code /metrics}, {@code /healthz} and {@code /readyz}. */
  public int metricsPort() {
    return metricsPort;
  }

  public long pid() {
    return process.pid();
  }

  /** The exit code; waits up to 15 s for the process to end. */
  public int exitCode() {
    waitForExit();
    return process.exitValue();
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** {@code /readyz} answers 200. */
  public boolean ready() {
    return get("/readyz").code() == 200;
  }

  /** The text of {@code /metrics}; empty when the operator does not answer. */
  public String metrics() {
    Answer r = get("/metrics");
    return r.code() == 200 ? r.body() : "";
  }

  private record Answer(int code, String body) {}

  private Answer get(String path) {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + path))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), r.body());
    } catch (IOException e) {
      return new Answer(0, "");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer(0, "");
    }
  }

  /** The operator's output so far, for assertion messages. */
  public String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** SIGKILL, as a node failure or an OOM kill would end it. */
  public void kill() {
    process.destroyForcibly();
    waitForExit();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroy(); // SIGTERM: releases the Lease
      if (!waitFor(Duration.ofSeconds(15))) {
        process.destroyForcibly();
      }
    }
    waitForExit();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
  }

  private boolean waitFor(Duration d) {
    try {
      return process.waitFor(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void waitForExit() {
    if (!waitFor(Duration.ofSeconds(15))) {
      throw new IllegalStateException("operator process " + process.pid() + " did not exit");
    }
  }
}
