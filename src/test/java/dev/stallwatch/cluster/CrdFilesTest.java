package dev.stallwatch.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CrdFilesTest {

  private static final String GIZMO_CRD =
      String.join(
          "\n",
          "apiVersion: apiextensions.k8s.io/v1",
          "kind: CustomResourceDefinition",
          "metadata:",
          "  name: %s",
          "spec:",
          "  group: example.org",
          "  scope: Namespaced",
          "  names: {kind: Gizmo, plural: gizmos}",
          "  versions: [{name: v1, served: true, storage: true}]",
          "");

  @Test
  void crdsComeFromTheClasspathFolderAndTheDirectory(@TempDir Path dir) throws Exception {
    Files.writeString(
        dir.resolve("gizmos.example.org-v1.yml"), GIZMO_CRD.formatted("gizmos.example.org"));
    Files.writeString(dir.resolve("README.md"), "not a CRD");

    List<CustomResourceDefinition> crds = new CrdFiles().load(getClass().getClassLoader(), dir);

    assertThat(crds)
        .extracting(c -> c.getMetadata().getName())
        .containsExactly("widgets.example.dev", "gizmos.example.org");
  }

  @Test
  void aMissingDirectoryLeavesTheClasspathCrds() {
    List<CustomResourceDefinition> crds =
        new CrdFiles().load(getClass().getClassLoader(), Path.of("target/does-not-exist"));

    assertThat(crds)
        .extracting(c -> c.getMetadata().getName())
        .containsExactly("widgets.example.dev");
  }

  @Test
  void anUnparsableFileIsReportedByName(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("broken.yaml"), "kind: [unclosed");

    assertThatThrownBy(() -> new CrdFiles().load(getClass().getClassLoader(), dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("broken.yaml");
  }

  @Test
  void servedVersionsBecomeResourcesWithPrinterColumns() {
    CustomResourceDefinition widgets =
        new CrdFiles().load(getClass().getClassLoader(), Path.of("target/does-not-exist")).get(0);

    ServedResource served = ResourceCatalog.fromCrd(widgets).get(0);

    assertThat(served.groupVersion()).isEqualTo("example.dev/v1");
    assertThat(served.kind()).isEqualTo("Widget");
    assertThat(served.namespaced()).isTrue();
    assertThat(served.subresources()).containsExactly("status");
    assertThat(served.printerColumns()).extracting(c -> c.getName()).contains("Size", "Age");
  }
}
