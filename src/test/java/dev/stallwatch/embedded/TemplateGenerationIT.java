package dev.stallwatch.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/** The embedded API server keeps a DaemonSet's template generation as a real one does. */
class TemplateGenerationIT {

  private static DaemonSet daemonSet(String image) {
    return new DaemonSetBuilder()
        .withNewMetadata()
        .withName("toolkit")
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        .withNewSelector()
        .addToMatchLabels("app", "toolkit")
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", "toolkit")
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("toolkit")
        .withImage(image)
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static String generation(DaemonSet ds) {
    return ds.getMetadata().getAnnotations().get(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION);
  }

  @Test
  void theAnnotationStartsAtOneAndMovesWithTheTemplateInTheSameWrite() {
    try (EmbeddedApiServer api =
        new EmbeddedApiServer(Clock.systemUTC(), Path.of("target/no-crd-directory")).start()) {
      KubernetesClient client = api.client();
      var daemonSets = client.apps().daemonSets().inNamespace("default");
      assertThat(generation(client.resource(daemonSet("toolkit:1")).create())).isEqualTo("1");

      DaemonSet patched =
          daemonSets
              .withName("toolkit")
              .edit(
                  d -> {
                    d.getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .setImage("toolkit:2");
                    return d;
                  });
      assertThat(generation(patched)).as("answer to the patch").isEqualTo("2");
      assertThat(generation(daemonSets.withName("toolkit").get())).isEqualTo("2");

      DaemonSet replaced = daemonSets.withName("toolkit").get();
      replaced.getSpec().getTemplate().getSpec().getContainers().get(0).setImage("toolkit:3");
      assertThat(generation(client.resource(replaced).update())).isEqualTo("3");

      // A client sending a stale annotation with an unchanged template does not move it back.
      DaemonSet stale = daemonSets.withName("toolkit").get();
      stale.getMetadata().getAnnotations().put(MetadataKeys.TEMPLATE_GENERATION_ANNOTATION, "1");
      assertThat(generation(client.resource(stale).update())).isEqualTo("3");
      assertThat(generation(daemonSets.withName("toolkit").get())).isEqualTo("3");
    }
  }

  @Test
  void statusWritesAndOtherKindsAreLeftAlone() {
    assertThat(TemplateGeneration.appliesTo("/apis/apps/v1/namespaces/a/daemonsets/x/status"))
        .isFalse();
    assertThat(TemplateGeneration.appliesTo("/api/v1/namespaces/a/pods/x")).isFalse();
    assertThat(
            TemplateGeneration.appliesTo("/apis/apps/v1/namespaces/a/daemonsets/x?fieldManager=k"))
        .isTrue();
    String unchanged =
        "{\"metadata\":{\"annotations\":{\""
            + MetadataKeys.TEMPLATE_GENERATION_ANNOTATION
            + "\":\"3\"}},\"spec\":{\"template\":{}}}";
    assertThat(TemplateGeneration.adjust(unchanged, unchanged)).isEqualTo(unchanged);
  }
}
