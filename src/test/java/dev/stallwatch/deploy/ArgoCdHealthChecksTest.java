package dev.stallwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Argo CD health checks users copy from docs/deploy-tools.md are the files {@code
 * DeployToolsRealClusterIT} runs with gopher-lua (deploy/argocd/): the snippet cannot drift from
 * what is tested.
 */
class ArgoCdHealthChecksTest {
  private static final Path DOC = Path.of("docs/deploy-tools.md");

  @ParameterizedTest
  @CsvSource({
    "resource.customizations.health.apps_DaemonSet, daemonset-health.lua",
    "resource.customizations.health.stallwatch.dev_RolloutStall, rolloutstall-health.lua"
  })
  void theDocumentedSnippetIsTheTestedFile(String key, String file) throws Exception {
    String doc = Files.readString(DOC);
    int at = doc.indexOf("```yaml\napiVersion: v1\nkind: ConfigMap");
    assertThat(at).as("the argocd-cm snippet in " + DOC).isNotNegative();
    String yaml = doc.substring(at + "```yaml\n".length(), doc.indexOf("```", at + 7));
    JsonNode cm = new ObjectMapper(new YAMLFactory()).readTree(yaml);
    assertThat(cm.path("metadata").path("name").asText()).isEqualTo("argocd-cm");
    assertThat(cm.path("data").path(key).asText())
        .isEqualTo(Files.readString(Path.of("deploy/argocd").resolve(file)));
  }
}
