package dev.stallwatch.realcluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * OpenKruise's kruise-manager (built by {@code kruise-build.sh}) as a child process against a real
 * cluster, on loopback, with the cluster's admin kubeconfig and leader election off, as its Helm
 * chart would run it: every kruise CRD (the manager exits without ImagePullJob's, and loses 16 s of
 * discovery retries per kind it does not find), its webhook configurations filled in by its own
 * webhook controller in URL mode ({@code WEBHOOK_HOST=127.0.0.1}: the API server calls {@code
 * https://127.0.0.1:PORT} with the CA kruise generates into a folder), so defaulting and validation
 * of Advanced DaemonSets are kruise's own. Its base CRDs carry no conversion webhook (its chart
 * patches one in): v1alpha1 reads of a v1beta1 object only get their apiVersion rewritten.
 *
 * <p>The manager serves its webhook server: it starts its controllers only once its own readiness
 * check reaches {@code https://localhost:PORT/healthz} with the CA it wrote. That server listens on
 * all interfaces on a free port (kruise's main.go hard-codes host 0.0.0.0); metrics and health
 * probes are on 127.0.0.1, pprof is off. kruise-daemon (image pre-pulls, in-place container
 * restarts on real nodes) is not run: kwok plays the kubelets.
 *
 * <p>The process is stopped by {@link #close()}, by {@link ChildProcess}'s shutdown hook, and —
 * when the test JVM is killed without running hooks — by a watchdog beside it, so a manager left
 * behind never writes into the next run's cluster. {@link #close()} deletes the webhook
 * configurations before it stops the manager, so the cluster's writes never wait on a webhook that
 * is gone.
 */
final class KruiseManager implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  static final String NAMESPACE = "kruise-system";
  static final String MUTATING = "kruise-mutating-webhook-configuration";
  static final String VALIDATING = "kruise-validating-webhook-configuration";
  static final List<String> WEBHOOK_CONFIGURATIONS =
      List.of(
          "mutatingwebhookconfiguration/" + MUTATING,
          "validatingwebhookconfiguration/" + VALIDATING);

  /** The CRD of Advanced DaemonSets, as kruise-build.sh copies it from config/crd/bases. */
  static final String DAEMONSET_CRD = "apps.kruise.io_daemonsets.yaml";

  /** The log line controller-runtime writes once the Advanced DaemonSet controller runs. */
  private static final String DAEMONSET_WORKERS = "\"daemonset-controller\"";

  private final RealCluster cluster;
  private final ChildProcess process;
  private final int health;
  private final Path log;

  private KruiseManager(RealCluster cluster, ChildProcess process, int health, Path log) {
    this.cluster = cluster;
    this.process = process;
    this.health = health;
    this.log = log;
  }

  /** The pinned version, from versions.env. */
  static String version() {
    return RealCluster.pinned("KRUISE_VERSION");
  }

  /** The folder kruise-build.sh caches for the pinned version, or null when it is not built. */
  static Path built() {
    ToolBuilds.await("kruise-build.sh");
    Path dir = RealCluster.cached("kruise-" + version());
    return Files.isExecutable(dir.resolve("bin/kruise-manager"))
            && Files.isRegularFile(dir.resolve("crd").resolve(DAEMONSET_CRD))
            && Files.isDirectory(dir.resolve("webhook"))
        ? dir
        : null;
  }

  /**
   * Installs kruise's CRDs and webhook configurations and starts the manager; waits until ready.
   */
  static KruiseManager start(RealCluster cluster, Path dir) {
    cluster.kubectl("apply", "--server-side", "-f", dir.resolve("crd").toString()).ok();
    establish(cluster);
    cluster
        .kubectlWithInput(
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + NAMESPACE + "\n",
            "apply",
            "-f",
            "-")
        .ok();
    cluster
        .kubectlWithInput(
            webhookConfigurations(dir.resolve("webhook/manifests.yaml")), "apply", "-f", "-")
        .ok();
    return launch(cluster, dir, "kruise-manager");
  }

  private static void establish(RealCluster cluster) {
    cluster
        .kubectl(
            "wait", "--for=condition=Established", "crd/daemonsets.apps.kruise.io", "--timeout=60s")
        .ok();
  }

  /**
   * Starts the manager and waits for its readyz: its webhook controller initialised (certificates
   * written, webhook configurations updated) and its webhook server answering.
   */
  private static KruiseManager launch(RealCluster cluster, Path dir, String name, String... flags) {
    int webhook = OperatorProcess.freePort();
    int metrics = OperatorProcess.freePort();
    int health = OperatorProcess.freePort();
    Path certs = cluster.dir().resolve(name + "-certs");
    Path protectionLog = cluster.logs().resolve(name + "-protection");
    Path log = cluster.logs().resolve(name + ".log");
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            "env",
            // the cluster's admin: kruise's chart grants its ServiceAccount about as much
            "KUBECONFIG=" + cluster.kubeconfig(),
            // where kruise looks for its Secret and Service; nothing of it is created in URL mode
            "POD_NAMESPACE=" + NAMESPACE,
            // URL mode: certificates in WEBHOOK_CERT_DIR (no Secret, no Service); webhook and
            // conversion URLs https://127.0.0.1:PORT; its certificate names localhost too
            "WEBHOOK_HOST=127.0.0.1",
            "WEBHOOK_PORT=" + webhook,
            "WEBHOOK_CERT_DIR=" + certs,
            dir.resolve("bin/kruise-manager").toString(),
            "--enable-leader-election=false",
            "--metrics-addr=127.0.0.1:" + metrics,
            "--health-probe-addr=127.0.0.1:" + health,
            "--enable-pprof=false",
            // default /log: the manager would create it at the file system's root
            "--protection-log-path=" + protectionLog,
            "--v=2"));
    command.addAll(List.of(flags));
    ChildProcess process = ChildProcess.start(command, log);
    killWhenGone(ProcessHandle.current().pid(), process.pid());
    KruiseManager manager = new KruiseManager(cluster, process, health, log);
    try {
      org.awaitility.Awaitility.await(name + " ready")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> manager.ready() || !process.alive());
      manager.checkAlive();
      // readyz does not wait for the controllers, which start once the webhook is ready.
      org.awaitility.Awaitility.await(name + "'s DaemonSet controller running")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> manager.daemonSetControllerRunning() || !process.alive());
      manager.checkAlive();
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
    return manager;
  }

  /**
   * As {@link OperatorProcess#killWhenGone}: a shell loop beside the manager SIGKILLs it once the
   * test JVM is gone (failsafe's fork timeout sends SIGKILL, and shutdown hooks do not run then).
   */
  private static void killWhenGone(long owner, long pid) {
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

  /** Kruise's webhook configurations as its chart names them (its kustomize prefix "kruise-"). */
  private static String webhookConfigurations(Path manifests) {
    List<String> docs = new ArrayList<>();
    try (InputStream in = Files.newInputStream(manifests)) {
      Object parsed = Serialization.unmarshal(in);
      List<?> items = parsed instanceof List<?> l ? l : List.of(parsed);
      for (Object o : items) {
        HasMetadata object = (HasMetadata) o;
        object.getMetadata().setName("kruise-" + object.getMetadata().getName());
        docs.add(Serialization.asYaml(object));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return String.join("\n", docs);
  }

  /** Its readyz (the webhook server up and the configurations written): 200. */
  boolean ready() {
    try {
      HttpResponse<Void> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + health + "/readyz"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Its log says the Advanced DaemonSet controller's workers run: controllers start only after the
   * webhook is ready, and readyz does not wait for them.
   */
  boolean daemonSetControllerRunning() {
    return output()
        .lines()
        .anyMatch(l -> l.contains("Starting workers") && l.contains(DAEMONSET_WORKERS));
  }

  boolean alive() {
    return process.alive();
  }

  private void checkAlive() {
    if (!process.alive()) {
      List<String> lines = output().lines().toList();
      throw new IllegalStateException(
          "kruise-manager exited:\n"
              + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())));
    }
  }

  long pid() {
    return process.pid();
  }

  /** The manager's log so far. */
  String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    for (String configuration : WEBHOOK_CONFIGURATIONS) {
      cluster.kubectl("delete", configuration, "--ignore-not-found");
    }
    process.close();
  }
}
