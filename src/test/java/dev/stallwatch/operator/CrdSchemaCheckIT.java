package dev.stallwatch.operator;

import static dev.stallwatch.operator.CrdSchemaCheckTest.OLD;
import static dev.stallwatch.operator.CrdSchemaCheckTest.crd;
import static dev.stallwatch.operator.CrdSchemaCheckTest.withGvk;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stallwatch.cli.ExitCodes;
import dev.stallwatch.crd.RolloutStall;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** {@link CrdSchemaCheck#run} against a server that publishes (or not) the group's OpenAPI. */
@EnableKubernetesMockClient
class CrdSchemaCheckIT {
  KubernetesMockServer server;
  KubernetesClient client;

  @Test
  void anOlderServedCrdStopsTheOperatorWithExitThree() throws IOException {
    String oldDocument =
        "{\"components\":{\"schemas\":{\"dev.stallwatch.v1alpha1.RolloutStall\":"
            + io.fabric8.kubernetes.client.utils.Serialization.asJson(withGvk(crd(OLD)))
            + "}}}";
    server
        .expect()
        .get()
        .withPath("/openapi/v3/apis/stallwatch.dev/v1alpha1")
        .andReturn(200, oldDocument)
        .once();

    assertThatThrownBy(() -> CrdSchemaCheck.run(client))
        .isInstanceOf(ExitCodes.AccessException.class)
        .hasMessageContaining("lacks spec.daemonSetAPIVersion, spec.daemonSetKind,")
        .hasMessageContaining("status.nodes[].suspect");
  }

  @Test
  void theServedCrdOfThisVersionPasses() throws IOException {
    server
        .expect()
        .get()
        .withPath("/openapi/v3/apis/stallwatch.dev/v1alpha1")
        .andReturn(
            200,
            "{\"components\":{\"schemas\":{\"dev.stallwatch.v1alpha1.RolloutStall\":"
                + io.fabric8.kubernetes.client.utils.Serialization.asJson(
                    withGvk(crd(RolloutStall.CRD_RESOURCE)))
                + "}}}")
        .once();

    CrdSchemaCheck.run(client);
  }

  @Test
  void aServerWithoutTheOpenApiDocumentIsNotJudged() {
    // The mock answers 404: as an API server that does not publish the group.
    CrdSchemaCheck.run(client);
  }
}
