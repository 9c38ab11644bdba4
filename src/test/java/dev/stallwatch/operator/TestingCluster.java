package dev.stallwatch.operator;

import dev.stallwatch.operator.crd.RolloutStall;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.InputStream;
import java.util.HashMap;

/** An in-process API server (fabric8 mock, CRUD mode) with the RolloutStall CRD installed. */
final class TestingCluster implements AutoCloseable {
  final KubernetesMockServer server;
  final KubernetesClient client;

  TestingCluster() {
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    server.init();
    client = server.createClient();
    try (InputStream crd =
        RolloutStall.class.getClassLoader().getResourceAsStream(RolloutStall.CRD_RESOURCE)) {
      client
          .resource(
              client.getKubernetesSerialization().unmarshal(crd, CustomResourceDefinition.class))
          .create();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
