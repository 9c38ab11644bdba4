package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.kube.PodTemplates;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

class TemplateHashTest {

  static PodTemplateSpec template(String image) {
    return ScenarioObjects.daemonSet("ns", "ds", image).build().getSpec().getTemplate();
  }

  static ControllerRevision throughJson(PodTemplateSpec t) {
    ControllerRevision r =
        new ControllerRevisionBuilder()
            .withNewMetadata()
            .withName("ds-x")
            .endMetadata()
            .withData(PodTemplates.revisionData(t))
            .withRevision(1L)
            .build();
    return Serialization.unmarshal(Serialization.asJson(r), ControllerRevision.class);
  }

  @Test
  void theHashIsStableAndUsesTheSafeAlphabet() {
    String h = TemplateHash.hash(template("a:1"), null);
    assertThat(TemplateHash.hash(template("a:1"), null)).isEqualTo(h);
    assertThat(h).matches("[bcdfghjklmnpqrstvwxz2456789]+");
  }

  @Test
  void anotherTemplateOrACollisionCountGivesAnotherHash() {
    String h = TemplateHash.hash(template("a:1"), null);
    assertThat(TemplateHash.hash(template("a:2"), null)).isNotEqualTo(h);
    assertThat(TemplateHash.hash(template("a:1"), 1)).isNotEqualTo(h);
  }

  @Test
  void aRevisionStoredAndReadBackMatchesItsTemplateAndGivesItBack() {
    ControllerRevision r = throughJson(template("a:1"));
    assertThat(PodTemplates.matches(template("a:1"), r.getData())).isTrue();
    assertThat(PodTemplates.matches(template("a:2"), r.getData())).isFalse();
    assertThat(PodTemplates.storedTemplate(r.getData())).isEqualTo(template("a:1"));
  }
}
