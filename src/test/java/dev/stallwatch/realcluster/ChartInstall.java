package dev.stallwatch.realcluster;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * Installs the chart in {@code deploy/helm/stallwatch} into the real API server: {@code helm
 * template} (helm-java) applied with kubectl, into a namespace that enforces the restricted Pod
 * Security Standard, with the CRD from {@code crd/} applied first (what {@code helm install} does
 * with the chart's crds/ folder).
 *
 * <p>{@link #render} and {@link #install} need helm-java's native library: every test class that
 * reaches them (directly, through {@link OperatorProcess#asChartServiceAccount} or {@link
 * ScaleRun}) carries {@link dev.stallwatch.deploy.NativeHelm}, so it is skipped, not failed, off
 * linux/amd64. {@link #CRD} alone needs no Helm.
 */
public record ChartInstall(String release, String namespace, Map<String, String> values) {
  static final Path CHART = RealCluster.PROJECT.resolve("deploy/helm/stallwatch");
  static final Path CRD = RealCluster.PROJECT.resolve("crd/rolloutstalls.stallwatch.dev-v1.yml");

  /** The ServiceAccount (and ClusterRole) name the chart gives this release. */
  public String fullname() {
    return release.contains("stallwatch") ? release : release + "-stallwatch";
  }

  /** What {@code helm template} renders for this release. */
  public String render(RealCluster cluster) {
    TemplateCommand template =
        new Helm(CHART)
            .template()
            .withName(release)
            .withNamespace(namespace)
            .withKubeVersion(cluster.serverVersion());
    values.forEach(template::set);
    return template.call();
  }

  /** Creates the namespace (restricted), the CRD and every object of the chart; returns output. */
  public String install(RealCluster cluster) {
    String namespaceYaml =
        """
        apiVersion: v1
        kind: Namespace
        metadata:
          name: %s
          labels:
            pod-security.kubernetes.io/enforce: restricted
            pod-security.kubernetes.io/enforce-version: latest
            pod-security.kubernetes.io/warn: restricted
        """
            .formatted(namespace);
    cluster.kubectlWithInput(namespaceYaml, "apply", "-f", "-").ok();
    cluster.kubectl("apply", "--server-side", "-f", CRD.toString()).ok();
    cluster.kubectl("wait", "--for=condition=Established", "crd/rolloutstalls.stallwatch.dev").ok();
    return cluster
        .kubectlWithInput(placed(cluster, render(cluster)), "apply", "-f", "-")
        .ok()
        .output();
  }

  private static final java.util.Set<String> CLUSTER_SCOPED =
      java.util.Set.of(
          "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "Namespace");

  /**
   * The rendered objects with the release namespace on those that name none, as {@code helm
   * install} places them; objects the chart puts in other namespaces (the Roles of {@code
   * operator.namespaces}) keep theirs, which {@code kubectl apply -n} would refuse.
   */
  private String placed(RealCluster cluster, String rendered) {
    var items =
        cluster
            .admin()
            .load(new java.io.ByteArrayInputStream(rendered.getBytes(StandardCharsets.UTF_8)))
            .items();
    for (var item : items) {
      if (item.getMetadata().getNamespace() == null && !CLUSTER_SCOPED.contains(item.getKind())) {
        item.getMetadata().setNamespace(namespace);
      }
    }
    return io.fabric8.kubernetes.client.utils.Serialization.asYaml(
        new io.fabric8.kubernetes.api.model.KubernetesListBuilder().withItems(items).build());
  }

  /** A kubeconfig that authenticates as this release's ServiceAccount. */
  public Path serviceAccountKubeconfig(RealCluster cluster, Path target) {
    return cluster.serviceAccountKubeconfig(namespace, fullname(), target);
  }
}
