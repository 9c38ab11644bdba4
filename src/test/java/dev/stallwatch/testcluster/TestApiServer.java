package dev.stallwatch.testcluster;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.embedded.EmbeddedApiServer;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * The embedded API server ({@link EmbeddedApiServer}: fabric8's mock in CRUD mode, with discovery,
 * so kubectl works too) started for one test with the RolloutStall CRD preloaded, plus a kubeconfig
 * with two contexts that points the CLI at it, and the reads tests make of what the operator wrote.
 * The one wrapper every embedded-tier test starts its server through (only the server's own tests
 * construct {@link EmbeddedApiServer} directly). Fault injection goes through {@link
 * #mockServer()}.
 */
public final class TestApiServer implements AutoCloseable {

  private final EmbeddedApiServer server;

  /** On the wall clock. */
  public TestApiServer() {
    this(Clock.systemUTC());
  }

  /** Stamping creation and deletion times from {@code clock} (e.g. a virtual {@code SimClock}). */
  public TestApiServer(Clock clock) {
    server = new EmbeddedApiServer(clock, Path.of("crd")).start();
  }

  /** The server's shared client. */
  public KubernetesClient client() {
    return server.client();
  }

  /** A client of its own (an operator under test closes its client when it stops). */
  public KubernetesClient newClient() {
    return server.newClient();
  }

  /** Serves {@code crd}'s resources from now on (as creating it on an API server does). */
  public void loadCrd(CustomResourceDefinition crd) {
    server.loadCrd(crd);
  }

  /** The RolloutStalls in {@code namespace}. */
  public List<RolloutStall> stalls(String namespace) {
    return client().resources(RolloutStall.class).inNamespace(namespace).list().getItems();
  }

  /** The namespace's Active stall, or null. */
  public RolloutStall active(String namespace) {
    return stalls(namespace).stream()
        .filter(s -> s.getStatus() != null && s.getStatus().active())
        .findFirst()
        .orElse(null);
  }

  /** The Events with {@code reason} about the object {@code name} in {@code namespace}. */
  public List<Event> events(String namespace, String name, String reason) {
    return client().v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  /** For fault injection: {@code mockServer().expect()…} answers before the CRUD store. */
  public KubernetesMockServer mockServer() {
    return server.mockServer();
  }

  /**
   * The store's answer to a GET of {@code path}, without HTTP ({@link EmbeddedApiServer#stored}).
   */
  public String stored(String path) {
    return server.stored(path);
  }

  public String url() {
    return server.url();
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
    try {
      server.close();
    } catch (RejectedExecutionException e) {
      // The mock's vert.x event loop can already be shut down when its server stops right after
      // starting (seen in fast tests); the server is stopped either way.
    }
  }
}
