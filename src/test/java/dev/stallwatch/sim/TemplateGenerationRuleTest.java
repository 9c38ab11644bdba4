package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class TemplateGenerationRuleTest {

  static PodTemplateSpec template(String image) {
    return new PodTemplateSpecBuilder()
        .withNewSpec()
        .withContainers(new ContainerBuilder().withName("c").withImage(image).build())
        .endSpec()
        .build();
  }

  @Test
  void aNewDaemonSetStartsAtItsWrittenValueOrOne() {
    assertThat(TemplateGenerationRule.onCreate(null)).isEqualTo(1);
    assertThat(TemplateGenerationRule.onCreate("4")).isEqualTo(4);
    assertThat(TemplateGenerationRule.onCreate("four")).isEqualTo(1);
  }

  @Test
  void anUpdateAddsOneOnlyWhenTheTemplateChanged() {
    assertThat(TemplateGenerationRule.onUpdate(3, true)).isEqualTo(4);
    assertThat(TemplateGenerationRule.onUpdate(3, false)).isEqualTo(3);
    assertThat(TemplateGenerationRule.changed(template("a:1"), template("a:2"))).isTrue();
    assertThat(TemplateGenerationRule.changed(template("a:1"), template("a:1"))).isFalse();
  }

  @Test
  void nilAndEmptyAreTheSameTemplate() {
    PodTemplateSpec withEmpty = template("a:1");
    withEmpty.getSpec().setTolerations(List.of());
    PodTemplateSpec withNull = template("a:1");
    withNull.getSpec().setTolerations(null);
    assertThat(TemplateGenerationRule.changed(withNull, withEmpty)).isFalse();
    assertThat(TemplateGenerationRule.changed(null, template("a:1"))).isTrue();
  }
}
