package dev.stallwatch.operator;

import dev.stallwatch.cluster.EmbeddedApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;

/** The embedded API server with the RolloutStall CRD preloaded (from the jar's crd/ folder). */
final class TestingCluster implements AutoCloseable {
  final EmbeddedApiServer server;
  final KubernetesClient client;

  TestingCluster() {
    server = new EmbeddedApiServer().start();
    client = server.client();
  }

  @Override
  public void close() {
    server.close();
  }
}
