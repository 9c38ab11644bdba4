package dev.stallwatch.operator;

import dev.stallwatch.cluster.EmbeddedApiServer;
import dev.stallwatch.crd.RolloutStall;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/** The embedded API server with the RolloutStall CRD preloaded (from the jar's crd/ folder). */
final class TestingCluster implements AutoCloseable {
  final EmbeddedApiServer server;
  final KubernetesClient client;

  TestingCluster() {
    this(Clock.systemUTC());
  }

  /** Stamping creation and deletion times from {@code clock} (a test's virtual clock). */
  TestingCluster(Clock clock) {
    server = new EmbeddedApiServer(clock, Path.of("crd")).start();
    client = server.client();
  }

  List<RolloutStall> stalls(String namespace) {
    return client.resources(RolloutStall.class).inNamespace(namespace).list().getItems();
  }

  /** The namespace's Active stall, or null. */
  RolloutStall active(String namespace) {
    return stalls(namespace).stream()
        .filter(s -> s.getStatus() != null && s.getStatus().active())
        .findFirst()
        .orElse(null);
  }

  /** The Events with {@code reason} about the object {@code name} in {@code namespace}. */
  List<Event> events(String namespace, String name, String reason) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  @Override
  public void close() {
    server.close();
  }
}
