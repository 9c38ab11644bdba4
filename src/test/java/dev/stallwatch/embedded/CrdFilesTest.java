package dev.stallwatch.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
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
        .containsExactlyInAnyOrder(
            "widgets.example.dev", "rolloutstalls.stallwatch.dev", "gizmos.example.org");
  }

  @Test
  void crdsAreReadFromTheCrdFolderOfAJar(@TempDir Path dir) throws Exception {
    Path jar = dir.resolve("packaged.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry("crd/"));
      out.closeEntry();
      out.putNextEntry(new JarEntry("crd/gizmos.example.org-v1.yml"));
      out.write(GIZMO_CRD.formatted("gizmos.example.org").getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
      out.putNextEntry(new JarEntry("crd/README.md"));
      out.closeEntry();
    }
    try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
      List<CustomResourceDefinition> crds = new CrdFiles().load(loader, dir.resolve("none"));

      assertThat(crds)
          .extracting(c -> c.getMetadata().getName())
          .containsExactly("gizmos.example.org");
    }
  }

  @Test
  void aMissingDirectoryLeavesTheClasspathCrds() {
    List<CustomResourceDefinition> crds =
        new CrdFiles().load(getClass().getClassLoader(), Path.of("target/does-not-exist"));

    assertThat(crds)
        .extracting(c -> c.getMetadata().getName())
        .containsExactlyInAnyOrder("widgets.example.dev", "rolloutstalls.stallwatch.dev");
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
