package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.deploy.NativeHelm;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetCondition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The DaemonSet's {@code Stalled} condition ({@code --daemonset-conditions}) as the tools that wait
 * on DaemonSets see it, on the real control plane: kstatus (the library of Helm 4's {@code --wait},
 * Flux, kpt and cli-utils) and Argo CD's health checks computed by their own code ({@code
 * deploytools}, built from their Go modules by {@code deploytools-build.sh}), {@code kubectl wait},
 * and the helm CLI's {@code upgrade --install --wait}. The real DaemonSet controller writes the
 * DaemonSet's status throughout, also after a restart: the condition must survive it, written once.
 *
 * <p>The helm comparison without the condition waits {@code --timeout 30s} here; with {@code
 * -Dstallwatch.helmTimeout=10m} it waits as a pipeline would (the figures in docs/deploy-tools.md).
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DeployToolsRealClusterIT {
  static final String DS = "agent";
  static final String V1 = "example.com/node-agent:v1";
  static final String BROKEN = Scenario.UNPULLABLE + "node-agent:v2";
  static final ChartInstall RELEASE =
      new ChartInstall(
          "deploy-tools", "deploy-tools-system", Map.of("daemonSetConditions.enabled", "true"));
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path LUA = RealCluster.PROJECT.resolve("deploy/argocd");
  private static final String HELM_TIMEOUT = System.getProperty("stallwatch.helmTimeout", "30s");

  static RealCluster cluster;
  static Path tools;
  static Path helm;
  static OperatorProcess operator;

  @BeforeAll
  static void start(RealCluster c) {
    cluster = c;
    tools = RealCluster.builtBy("deploytools-build.sh");
    helm = RealCluster.builtBy("helm-build.sh");
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
  }

  /** The operator with the condition, started once the test without it is done. */
  static OperatorProcess operator() {
    if (operator == null) {
      operator =
          OperatorProcess.asChartServiceAccount(
              cluster, RELEASE, "deploy-tools-operator", "--daemonset-conditions");
    }
    return operator;
  }

  // ---- The tools' verdicts on fixtures: what each rule of the health checks says. ----

  @ParameterizedTest(name = "{0}: Argo CD {2}, kstatus {3}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          stalled          | Stalled=True; 1 of 3 updated     | Degraded    | Failed
          resolved, rolled | Stalled=False; 3 of 3 available  | Healthy     | Current
          rolling          | no condition; 1 of 3 updated     | Progressing | InProgress
          unavailable      | no condition; 2 of 3 available   | Progressing | InProgress
          new generation   | generation 3 observed 2          | Progressing | InProgress
          done             | no condition; 3 of 3 available   | Healthy     | Current
          on delete        | OnDelete; 1 of 3 updated         | Healthy     | InProgress
          no status        | no status at all                 | Progressing | InProgress
          """)
  void theHealthCheckAndKstatusJudgeEachDaemonSetFixture(
      String name, String shape, String argo, String kstatus) {
    String ds = daemonSetFixture(name);
    assertThat(lua("daemonset-health.lua", ds).status()).as(shape).isEqualTo(argo);
    assertThat(tool(ds, "kstatus").status()).as(shape).isEqualTo(kstatus);
    if (name.equals("stalled")) {
      assertThat(lua("daemonset-health.lua", ds).message())
          .isEqualTo("Rollout stalled on node n-1: ImagePull");
      assertThat(tool(ds, "kstatus").message()).isEqualTo("Rollout stalled on node n-1: ImagePull");
    }
  }

  @ParameterizedTest(name = "RolloutStall {0}: {1}")
  @CsvSource({"Active, Degraded", "Resolved, Healthy", "none, Progressing"})
  void theHealthCheckJudgesEachRolloutStallFixture(String phase, String argo) {
    String stall =
        phase.equals("none")
            ? "{\"apiVersion\":\"stallwatch.dev/v1alpha1\",\"kind\":\"RolloutStall\","
                + "\"metadata\":{\"name\":\"agent-abc\",\"namespace\":\"x\"}}"
            : ("{\"apiVersion\":\"stallwatch.dev/v1alpha1\",\"kind\":\"RolloutStall\","
                    + "\"metadata\":{\"name\":\"agent-abc\",\"namespace\":\"x\"},"
                    + "\"status\":{\"phase\":\"%s\",\"cause\":\"ImagePull\","
                    + "\"message\":\"Rollout stalled on node n-1: ImagePull\","
                    + "\"resolvedAt\":\"2026-12-06T00:00:00Z\"}}")
                .formatted(phase);
    Verdict v = lua("rolloutstall-health.lua", stall);
    assertThat(v.status()).isEqualTo(argo);
    if (phase.equals("Active")) {
      assertThat(v.message()).isEqualTo("Rollout stalled on node n-1: ImagePull");
    }
  }

  // ---- On the real control plane. ----

  @Test
  @Order(1)
  void withoutTheGrantTheOperatorRunsOnWithoutTheConditionAndHelmWaitsOutItsTimeout()
      throws IOException {
    Files.deleteIfExists(cluster.dir().resolve("deploy-tools-ungranted.log")); // an earlier run's
    // The flag without the chart's grants (the default release): one line, then as always.
    try (OperatorProcess ungranted =
        OperatorProcess.asChartServiceAccount(
            cluster, "deploy-tools-ungranted", "--daemonset-conditions")) {
      List<String> off =
          ungranted.output().lines().filter(l -> l.contains("DaemonSet conditions off")).toList();
      assertThat(off)
          .singleElement()
          .asString()
          .contains("WARN", "may not get daemonsets.apps in all namespaces");

      Scenario s = Scenario.create(cluster, "helm-no-condition", 2, 0);
      Path chart = agentChart(s);
      assertThat(helmUpgrade(s, chart, V1, "3m").code()).isZero();

      long t = System.nanoTime();
      RealCluster.Result broken = helmUpgrade(s, chart, BROKEN, HELM_TIMEOUT);
      Duration took = Duration.ofNanos(System.nanoTime() - t);

      assertThat(broken.code()).isNotZero();
      assertThat(broken.output())
          .contains("context deadline exceeded", "status: InProgress")
          .doesNotContain("stalled");
      assertThat(took).isGreaterThanOrEqualTo(parse(HELM_TIMEOUT));
      assertThat(s.awaitActiveStall().getStatus().cause()).isEqualTo("ImagePull");
      assertThat(stalled(s)).isEmpty();
      assertThat(ungranted.output().lines())
          .noneMatch(l -> l.contains(" ERROR ") || l.startsWith("\tat "));
      System.out.printf(
          "deploy-tools: helm upgrade --wait --timeout %s without the condition: failed after %.1f"
              + " s: %s%n",
          HELM_TIMEOUT, took.toMillis() / 1000.0, lastErrorLine(broken.output()));
    }
  }

  @Test
  @Order(2)
  void withTheConditionHelmFailsAsSoonAsTheStallIsRecordedWithItsMessage() {
    operator();
    Scenario s = Scenario.create(cluster, "helm-condition", 2, 0);
    Path chart = agentChart(s);
    assertThat(helmUpgrade(s, chart, V1, "3m").code()).as("a good image succeeds").isZero();

    long t = System.nanoTime();
    RealCluster.Result broken = helmUpgrade(s, chart, BROKEN, "10m");
    Duration took = Duration.ofNanos(System.nanoTime() - t);

    assertThat(broken.code()).isNotZero();
    String message = stalled(s).orElseThrow().getMessage();
    assertThat(broken.output()).contains("status: Failed").contains(message);
    // stall-after, then the record and the condition; 15 s for the controller to replace the pod,
    // kwok to fail its pull and the watchers to pass it on, on a loaded 2-core machine
    assertThat(took)
        .isLessThanOrEqualTo(parse(OperatorProcess.STALL_AFTER).plus(Duration.ofSeconds(15)));
    System.out.printf(
        "deploy-tools: helm upgrade --wait --timeout 10m with the condition: failed after %.1f s:"
            + " %s%n",
        took.toMillis() / 1000.0, lastErrorLine(broken.output()));
  }

  @Test
  @Order(3)
  void theConditionTurnsEveryToolFromWaitingToFailedAndSurvivesTheController() throws Exception {
    OperatorProcess op = operator();
    Scenario s = Scenario.create(cluster, "deploy-tools", 3, 0);
    long writesBefore = conditionWrites(op, s); // its log may hold an earlier run's
    s.rollOut(DS, V1, b -> b);
    assertThat(kstatus(s).status()).isEqualTo("Current");
    assertThat(argo(s).status()).isEqualTo("Healthy");

    Process wait =
        new ProcessBuilder(
                cluster.kubectlBinary().toString(),
                "--kubeconfig=" + cluster.kubeconfig(),
                "wait",
                "-n",
                s.namespace(),
                "ds/" + DS,
                "--for=condition=Stalled",
                "--timeout=3m")
            .redirectErrorStream(true)
            .start();
    try {
      setImage(s, BROKEN);
      List<String> seen = new ArrayList<>();
      await("kstatus Failed")
          .atMost(Scenario.WAIT)
          .pollInterval(Duration.ofMillis(250))
          .until(
              () -> {
                String now = kstatus(s).status();
                if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(now)) {
                  seen.add(now);
                }
                return now.equals("Failed");
              });
      assertThat(seen).as("kstatus while rolling, then stalled").endsWith("InProgress", "Failed");

      RolloutStall stall = s.awaitActiveStall();
      DaemonSetCondition c = stalled(s).orElseThrow();
      assertThat(c.getStatus()).isEqualTo("True");
      assertThat(c.getReason()).isEqualTo("ImagePull");
      // in whole seconds, as the API server keeps it
      assertThat(Instant.parse(c.getLastTransitionTime()))
          .isEqualTo(
              Instant.parse(stall.getStatus().stalledSince())
                  .truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
      assertThat(c.getMessage())
          .startsWith("Rollout stalled on node " + stall.getStatus().node() + ": ImagePull")
          .endsWith("stalled since " + stall.getStatus().stalledSince());
      assertThat(kstatus(s).message()).isEqualTo(c.getMessage());
      assertThat(argo(s)).isEqualTo(new Verdict("Degraded", c.getMessage()));
      assertThat(lua("rolloutstall-health.lua", JSON.writeValueAsString(stall)).status())
          .isEqualTo("Degraded");

      assertThat(wait.waitFor(30, TimeUnit.SECONDS)).as("kubectl wait returned").isTrue();
      Instant returned = Instant.now();
      assertThat(wait.exitValue()).isZero();
      Instant written = conditionWrittenAt(s);
      // The bound is the point: kubectl wait watches and returns when the condition is written,
      // not at its 30 s timeout; 10 s is room for its watch event on a loaded machine.
      assertThat(Duration.between(written, returned))
          .as("kubectl wait returns once the condition is written")
          .isLessThan(Duration.ofSeconds(10));
    } finally {
      wait.destroyForcibly();
    }
    assertThat(conditionWrites(op, s) - writesBefore).isEqualTo(1);

    // The DaemonSet controller writes the status again — after a restart of kube-controller-manager
    // (its caches listed afresh), for a new generation that keeps the template (and so the stall
    // and its message): the condition stays, the operator does not write it again.
    cluster.restart("kube-controller-manager", false, Duration.ofSeconds(2));
    Instant ours = conditionWrittenAt(s);
    cluster
        .admin()
        .apps()
        .daemonSets()
        .inNamespace(s.namespace())
        .withName(DS)
        .edit(
            ds -> {
              ds.getSpec().setRevisionHistoryLimit(5);
              return ds;
            });
    await("the restarted controller observes the new generation")
        .atMost(Scenario.WAIT)
        .until(
            () -> {
              DaemonSet ds = s.daemonSet(DS);
              return ds.getMetadata()
                  .getGeneration()
                  .equals(ds.getStatus().getObservedGeneration());
            });
    assertThat(statusWrittenAt(s, "kube-controller-manager"))
        .as("the controller wrote the status after the condition")
        .isAfterOrEqualTo(ours);
    assertThat(stalled(s).orElseThrow().getStatus()).isEqualTo("True");

    // Steady: more reconciles (each pod's label changed, each change a reconcile) write nothing.
    double reconciles = reconciles(op);
    for (var pod : s.pods(DS)) {
      cluster
          .admin()
          .pods()
          .inNamespace(s.namespace())
          .withName(pod.getMetadata().getName())
          .edit(
              p -> {
                p.getMetadata().getLabels().put("touched", "yes");
                return p;
              });
    }
    await("the operator looks at the DaemonSet again")
        .atMost(Scenario.WAIT)
        .until(() -> reconciles(op) >= reconciles + 2);
    assertThat(conditionWrittenAt(s)).isEqualTo(ours);
    assertThat(conditionWrites(op, s) - writesBefore).isEqualTo(1);
    assertThat(stalled(s).orElseThrow().getStatus()).isEqualTo("True");

    // Rolled back: Stalled=False with the resolution; every tool sees the DaemonSet done.
    setImage(s, V1);
    s.awaitComplete(DS);
    await("Stalled=False")
        .atMost(Scenario.WAIT)
        .until(() -> stalled(s).map(x -> "False".equals(x.getStatus())).orElse(false));
    assertThat(
            cluster
                .kubectl(
                    "wait",
                    "-n",
                    s.namespace(),
                    "ds/" + DS,
                    "--for=condition=Stalled=False",
                    "--timeout=10s")
                .code())
        .isZero();
    await("kstatus Current")
        .atMost(Scenario.WAIT)
        .until(() -> kstatus(s).status().equals("Current"));
    assertThat(argo(s).status()).isEqualTo("Healthy");
    // False once (one more if the resolution's own line changed in between)
    assertThat(conditionWrites(op, s) - writesBefore).isBetween(2L, 3L);

    // Turned off: the documented command removes the conditions, and nothing else.
    op.close();
    operator = null;
    int conditionsBefore = s.daemonSet(DS).getStatus().getConditions().size();
    RealCluster.Result removal =
        RealCluster.Result.run(
            List.of("bash", "-euo", "pipefail", "-c", removalCommand()),
            Map.of(
                "PATH",
                cluster.kubectlBinary().getParent() + ":" + System.getenv("PATH"),
                "KUBECONFIG",
                cluster.kubeconfig().toString()),
            Duration.ofMinutes(2));
    assertThat(removal.code()).as(removal.output()).isZero();
    assertThat(stalled(s)).isEmpty();
    assertThat(s.daemonSet(DS).getStatus().getConditions()).hasSize(conditionsBefore - 1);
    assertThat(s.daemonSet(DS).getStatus().getNumberAvailable()).isEqualTo(3);
  }

  /** The command docs/deploy-tools.md gives to remove the conditions ("Turning it off"). */
  static String removalCommand() {
    try {
      String doc = Files.readString(RealCluster.PROJECT.resolve("docs/deploy-tools.md"));
      String section = doc.substring(doc.indexOf("## Turning it off"));
      int start = section.indexOf("```sh\n") + "```sh\n".length();
      return section.substring(start, section.indexOf("```", start));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- helpers ----

  record Verdict(String status, String message) {}

  private static Verdict kstatus(Scenario s) {
    return tool(live(s), "kstatus");
  }

  private static Verdict argo(Scenario s) {
    return lua("daemonset-health.lua", live(s));
  }

  private static String live(Scenario s) {
    return cluster.kubectl("get", "-n", s.namespace(), "ds/" + DS, "-o", "json").ok().output();
  }

  private static Verdict lua(String script, String object) {
    return tool(object, "lua", LUA.resolve(script).toString());
  }

  private static Verdict tool(String object, String... args) {
    List<String> command = new ArrayList<>(List.of(tools.toString()));
    command.addAll(List.of(args));
    RealCluster.Result r =
        RealCluster.Result.run(command, Map.of(), Duration.ofSeconds(30), object).ok();
    try {
      JsonNode v = JSON.readTree(r.output().strip().lines().reduce((a, b) -> b).orElseThrow());
      return new Verdict(v.path("status").asText(), v.path("message").asText());
    } catch (IOException e) {
      throw new UncheckedIOException(r.output(), e);
    }
  }

  private static Optional<DaemonSetCondition> stalled(Scenario s) {
    DaemonSet ds = s.daemonSet(DS);
    if (ds == null || ds.getStatus() == null || ds.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return ds.getStatus().getConditions().stream()
        .filter(c -> "Stalled".equals(c.getType()))
        .findFirst();
  }

  /** When the API server recorded stallwatch's last write of the DaemonSet's status. */
  private static Instant conditionWrittenAt(Scenario s) {
    return s.daemonSet(DS).getMetadata().getManagedFields().stream()
        .filter(m -> "stallwatch".equals(m.getManager()))
        .map(ManagedFieldsEntry::getTime)
        .map(Instant::parse)
        .findFirst()
        .orElseThrow();
  }

  /** When the API server recorded {@code manager}'s last write of the DaemonSet's status. */
  private static Instant statusWrittenAt(Scenario s, String manager) {
    return s.daemonSet(DS).getMetadata().getManagedFields().stream()
        .filter(m -> manager.equals(m.getManager()) && "status".equals(m.getSubresource()))
        .map(ManagedFieldsEntry::getTime)
        .map(Instant::parse)
        .findFirst()
        .orElseThrow();
  }

  /** How many reconciles the operator has finished (its own histogram's count). */
  private static double reconciles(OperatorProcess op) {
    return PromText.value(op.metrics(), "stallwatch_reconcile_seconds_count");
  }

  /** The condition writes the operator logged for the scenario's DaemonSet. */
  private static long conditionWrites(OperatorProcess op, Scenario s) {
    String prefix = "DaemonSet " + s.namespace() + "/" + DS + ": condition Stalled=";
    return op.output().lines().filter(l -> l.contains(prefix)).count();
  }

  private static void setImage(Scenario s, String image) {
    FaultBed.setImage(cluster, s, DS, image);
  }

  /** A chart of one DaemonSet on the scenario's nodes, its image a value. */
  private static Path agentChart(Scenario s) {
    try {
      Path chart = cluster.dir().resolve("charts/" + s.namespace());
      Files.createDirectories(chart.resolve("templates"));
      Files.writeString(
          chart.resolve("Chart.yaml"),
          "apiVersion: v2\nname: agent\nversion: 0.1.0\n",
          StandardCharsets.UTF_8);
      Files.writeString(
          chart.resolve("templates/daemonset.yaml"),
          cluster
              .admin()
              .getKubernetesSerialization()
              .asYaml(s.newDaemonSet(DS, V1).build())
              .replace(V1, "{{ .Values.image }}"),
          StandardCharsets.UTF_8);
      return chart;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static RealCluster.Result helmUpgrade(
      Scenario s, Path chart, String image, String timeout) {
    return RealCluster.Result.run(
        List.of(
            helm.toString(),
            "upgrade",
            "--install",
            DS,
            chart.toString(),
            "--namespace",
            s.namespace(),
            "--kubeconfig",
            cluster.kubeconfig().toString(),
            "--set",
            "image=" + image,
            "--wait",
            "--timeout",
            timeout),
        Map.of(),
        parse(timeout).plus(Duration.ofMinutes(1)));
  }

  private static Duration parse(String go) {
    return Duration.parse("PT" + go.toUpperCase());
  }

  private static String lastErrorLine(String output) {
    return output.lines().filter(l -> l.startsWith("Error")).reduce((a, b) -> b).orElse(output);
  }

  private static String daemonSetFixture(String name) {
    String status =
        switch (name) {
          case "stalled" ->
              status(
                  2,
                  1,
                  2,
                  "[{\"type\":\"Stalled\",\"status\":\"True\",\"reason\":"
                      + "\"ImagePull\",\"message\":\"Rollout stalled on node n-1: ImagePull\"}]");
          case "resolved, rolled" ->
              status(
                  2,
                  3,
                  3,
                  "[{\"type\":\"Stalled\",\"status\":\"False\",\"reason\":"
                      + "\"RolledBack\",\"message\":\"rolled back\"}]");
          case "rolling" -> status(2, 1, 3, null);
          case "unavailable" -> status(2, 3, 2, null);
          case "new generation" -> status(2, 3, 3, null);
          case "done", "on delete" -> status(2, name.equals("on delete") ? 1 : 3, 3, null);
          case "no status" -> null;
          default -> throw new IllegalArgumentException(name);
        };
    int generation = name.equals("new generation") ? 3 : 2;
    String strategy = name.equals("on delete") ? "OnDelete" : "RollingUpdate";
    return ("{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"agent\","
            + "\"namespace\":\"x\",\"generation\":%d},\"spec\":{\"updateStrategy\":{\"type\":"
            + "\"%s\"}}%s}")
        .formatted(generation, strategy, status == null ? "" : ",\"status\":" + status);
  }

  private static String status(int observed, int updated, int available, String conditions) {
    return ("{\"observedGeneration\":%d,\"desiredNumberScheduled\":3,\"currentNumberScheduled\":3,"
            + "\"numberMisscheduled\":0,\"numberReady\":%d,\"updatedNumberScheduled\":%d,"
            + "\"numberAvailable\":%d%s}")
        .formatted(
            observed,
            available,
            updated,
            available,
            conditions == null ? "" : ",\"conditions\":" + conditions);
  }
}
