package dev.stallwatch.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import org.junit.jupiter.api.Test;

class KeysTest {
  @Test
  void aNamespacedObjectIsNamespaceSlashName() {
    var ds =
        new DaemonSetBuilder()
            .withNewMetadata()
            .withNamespace("gpu-operator")
            .withName("toolkit")
            .endMetadata()
            .build();

    assertThat(Keys.of(ds)).isEqualTo("gpu-operator/toolkit");
    assertThat(Keys.of("gpu-operator", "toolkit")).isEqualTo(Keys.of(ds));
  }

  @Test
  void anObjectWithoutANamespaceIsItsNameAlone() {
    var node = new NodeBuilder().withNewMetadata().withName("gpu-node-1").endMetadata().build();

    assertThat(Keys.of(node)).isEqualTo("gpu-node-1");
    assertThat(Keys.of("", "gpu-node-1")).isEqualTo("gpu-node-1");
    assertThat(Keys.of(null, "gpu-node-1")).isEqualTo("gpu-node-1");
  }
}
