package dev.stallwatch.embedded;

import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.api.model.NamedContextBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Kubernetes API server for tests and the demo, in this process: fabric8's {@link
 * KubernetesMockServer} in CRUD mode on 127.0.0.1 over plain HTTP, fronted by {@link ApiFront} so
 * that real {@code kubectl} and fabric8 informers work against it. It has no controllers, no
 * admission, no garbage collection and no schema validation (see docs/embedded-cluster.md).
 *
 * <pre>{@code
 * try (EmbeddedApiServer api = new EmbeddedApiServer().start()) {
 *   api.writeKubeconfig(Path.of("kubeconfig"));
 *   api.client().nodes().resource(node).create();
 * }
 * }</pre>
 *
 * <p>CRDs in the classpath folder {@code crd/} and in the directory {@code crd/} are created on
 * start, which gives their resources discovery, printer columns and status-subresource semantics.
 */
public final class EmbeddedApiServer implements AutoCloseable {

  /** The Kubernetes version {@code /version} reports. */
  public static final String KUBERNETES_VERSION = "v1.32.0";

  private static final String CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

  // The mock web server logs every request at INFO through java.util.logging; keep the logger
  // referenced so the quieter level sticks.
  private static final java.util.logging.Logger REQUEST_LOG =
      java.util.logging.Logger.getLogger(MockWebServer.class.getName());

  static {
    REQUEST_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  private final Clock clock;
  private final Path crdDirectory;
  private final Map<ServerRequest, Queue<ServerResponse>> expectations = new ConcurrentHashMap<>();
  private final ClockedStore store;
  private KubernetesMockServer server;
  private KubernetesClient client;

  /**
   * A server that preloads CRDs from the classpath and from {@code ./crd}, with the system clock.
   */
  public EmbeddedApiServer() {
    this(Clock.systemUTC(), Path.of("crd"));
  }

  /**
   * @param clock the clock table ages are computed against
   * @param crdDirectory directory whose CRD files are preloaded (may be absent)
   */
  public EmbeddedApiServer(Clock clock, Path crdDirectory) {
    this.clock = clock;
    this.crdDirectory = crdDirectory;
    this.store = new ClockedStore(expectations, clock);
  }

  /** Starts on a free port. */
  public EmbeddedApiServer start() {
    return start(0);
  }

  /**
   * Starts on {@code port} (0 picks a free one) and preloads the CRDs. A fixed port plus {@link
   * #writeKubeconfig} keeps a server reachable for a person ({@code demo --serve}).
   *
   * @throws IllegalStateException when already started or the port cannot be bound
   */
  public EmbeddedApiServer start(int port) {
    if (server != null) {
      throw new IllegalStateException("embedded API server already started at " + url());
    }
    ResourceCatalog catalog = new ResourceCatalog(this::storedCrds);
    ApiFront front =
        new ApiFront(store, catalog, () -> "127.0.0.1:" + port(), clock, versionJson());
    server =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            expectations,
            front,
            false);
    try {
      server.start(loopback(), port);
    } catch (RuntimeException e) {
      server = null;
      throw new IllegalStateException(
          "cannot start the embedded API server on 127.0.0.1:" + port + " (port in use?)", e);
    }
    client = newClient();
    try {
      new CrdFiles().load(getClass().getClassLoader(), crdDirectory).forEach(this::loadCrd);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    return this;
  }

  /** Base URL, such as {@code http://127.0.0.1:41234}. */
  public String url() {
    return "http://127.0.0.1:" + port();
  }

  public int port() {
    return started().getPort();
  }

  /** A fabric8 client (JDK HTTP client) for this server, namespace {@code default}. */
  public KubernetesClient client() {
    started();
    return client;
  }

  /** A new client for this server; the caller closes it. */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder()
        .withConfig(config())
        .withHttpClientFactory(new JdkHttpClientFactory())
        .build();
  }

  /** The underlying mock server, to add fault-injection expectations ({@code expect()}). */
  public KubernetesMockServer mockServer() {
    return started();
  }

  /**
   * Creates (or replaces) a CRD in the store: from then on discovery announces its resources,
   * {@code kubectl get} shows its printer columns and its status subresource behaves as such.
   */
  public void loadCrd(CustomResourceDefinition crd) {
    CustomResourceDefinition copy = new KubernetesSerialization().clone(crd);
    copy.getMetadata().setResourceVersion(null);
    client()
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .resource(copy)
        .createOr(c -> c.update());
  }

  /**
   * Writes a kubeconfig with one context, {@code stallwatch-embedded}, pointing at this server.
   *
   * @return the file written
   */
  public Path writeKubeconfig(Path file) {
    String yaml =
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: stallwatch-embedded",
            "  cluster:",
            "    server: " + url(),
            "contexts:",
            "- name: stallwatch-embedded",
            "  context:",
            "    cluster: stallwatch-embedded",
            "    user: stallwatch-embedded",
            "    namespace: default",
            "current-context: stallwatch-embedded",
            "users:",
            "- name: stallwatch-embedded",
            "  user: {}",
            "");
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      return Files.writeString(file, yaml, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write kubeconfig " + file + ": " + e.getMessage(), e);
    }
  }

  /** Stops the server and closes the client; safe to call twice. */
  @Override
  public void close() {
    if (client != null) {
      client.close();
      client = null;
    }
    if (server != null) {
      server.shutdown();
      server = null;
    }
  }

  private Config config() {
    NamedContext context =
        new NamedContextBuilder()
            .withName("stallwatch-embedded")
            .withNewContext()
            .withCluster("stallwatch-embedded")
            .withNamespace("default")
            .endContext()
            .build();
    return new ConfigBuilder(Config.empty())
        .withMasterUrl(url())
        .withNamespace("default")
        .withHttp2Disable(true)
        .withContexts(context)
        .withCurrentContext(context)
        .build();
  }

  private List<CustomResourceDefinition> storedCrds() {
    String body = stored(CRD_PATH);
    return body == null
        ? List.of()
        : Serialization.unmarshal(body, CustomResourceDefinitionList.class).getItems();
  }

  /**
   * What the store answers a GET of {@code path} (a list or an object), read in this process
   * without HTTP — so also from within an expectation's answer, which runs on the server's own
   * thread; null unless it answers 200.
   */
  public String stored(String path) {
    RecordedRequest get =
        new RecordedRequest(
            "HTTP/1.1", HttpMethod.GET, path, Headers.builder().build(), new Buffer());
    MockResponse response = store.dispatch(get);
    if (response == null || response.code() != 200 || response.getBody() == null) {
      return null;
    }
    return new String(response.getBody().getBytes(), StandardCharsets.UTF_8);
  }

  private String versionJson() {
    String minor = KUBERNETES_VERSION.split("\\.")[1];
    return "{\"major\":\"1\",\"minor\":\""
        + minor
        + "\",\"gitVersion\":\""
        + KUBERNETES_VERSION
        + "+stallwatch-embedded\",\"gitCommit\":\"\",\"gitTreeState\":\"clean\","
        + "\"buildDate\":\"2026-01-01T00:00:00Z\",\"goVersion\":\"\",\"compiler\":\"\","
        + "\"platform\":\"linux/amd64\"}";
  }

  private KubernetesMockServer started() {
    if (server == null) {
      throw new IllegalStateException("embedded API server is not started");
    }
    return server;
  }

  private static InetAddress loopback() {
    try {
      return InetAddress.getByName("127.0.0.1");
    } catch (UnknownHostException e) {
      throw new IllegalStateException("no 127.0.0.1", e);
    }
  }
}
