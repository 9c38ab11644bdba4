package dev.stallwatch.testcluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An in-process API server for tests: fabric8's mock server in CRUD mode with expectations layered
 * on top (for 403s and other faults), plus a kubeconfig that points the CLI at it.
 */
public final class TestApiServer implements AutoCloseable {

  private final Map<ServerRequest, Queue<ServerResponse>> expectations = new ConcurrentHashMap<>();
  private final KubernetesMockServer server;
  private final KubernetesClient client;

  public TestApiServer() {
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            expectations,
            new KubernetesMixedDispatcher(expectations),
            false);
    server.init();
    client = server.createClient();
  }

  public KubernetesClient client() {
    return client;
  }

  /** For fault injection: {@code mockServer().expect()…}. */
  public KubernetesMockServer mockServer() {
    return server;
  }

  public String url() {
    return "http://" + server.getHostName() + ":" + server.getPort();
  }

  /** Writes a kubeconfig with context {@code test} (namespace {@code default}) to {@code file}. */
  public Path writeKubeconfig(Path file) {
    return writeKubeconfig(file, url());
  }

  /** A kubeconfig pointing at any {@code server} URL (e.g. one nobody listens on). */
  public static Path writeKubeconfig(Path file, String server) {
    String yaml =
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: test",
            "  cluster:",
            "    server: " + server,
            "contexts:",
            "- name: test",
            "  context:",
            "    cluster: test",
            "    user: test",
            "    namespace: default",
            "- name: other",
            "  context:",
            "    cluster: test",
            "    user: test",
            "    namespace: other-ns",
            "current-context: test",
            "users:",
            "- name: test",
            "  user: {}",
            "");
    try {
      return Files.writeString(file, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
