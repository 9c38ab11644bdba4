package dev.stallwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/** The objects `helm template` renders from the chart in deploy/helm/stallwatch, parsed. */
record RenderedChart(List<HasMetadata> objects) {

  static final Path PROJECT = ChartFilesTest.PROJECT;
  static final Path CHART = ChartFilesTest.CHART;
  static final String RELEASE = "sw";
  static final String NAMESPACE = "stallwatch-system";
  // helm template assumes Kubernetes 1.20 unless told; the chart needs 1.25+ (restricted PSS).
  static final String KUBE_VERSION = "1.32.0";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Pattern DOCUMENT_SEPARATOR = Pattern.compile("(?m)^---\\s*$");

  /** Renders with the chart's defaults changed by {@code values} (e.g. {@code t -> t.set(..)}). */
  static RenderedChart render(UnaryOperator<TemplateCommand> values) {
    TemplateCommand template =
        new Helm(CHART)
            .template()
            .withName(RELEASE)
            .withNamespace(NAMESPACE)
            .withKubeVersion(KUBE_VERSION);
    return parse(values.apply(template).call());
  }

  static RenderedChart renderDefaults() {
    return render(t -> t);
  }

  static RenderedChart parse(String manifests) {
    List<HasMetadata> objects = new ArrayList<>();
    for (String document : DOCUMENT_SEPARATOR.split(manifests)) {
      if (!document.replaceAll("(?m)^#.*$", "").isBlank()) {
        objects.add(SERIALIZATION.unmarshal(document, HasMetadata.class));
      }
    }
    return new RenderedChart(List.copyOf(objects));
  }

  List<String> kinds() {
    return objects.stream().map(HasMetadata::getKind).sorted().toList();
  }

  <T extends HasMetadata> List<T> all(Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  List<GenericKubernetesResource> all(String kind) {
    return all(GenericKubernetesResource.class).stream()
        .filter(o -> o.getKind().equals(kind))
        .toList();
  }

  <T extends HasMetadata> T one(Class<T> type) {
    List<T> found = all(type);
    assertThat(found).as("rendered %s objects", type.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  GenericKubernetesResource one(String kind) {
    List<GenericKubernetesResource> found = all(kind);
    assertThat(found).as("rendered %s objects", kind).hasSize(1);
    return found.get(0);
  }

  Deployment deployment() {
    return one(Deployment.class);
  }

  /** Every RBAC rule of every Role and ClusterRole, with the role it belongs to. */
  List<GrantedRule> rules() {
    List<GrantedRule> rules = new ArrayList<>();
    for (var role : all(io.fabric8.kubernetes.api.model.rbac.ClusterRole.class)) {
      role.getRules().forEach(r -> rules.add(new GrantedRule(role, r)));
    }
    for (var role : all(io.fabric8.kubernetes.api.model.rbac.Role.class)) {
      role.getRules().forEach(r -> rules.add(new GrantedRule(role, r)));
    }
    return rules;
  }

  /** One rule of a Role or ClusterRole. */
  record GrantedRule(HasMetadata role, PolicyRule rule) {
    boolean covers(String apiGroup, String resource) {
      return (rule.getApiGroups().contains(apiGroup) || rule.getApiGroups().contains("*"))
          && (rule.getResources().contains(resource) || rule.getResources().contains("*"));
    }

    String roleName() {
      return role.getKind() + " " + role.getMetadata().getName();
    }
  }
}
