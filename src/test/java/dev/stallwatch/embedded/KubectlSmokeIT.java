package dev.stallwatch.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real {@code kubectl} against the embedded API server, through the kubeconfig it writes. */
class KubectlSmokeIT {

  private static EmbeddedApiServer api;
  private static Path kubeconfig;
  private static String kubectl;

  @BeforeAll
  static void start(@TempDir Path dir) {
    kubectl = findOnPath("kubectl");
    if ("true".equals(System.getenv("STALLWATCH_REQUIRE_KUBECTL"))) {
      assertThat(kubectl).as("kubectl on PATH (STALLWATCH_REQUIRE_KUBECTL=true)").isNotNull();
    }
    assumeTrue(
        kubectl != null,
        "kubectl is not on PATH: the kubectl smoke test needs a kubectl client"
            + " (.ci/run installs one if missing and prints its version)");
    api = new EmbeddedApiServer().start();
    kubeconfig = api.writeKubeconfig(dir.resolve("kubeconfig"));
    createObjects(api.client());
  }

  @AfterAll
  static void stop() {
    if (api != null) {
      api.close();
    }
  }

  private static void createObjects(KubernetesClient client) {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("agents").endMetadata().build())
        .create();
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("node-a")
                .addToLabels("node-role.kubernetes.io/worker", "")
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .withNewNodeInfo()
                .withKubeletVersion("v1.32.1")
                .endNodeInfo()
                .endStatus()
                .build())
        .create();
    client
        .apps()
        .daemonSets()
        .inNamespace("agents")
        .resource(
            new DaemonSetBuilder()
                .withNewMetadata()
                .withName("log-agent")
                .endMetadata()
                .withNewSpec()
                .withNewSelector()
                .addToMatchLabels("app", "log-agent")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", "log-agent")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("agent")
                .withImage("log-agent:2")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .withNewStatus()
                .withDesiredNumberScheduled(4)
                .withCurrentNumberScheduled(4)
                .withNumberReady(3)
                .withUpdatedNumberScheduled(2)
                .withNumberAvailable(3)
                .endStatus()
                .build())
        .create();
    client
        .pods()
        .inNamespace("agents")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("log-agent-x1")
                .addToLabels("app", "log-agent")
                .endMetadata()
                .withNewSpec()
                .withNodeName("node-a")
                .addNewContainer()
                .withName("agent")
                .withImage("log-agent:2")
                .endContainer()
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .withPodIP("10.1.0.7")
                .addNewContainerStatus()
                .withName("agent")
                .withReady(false)
                .withRestartCount(4)
                .withNewState()
                .withNewWaiting()
                .withReason("CrashLoopBackOff")
                .endWaiting()
                .endState()
                .endContainerStatus()
                .endStatus()
                .build())
        .create();
    GenericKubernetesResource widget =
        new GenericKubernetesResourceBuilder()
            .withApiVersion("example.dev/v1")
            .withKind("Widget")
            .withNewMetadata()
            .withName("sprocket")
            .withNamespace("agents")
            .endMetadata()
            .addToAdditionalProperties("spec", Map.of("size", 3, "color", "blue"))
            .build();
    client
        .genericKubernetesResources("example.dev/v1", "Widget")
        .inNamespace("agents")
        .resource(widget)
        .create();
    widget.getMetadata().setName("flywheel");
    client
        .genericKubernetesResources("example.dev/v1", "Widget")
        .inNamespace("agents")
        .resource(widget)
        .create();
  }

  @Test
  void getListsDaemonSetsPodsAndNodesWithKubectlColumns() {
    String out = ok("get", "ds,pods,nodes", "-A");

    assertThat(out)
        .contains(
            "NAMESPACE",
            "NAME",
            "DESIRED",
            "CURRENT",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "NODE SELECTOR",
            "AGE")
        .containsPattern("agents\\s+daemonset.apps/log-agent\\s+4\\s+4\\s+3\\s+2\\s+3\\s+<none>")
        .contains("RESTARTS", "STATUS")
        .containsPattern("agents\\s+pod/log-agent-x1\\s+0/1\\s+CrashLoopBackOff\\s+4\\s")
        .contains("ROLES", "VERSION")
        .containsPattern("node/node-a\\s+Ready\\s+worker\\s+\\S+\\s+v1.32.1");
  }

  @Test
  void getShowsACustomResourcesPrinterColumns() {
    String out = ok("get", "widgets", "-n", "agents");

    assertThat(out.lines().findFirst().orElseThrow())
        .containsPattern("NAME\\s+SIZE\\s+PHASE\\s+READY\\s+AGE")
        .doesNotContain("COLOR");
    assertThat(out).containsPattern("sprocket\\s+3\\s");
    assertThat(ok("get", "widgets.example.dev", "-n", "agents", "-o", "wide"))
        .containsPattern("sprocket\\s+3\\s+.*blue");
  }

  @Test
  void shortNamesAndCategoriesResolveFromTheCrd() {
    assertThat(ok("get", "wdg", "-n", "agents")).contains("sprocket");
    assertThat(ok("get", "gadgets", "-n", "agents")).contains("SIZE").contains("sprocket");
    assertThat(ok("get", "po", "-n", "agents")).contains("log-agent-x1");
  }

  @Test
  void describeShowsAPodAndADaemonSet() {
    assertThat(ok("describe", "pod", "log-agent-x1", "-n", "agents"))
        .containsPattern("Name:\\s+log-agent-x1")
        .containsPattern("Node:\\s+node-a")
        .containsPattern("Reason:\\s+CrashLoopBackOff")
        .contains("Events:");
    assertThat(ok("describe", "ds", "log-agent", "-n", "agents"))
        .containsPattern("Desired Number of Nodes Scheduled:\\s+4");
  }

  @Test
  void mergePatchChangesSpecAndStatusThroughTheSubresource() {
    assumeKubectlAtLeast(24, "--subresource");
    assertThat(
            ok(
                "patch",
                "widget",
                "flywheel",
                "-n",
                "agents",
                "--type=merge",
                "-p",
                "{\"spec\":{\"size\":5}}"))
        .contains("widget.example.dev/flywheel patched");
    ok(
        "patch",
        "widget",
        "flywheel",
        "-n",
        "agents",
        "--subresource=status",
        "--type=merge",
        "-p",
        "{\"status\":{\"phase\":\"Spinning\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");

    assertThat(ok("get", "widget", "flywheel", "-n", "agents"))
        .containsPattern("flywheel\\s+5\\s+Spinning\\s+True");
  }

  @Test
  void strategicMergePatchFailsWithAMessageSayingWhatWorks() {
    Result result =
        run("patch", "ds", "log-agent", "-n", "agents", "-p", "{\"spec\":{\"minReadySeconds\":5}}");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.output()).contains("--type=merge");
  }

  @Test
  void typedCreateCommandsFailWithAMessageSayingWhatWorks() {
    Result result = run("create", "namespace", "typed");

    if (result.exitCode() == 0) {
      // An older client sends the typed object as JSON, which is served like any other create.
      assertThat(api.client().namespaces().withName("typed").get()).isNotNull();
      return;
    }
    assertThat(result.output()).contains("JSON bodies only").contains("kubectl create -f");
  }

  @Test
  void deleteRemovesAnObject() {
    api.client()
        .pods()
        .inNamespace("scratch")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("doomed")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage("busybox")
                .endContainer()
                .endSpec()
                .build())
        .create();

    assertThat(ok("delete", "pod", "doomed", "-n", "scratch")).contains("pod \"doomed\" deleted");

    assertThat(api.client().pods().inNamespace("scratch").withName("doomed").get()).isNull();
    Result again = run("delete", "pod", "doomed", "-n", "scratch");
    assertThat(again.exitCode()).isNotZero();
    assertThat(again.output()).contains("pods \"doomed\" not found");
  }

  private record Result(int exitCode, String output) {}

  private static String ok(String... args) {
    Result result = run(args);
    assertThat(result.exitCode())
        .as("kubectl %s:%n%s", String.join(" ", args), result.output())
        .isZero();
    return result.output();
  }

  /** Skips a test of a client feature that the kubectl on PATH predates. */
  private static void assumeKubectlAtLeast(int minor, String feature) {
    Result version = run("version", "--client", "-o", "json");
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\"minor\":\\s*\"(\\d+)").matcher(version.output());
    int found = m.find() ? Integer.parseInt(m.group(1)) : Integer.MAX_VALUE;
    assumeTrue(
        found >= minor, "kubectl 1." + found + " predates " + feature + " (1." + minor + ")");
  }

  private static Result run(String... args) {
    List<String> command = new ArrayList<>();
    command.add(kubectl);
    command.add("--kubeconfig=" + kubeconfig);
    // Discovery cache next to the kubeconfig, not in the user's ~/.kube.
    command.add("--cache-dir=" + kubeconfig.resolveSibling("kube-cache"));
    command.add("--request-timeout=20s");
    command.addAll(List.of(args));
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      byte[] output = process.getInputStream().readAllBytes();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("kubectl " + String.join(" ", args) + " did not finish in 60s");
      }
      return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new AssertionError("cannot run kubectl: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted running kubectl", e);
    }
  }

  private static String findOnPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, program);
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }
}
