package dev.stallwatch.crd;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The committed {@code crd/} file must be what the generator makes of the Java types today.
 *
 * <p>The crd-generator-maven-plugin writes {@code target/crd} in {@code process-classes} but sorts
 * printer columns by JSON path (AGE would come first); kubectl shows them in CRD order. So the
 * committed file is the generated one with the columns in the order {@link RolloutStall} declares
 * them. Refresh it with {@code ./mvnw -B -q -Dtest=CommittedCrdTest -Dstallwatch.updateCrd=true
 * test}.
 */
class CommittedCrdTest {
  private static final Path GENERATED = Path.of("target", RolloutStall.CRD_RESOURCE);
  private static final Path COMMITTED = Path.of(RolloutStall.CRD_RESOURCE);
  private final KubernetesSerialization serialization = new KubernetesSerialization();

  @Test
  void committedCrdIsTheGeneratedOneWithColumnsInDeclaredOrder() throws IOException {
    assertThat(GENERATED).as("run the build through process-classes first").exists();
    CustomResourceDefinition expected = inDeclaredColumnOrder(read(GENERATED));
    if (Boolean.getBoolean("stallwatch.updateCrd")) {
      Files.writeString(
          COMMITTED,
          "# Generated from dev.stallwatch.crd.RolloutStall: do not edit, see"
              + " CommittedCrdTest.\n"
              + serialization.asYaml(expected));
    }
    assertThat(COMMITTED).exists();
    assertThat(read(COMMITTED))
        .as(
            "crd/ is stale: refresh it with ./mvnw -B -q -Dtest=CommittedCrdTest"
                + " -Dstallwatch.updateCrd=true test")
        .isEqualTo(expected);
  }

  @Test
  void printerColumnsFollowTheDeclarationWithAgeLastOfTheNarrowOnes() throws IOException {
    List<String> narrow =
        read(COMMITTED).getSpec().getVersions().get(0).getAdditionalPrinterColumns().stream()
            .filter(c -> c.getPriority() == null || c.getPriority() == 0)
            .map(CustomResourceColumnDefinition::getName)
            .toList();
    assertThat(narrow)
        .containsExactly(
            "DaemonSet", "API", "Node", "Cause", "Old", "New", "Ready", "Phase", "Age");
  }

  @Test
  void shortNamesAvoidBuiltInOnes() throws IOException {
    var names = read(COMMITTED).getSpec().getNames();
    // rs (ReplicaSet), ro/rb (none/rolebindings) and friends stay untouched.
    assertThat(names.getShortNames()).containsExactly("rstall", "rollstall");
    assertThat(names.getCategories()).containsExactly("stallwatch");
    assertThat(read(COMMITTED).getSpec().getScope()).isEqualTo("Namespaced");
  }

  private CustomResourceDefinition read(Path file) throws IOException {
    try (var in = Files.newInputStream(file)) {
      return serialization.unmarshal(in, CustomResourceDefinition.class);
    }
  }

  private static CustomResourceDefinition inDeclaredColumnOrder(CustomResourceDefinition crd) {
    List<String> declared =
        Arrays.stream(RolloutStall.class.getAnnotationsByType(AdditionalPrinterColumn.class))
            .map(AdditionalPrinterColumn::name)
            .toList();
    crd.getSpec()
        .getVersions()
        .forEach(
            version ->
                version
                    .getAdditionalPrinterColumns()
                    .sort(Comparator.comparingInt(c -> declared.indexOf(c.getName()))));
    return crd;
  }
}
