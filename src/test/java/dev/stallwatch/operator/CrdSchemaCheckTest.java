package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stallwatch.crd.RolloutStall;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class CrdSchemaCheckTest {
  private static InputStream resource(String name) {
    return CrdSchemaCheckTest.class.getClassLoader().getResourceAsStream(name);
  }

  static JsonNode crd(String name) {
    return CrdSchemaCheck.crdSchema(resource(name), "v1alpha1");
  }

  private static String text(String name) throws IOException {
    try (InputStream in = resource(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static final String OLD = "crd-upgrade/rolloutstalls-c98b623.yml";
  private static final String SERVED = "crd-upgrade/openapi-v3-stallwatch.dev-v1alpha1.json";

  @Test
  void theApiServersPublishedSchemaHasTheFieldsOfTheCrdItWasPublishedFrom() throws IOException {
    JsonNode served =
        CrdSchemaCheck.servedSchema(text(SERVED), "stallwatch.dev", "RolloutStall").orElseThrow();
    JsonNode published = crd("crd-upgrade/rolloutstalls-05e529d.yml");

    assertThat(CrdSchemaCheck.fields(served)).isEqualTo(CrdSchemaCheck.fields(published));
    assertThat(CrdSchemaCheck.fields(served))
        .contains("spec.daemonSet", "status.nodes", "status.nodes[].suspect", "status.suspect")
        .doesNotContain("metadata", "kind", "apiVersion");
    assertThat(CrdSchemaCheck.missing(published, served)).isEmpty();
  }

  @Test
  void aCrdFromBeforeTheSuspectFieldsLacksThemAndNothingElseItHad() {
    JsonNode packaged = crd(RolloutStall.CRD_RESOURCE);
    JsonNode old = crd(OLD);

    List<String> missing = CrdSchemaCheck.missing(packaged, old);

    assertThat(missing)
        .contains(
            "status.nodes[].suspect",
            "status.rollbackWithheld",
            "status.suspect",
            "status.suspectReason");
    assertThat(missing).doesNotContainAnyElementsOf(CrdSchemaCheck.fields(old));
    // The other way round (an operator rolled back under a newer CRD): nothing is missing.
    assertThat(CrdSchemaCheck.missing(old, packaged)).isEmpty();
  }

  @Test
  void theLineNamesTheFirstFiveFieldsAndWhatToApply() {
    assertThat(CrdSchemaCheck.verdict(List.of())).isEmpty();
    List<String> seven = IntStream.range(0, 7).mapToObj(i -> "status.f" + i).toList();

    String line = CrdSchemaCheck.verdict(seven).orElseThrow();

    assertThat(line)
        .startsWith(
            "the RolloutStall CRD in the cluster (rolloutstalls.stallwatch.dev) is older than this"
                + " operator: its schema lacks status.f0, status.f1, status.f2, status.f3,"
                + " status.f4 and 2 more,")
        .contains(
            "kubectl apply --server-side --force-conflicts -f crd/rolloutstalls.stallwatch.dev-v1.yml")
        .contains("helm upgrade installs CRDs but never upgrades them");
  }

  @Test
  void aDocumentWithoutTheKindIsNotJudged() {
    assertThat(CrdSchemaCheck.servedSchema("{\"components\":{\"schemas\":{}}}", "x", "Y"))
        .isEmpty();
    assertThat(CrdSchemaCheck.servedSchema("not json", "stallwatch.dev", "RolloutStall")).isEmpty();
  }

  static JsonNode withGvk(JsonNode schema) {
    var copy = (com.fasterxml.jackson.databind.node.ObjectNode) schema.deepCopy();
    copy.putArray("x-kubernetes-group-version-kind")
        .addObject()
        .put("group", "stallwatch.dev")
        .put("kind", "RolloutStall")
        .put("version", "v1alpha1");
    return copy;
  }
}
