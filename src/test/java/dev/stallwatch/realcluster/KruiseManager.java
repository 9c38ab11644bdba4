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
 * OpenKruise's kruise-manager (built by {@code kruise-build.sh}) against a real cluster, as its
 * Helm chart would run it but on loopback: kruise's CRDs installed, its webhook configurations
 * named as its chart names them, and its own webhook controller filling them in URL mode ({@code
 * WEBHOOK_HOST=127.0.0.1}: the API server calls the webhook server at {@code https://127.0.0.1}
 * with the CA kruise generates into a folder). So defaulting, validation and the v1alpha1 ⇄ v1beta1
 * conversion of Advanced DaemonSets are kruise's own. kruise-daemon (image pulls and in-place
 * container restarts on real nodes) is not run: kwok plays the kubelets.
 *
 * <p>{@link #close()} deletes the webhook configurations before it stops the manager, so the
 * cluster's pod writes never wait on a webhook that is gone.
 */
final class KruiseManager implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  static final String NAMESPACE = "kruise-system";
  static final List<String> WEBHOOK_CONFIGURATIONS =
      List.of(
          "mutatingwebhookconfiguration/kruise-mutating-webhook-configuration",
          "validatingwebhookconfiguration/kruise-validating-webhook-configuration");

  private final RealCluster cluster;
  private final ChildProcess process;
  private final int health;

  private KruiseManager(RealCluster cluster, ChildProcess process, int health) {
    this.cluster = cluster;
    this.process = process;
    this.health = health;
  }

  /** The pinned version, from versions.env. */
  static String version() {
    return RealCluster.pinned("KRUISE_VERSION");
  }

  /** The folder kruise-build.sh caches for the pinned version, or null when it is not built. */
  static Path built() {
    Path dir = RealCluster.cached("kruise-" + version());
    return Files.isExecutable(dir.resolve("bin/kruise-manager"))
            && Files.isDirectory(dir.resolve("crd"))
            && Files.isDirectory(dir.resolve("webhook"))
        ? dir
        : null;
  }

  /**
   * Installs kruise's CRDs and webhook configurations and starts the manager; waits until ready.
   */
  static KruiseManager start(RealCluster cluster, Path dir) {
    cluster.kubectl("apply", "--server-side", "-f", dir.resolve("crd").toString()).ok();
    cluster
        .kubectl(
            "wait", "--for=condition=Established", "crd/daemonsets.apps.kruise.io", "--timeout=60s")
        .ok();
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
    int webhook = OperatorProcess.freePort();
    int metrics = OperatorProcess.freePort();
    int health = OperatorProcess.freePort();
    Path certs = cluster.dir().resolve("kruise-certs");
    List<String> command =
        List.of(
            "env",
            "KUBECONFIG=" + cluster.kubeconfig(),
            "POD_NAMESPACE=" + NAMESPACE,
            "WEBHOOK_HOST=127.0.0.1",
            "WEBHOOK_PORT=" + webhook,
            "WEBHOOK_CERT_DIR=" + certs,
            dir.resolve("bin/kruise-manager").toString(),
            "--enable-leader-election=false",
            "--metrics-addr=127.0.0.1:" + metrics,
            "--health-probe-addr=127.0.0.1:" + health,
            "--enable-pprof=false",
            "--v=2");
    ChildProcess process =
        ChildProcess.start(command, cluster.logs().resolve("kruise-manager.log"));
    KruiseManager manager = new KruiseManager(cluster, process, health);
    try {
      org.awaitility.Awaitility.await("kruise-manager ready")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> manager.ready() || !process.alive());
      if (!process.alive()) {
        throw new IllegalStateException(
            "kruise-manager exited: " + cluster.logTail("kruise-manager", 20));
      }
    } catch (RuntimeException e) {
      manager.close();
      throw e;
    }
    return manager;
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

  boolean alive() {
    return process.alive();
  }

  @Override
  public void close() {
    for (String configuration : WEBHOOK_CONFIGURATIONS) {
      cluster.kubectl("delete", configuration, "--ignore-not-found");
    }
    process.close();
  }
}
