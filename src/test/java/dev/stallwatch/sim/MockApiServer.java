package dev.stallwatch.sim;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.util.HashMap;
import java.util.List;

/** A fresh fabric8 mock API server in CRUD mode and a client on it, for one test. */
final class MockApiServer implements AutoCloseable {

  /** The mock logs every request through java.util.logging; held so the level sticks. */
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  static {
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  final KubernetesMockServer server;
  final KubernetesClient client;

  MockApiServer() {
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(List.of()),
            false);
    server.init();
    client = server.createClient();
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
