package dev.stallwatch.realcluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * Holds the one seat of an API Priority and Fairness level for as long as a test wants: a request
 * of that level (a ConfigMap create by {@code kubeconfig}'s user) waits in a validating admission
 * webhook served here until {@link #release()}. APF counts a request's seat until its handler
 * returns, admission included, so every other request of the level is refused with 429 meanwhile —
 * every time, not only when another client happens to be running. The webhook serves the API
 * server's own certificate (its SAN has 127.0.0.1; the cluster CA signs it) and only matches
 * ConfigMaps labelled {@value #LABEL}.
 */
final class SeatHolder implements AutoCloseable {
  static final String WEBHOOK = "stallwatch-throttle-hold";
  static final String LABEL = "stallwatch.dev/throttle-hold";

  /** The longest an API server waits for a webhook is 30 s. */
  static final Duration LONGEST = Duration.ofSeconds(28);

  private static final ObjectMapper JSON = new ObjectMapper();

  private final RealCluster cluster;
  private final HttpsServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);
  private final AtomicInteger held = new AtomicInteger();

  private SeatHolder(RealCluster cluster) throws IOException, GeneralSecurityException {
    this.cluster = cluster;
    server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls(cluster.dir().resolve("pki"))));
    server.createContext("/hold", this::hold);
    server.setExecutor(threads);
    server.start();
  }

  /** Serves the webhook and registers it with the API server. */
  static SeatHolder start(RealCluster cluster) throws IOException, GeneralSecurityException {
    SeatHolder holder = new SeatHolder(cluster);
    String caBundle =
        Base64.getEncoder().encodeToString(Files.readAllBytes(cluster.dir().resolve("pki/ca.crt")));
    cluster
        .kubectlWithInput(
            """
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingWebhookConfiguration
            metadata:
              name: %s
            webhooks:
              - name: hold.throttle.stallwatch.dev
                clientConfig:
                  url: https://127.0.0.1:%d/hold
                  caBundle: %s
                rules:
                  - operations: ["CREATE"]
                    apiGroups: [""]
                    apiVersions: ["v1"]
                    resources: ["configmaps"]
                objectSelector:
                  matchLabels:
                    %s: "true"
                sideEffects: None
                admissionReviewVersions: ["v1"]
                timeoutSeconds: 30
                failurePolicy: Ignore
            """
                .formatted(WEBHOOK, holder.server.getAddress().getPort(), caBundle, LABEL),
            "apply",
            "-f",
            "-")
        .ok();
    return holder;
  }

  /**
   * Sends the holding request as {@code kubeconfig}'s user into {@code namespace} and returns once
   * it waits in the webhook, i.e. holds its level's seat. A create refused with 429 (another
   * request of the level was running) is sent again.
   */
  void take(Path kubeconfig, String namespace) throws IOException, InterruptedException {
    Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
    config.setRequestRetryBackoffLimit(0);
    config.setRequestTimeout((int) LONGEST.plusSeconds(30).toMillis());
    threads.execute(
        () -> {
          try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            // Until the API server has loaded the webhook, a create is not held: create again.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(25);
            for (int attempt = 0;
                entered.getCount() > 0 && System.nanoTime() < deadline;
                attempt++) {
              try {
                client
                    .configMaps()
                    .inNamespace(namespace)
                    .resource(
                        new ConfigMapBuilder()
                            .withNewMetadata()
                            .withName("throttle-hold-" + attempt)
                            .addToLabels(LABEL, "true")
                            .endMetadata()
                            .build())
                    .create();
              } catch (KubernetesClientException refused) {
                // 429 while another request of the level ran: try again
              }
            }
          }
        });
    if (!entered.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(
          "no request reached webhook " + WEBHOOK + " within 30 s: the seat is not held");
    }
  }

  /** How many requests the webhook held (one per seat taken). */
  int held() {
    return held.get();
  }

  /** Lets the held request finish: the seat is free again. */
  void release() {
    released.countDown();
  }

  @Override
  public void close() {
    release();
    try {
      cluster
          .kubectl("delete", "--ignore-not-found", "validatingwebhookconfiguration/" + WEBHOOK)
          .ok();
    } finally {
      server.stop(0);
      threads.shutdownNow();
    }
  }

  private void hold(HttpExchange exchange) throws IOException {
    try (exchange) {
      JsonNode review = JSON.readTree(exchange.getRequestBody());
      held.incrementAndGet();
      entered.countDown();
      try {
        released.await(LONGEST.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      byte[] answer =
          JSON.writeValueAsBytes(
              JSON.createObjectNode()
                  .put("apiVersion", "admission.k8s.io/v1")
                  .put("kind", "AdmissionReview")
                  .set(
                      "response",
                      JSON.createObjectNode()
                          .put("uid", review.path("request").path("uid").asText())
                          .put("allowed", true)));
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, answer.length);
      exchange.getResponseBody().write(answer);
    }
  }

  /** TLS with the API server's serving certificate and key (PKCS#8 PEM, as openssl 3 writes). */
  private static SSLContext tls(Path pki) throws IOException, GeneralSecurityException {
    Certificate certificate;
    try (InputStream in = Files.newInputStream(pki.resolve("apiserver.crt"))) {
      certificate = CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    String pem = Files.readString(pki.resolve("apiserver.key"), StandardCharsets.US_ASCII);
    if (!pem.contains("BEGIN PRIVATE KEY")) {
      throw new IllegalStateException(pki.resolve("apiserver.key") + " is not a PKCS#8 PEM key");
    }
    String body = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    PrivateKey key =
        KeyFactory.getInstance("RSA")
            .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
    char[] password = "seat".toCharArray();
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry("apiserver", key, password, new Certificate[] {certificate});
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, password);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    return context;
  }
}
