package dev.stallwatch.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.ControllerRevisionBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one parse of revision data and the one "template equals revision" (upstream's Match). */
class PodTemplatesTest {

  static PodTemplateSpec template(String image) {
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .withLabels(Map.of("app", "toolkit", "tier", "node"))
        .endMetadata()
        .withNewSpec()
        .withNodeSelector(Map.of("gpu", "true"))
        .withContainers(new ContainerBuilder().withName("toolkit").withImage(image).build())
        .endSpec()
        .build();
  }

  /** A revision as the API server hands it back: through JSON, with a hash label of its own. */
  static ControllerRevision revision(Object data, String hashLabel) {
    ControllerRevision r =
        new ControllerRevisionBuilder()
            .withNewMetadata()
            .withName("toolkit-" + hashLabel)
            .withLabels(Map.of(MetadataKeys.REVISION_HASH_LABEL, hashLabel))
            .endMetadata()
            .withData(data)
            .withRevision(1L)
            .build();
    return Serialization.unmarshal(Serialization.asJson(r), ControllerRevision.class);
  }

  @Test
  void revisionDataIsTheTemplateAsAReplacePatchAndParsesBackToIt() {
    Map<String, Object> data = PodTemplates.revisionData(template("a:1"));
    @SuppressWarnings("unchecked")
    Map<String, Object> stored =
        (Map<String, Object>) ((Map<String, Object>) data.get("spec")).get("template");
    assertThat(stored).containsEntry("$patch", "replace");

    ControllerRevision r = revision(data, "x");
    assertThat(PodTemplates.storedTemplate(r.getData())).isEqualTo(template("a:1"));
    assertThat(PodTemplates.matches(template("a:1"), r.getData())).isTrue();
    assertThat(PodTemplates.matches(template("a:2"), r.getData())).isFalse();
  }

  @Test
  void matchComparesTheTemplateNotTheHashLabel() {
    ControllerRevision same = revision(PodTemplates.revisionData(template("a:1")), "wrong");
    ControllerRevision other = revision(PodTemplates.revisionData(template("a:2")), "x");
    assertThat(PodTemplates.matches(template("a:1"), same.getData())).isTrue();
    assertThat(PodTemplates.matches(template("a:1"), other.getData())).isFalse();
  }

  @Test
  void keyOrderNullsAndEmptyListsDoNotMakeATemplateDifferent() {
    String text =
        "{\"spec\":{\"template\":{\"$patch\":\"replace\",\"spec\":{\"tolerations\":[],"
            + "\"containers\":[{\"image\":\"a:1\",\"name\":\"toolkit\",\"args\":null}],"
            + "\"nodeSelector\":{\"gpu\":\"true\"}},"
            + "\"metadata\":{\"annotations\":{},\"labels\":{\"tier\":\"node\",\"app\":\"toolkit\"}}}}}";
    assertThat(PodTemplates.matches(template("a:1"), text)).isTrue();
    assertThat(PodTemplates.matches(template("a:1"), Serialization.unmarshal(text, Map.class)))
        .isTrue();
  }

  /**
   * Upstream's {@code getPatch} puts {@code $patch} inside the template; data that carries it
   * beside the template (as a hand-written revision or an old test fixture did) is read the same.
   */
  @Test
  void theReplaceDirectiveBesideTheTemplateIsReadToo() {
    String beside =
        "{\"spec\":{\"$patch\":\"replace\",\"template\":{\"spec\":{"
            + "\"containers\":[{\"image\":\"a:1\",\"name\":\"toolkit\"}],"
            + "\"nodeSelector\":{\"gpu\":\"true\"}},"
            + "\"metadata\":{\"labels\":{\"tier\":\"node\",\"app\":\"toolkit\"}}}}}";
    assertThat(PodTemplates.storedTemplate(beside)).isEqualTo(template("a:1"));
    assertThat(PodTemplates.matches(template("a:1"), beside)).isTrue();
    assertThat(PodTemplates.matches(template("a:2"), beside)).isFalse();
  }

  @Test
  void dataWithoutAReadableTemplateMatchesNothing() {
    assertThat(PodTemplates.storedTemplate(null)).isNull();
    assertThat(PodTemplates.storedTemplate(Map.of("spec", Map.of()))).isNull();
    assertThat(PodTemplates.storedTemplate("not json")).isNull();
    assertThat(PodTemplates.storedTemplate(Map.of("spec", Map.of("template", List.of(1)))))
        .isNull();
    assertThat(PodTemplates.matches(template("a:1"), null)).isFalse();
    assertThat(PodTemplates.sameTemplate(null, null)).isFalse();
  }

  @Test
  void theAnalyzersViewOfRevisionDataComparesTheSameWay() {
    var stored = PodTemplates.fromRevisionData(PodTemplates.revisionData(template("a:1")));
    var current = PodTemplates.view(template("a:1"), "DaemonSet toolkit", "spec.template");
    assertThat(stored.canonical()).isEqualTo(current.canonical());
  }
}
