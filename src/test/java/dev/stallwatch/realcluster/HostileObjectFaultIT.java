package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.deploy.NativeHelm;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Objects that pass the API server's validation but are odd, sent through the real API server
 * beside a stall in progress: a DaemonSet with as many annotation bytes as the server takes, one
 * with thousands of tolerations, a node with 200 labels, a DaemonSet whose selector also matches a
 * Deployment's pods, a pod that never gets a node, unknown fields, a RolloutStall whose status is
 * edited into nonsense and one deleted by hand while Active. The operator must keep watching the
 * rest (the healthy DaemonSet, broken last, gets its stall), stay within its memory, say each
 * problem once, and put the vandalised and the deleted stall back (same stalledSince).
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class HostileObjectFaultIT {
  static final String NS = "hostile";

  /** The API server's limit on all annotations of an object together (256 KiB). */
  static final int ANNOTATION_LIMIT = 256 * 1024;

  OperatorProcess operator;

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
  }

  /**
   * A DaemonSet without a broken revision stands no stall. Each rolled out while the operator
   * watched: where a loaded cluster held that first rollout past stall-after (its pods not yet
   * running) the operator rightly recorded a stall by the rules, which must have ended with the
   * rollout (RolloutComplete) and named only pods that had not started.
   */
  private static void assertQuiet(List<RolloutStall> stalls, String ds) {
    for (RolloutStall stall : stalls) {
      var status = stall.getStatus();
      assertThat(status.active()).as("an Active RolloutStall of %s: %s", ds, status).isFalse();
      assertThat(status.conditions())
          .as("how the RolloutStall of %s ended: %s", ds, status)
          .anySatisfy(c -> assertThat(c.getReason()).isEqualTo("RolloutComplete"));
      assertThat(status.nodes())
          .as("the nodes of the RolloutStall of %s: %s", ds, status)
          .allSatisfy(n -> assertThat(n.reason()).isIn("Pending", "ContainerCreating"));
    }
  }

  @Test
  void oddObjectsThroughTheRealApiServerLeaveTheOperatorWatchingTheRest(RealCluster cluster)
      throws IOException {
    // Its log is counted below: not the lines of an earlier run in the same directory.
    Files.deleteIfExists(cluster.dir().resolve("hostile-operator.log"));
    operator = OperatorProcess.asChartServiceAccount(cluster, "hostile-operator");
    FaultBed bed = FaultBed.stallInProgress(cluster, NS);
    Scenario s = bed.scenario;
    Map<String, String> outcome = new LinkedHashMap<>();

    // 1 MiB of annotations: refused by the API server; as much as it takes: accepted.
    String refused =
        refusal(
            () ->
                s.rollOut(
                    "annotated-1mib",
                    "example.com/a:v1",
                    b ->
                        b.editMetadata()
                            .addToAnnotations("hostile/blob", "x".repeat(1 << 20))
                            .endMetadata()));
    assertThat(refused).as("1 MiB of annotations").contains("Too long");
    s.rollOut(
        "annotated",
        "example.com/a:v1",
        b ->
            b.editMetadata()
                .addToAnnotations("hostile/blob", "x".repeat(ANNOTATION_LIMIT - 100))
                .endMetadata());
    outcome.put(
        "1 MiB of annotations on a DaemonSet",
        "refused by the API server ("
            + firstLine(refused.substring(Math.max(0, refused.indexOf("metadata.annotations"))))
            + "); 256 KiB − 100 B accepted and watched");

    // 10,000 tolerations.
    List<Toleration> many = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      many.add(
          new TolerationBuilder()
              .withKey("hostile.example.com/t" + i)
              .withOperator("Exists")
              .withEffect("NoSchedule")
              .build());
    }
    s.rollOut(
        "tolerant",
        "example.com/t:v1",
        b ->
            b.editSpec()
                .editTemplate()
                .editSpec()
                .withTolerations(many)
                .endSpec()
                .endTemplate()
                .endSpec());
    outcome.put(
        "10,000 tolerations on a DaemonSet",
        "accepted (pods carry them too); rolled out, watched; the operator's pod cache drops them");

    // A node with 200 labels.
    Map<String, String> labels = new LinkedHashMap<>();
    for (int i = 0; i < 200; i++) {
      labels.put("hostile.example.com/l" + i, "v" + i);
    }
    s.labels(s.nodes().get(0), labels);
    outcome.put("a node with 200 labels", "accepted; nothing changes for the DaemonSets on it");

    // A DaemonSet whose selector matches a Deployment's pods, and a pod that never gets a node.
    cluster
        .admin()
        .apps()
        .deployments()
        .inNamespace(NS)
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName("other")
                .withNamespace(NS)
                .endMetadata()
                .withNewSpec()
                .withReplicas(2)
                .withNewSelector()
                .addToMatchLabels("app", "greedy")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", "greedy")
                .endMetadata()
                .withNewSpec()
                .addToNodeSelector(Scenario.LABEL, NS)
                .addNewContainer()
                .withName("c")
                .withImage("example.com/other:v1")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
    cluster
        .kubectlWithInput(
            """
        apiVersion: v1
        kind: Pod
        metadata:
          name: floating
          namespace: %s
          labels: {app: greedy}
        spec:
          nodeSelector: {hostile.example.com/nowhere: "true"}
          containers: [{name: c, image: example.com/floating:v1}]
        """
                .formatted(NS),
            "create",
            "-f",
            "-")
        .ok();
    s.rollOut("greedy", "example.com/g:v1", b -> b);
    outcome.put(
        "a DaemonSet whose selector matches a Deployment's pods and an unscheduled pod",
        "the Deployment's pods are not its own (owner reference); the pod without spec.nodeName on no node; rolled out, no stall");

    // Unknown fields: strict field validation refuses them, ignore prunes them.
    String ds =
        """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: unknown-fields, namespace: %s}
        spec:
          bogusField: 1
          selector: {matchLabels: {app: unknown-fields}}
          template:
            metadata: {labels: {app: unknown-fields}}
            spec:
              nodeSelector: {%s: %s}
              containers: [{name: c, image: example.com/u:v1, bogusToo: true}]
        """
            .formatted(NS, Scenario.LABEL, NS);
    var strict = cluster.kubectlWithInput(ds, "create", "--validate=strict", "-f", "-");
    assertThat(strict.code()).isNotZero();
    assertThat(strict.output()).contains("unknown field");
    cluster.kubectlWithInput(ds, "create", "--validate=ignore", "-f", "-").ok();
    assertThat(cluster.kubectl("get", "-n", NS, "ds/unknown-fields", "-o", "json").ok().output())
        .doesNotContain("bogus");
    s.awaitComplete("unknown-fields");
    outcome.put(
        "unknown fields in a DaemonSet",
        "--validate=strict: refused ("
            + firstLine(strict.output())
            + "); --validate=ignore: pruned by the API server, stored without them");

    // The stall in progress edited into nonsense that the CRD schema accepts.
    String stall = bed.before.getMetadata().getName();
    String since = bed.before.getStatus().stalledSince();
    cluster
        .kubectl(
            "patch",
            "-n",
            NS,
            "rolloutstall/" + stall,
            "--subresource=status",
            "--type=merge",
            "-p",
            "{\"status\":{\"phase\":\"Banana\",\"stalledSince\":\"yesterday\","
                + "\"stalledNodeCount\":-5,\"node\":\"\",\"cause\":\"Gremlins\"}}")
        .ok();
    await("the vandalised stall restored")
        .atMost(Duration.ofSeconds(30))
        .until(() -> restored(bed, stall, since));
    cluster
        .kubectl(
            "patch",
            "-n",
            NS,
            "rolloutstall/" + stall,
            "--subresource=status",
            "--type=merge",
            "-p",
            "{\"status\":{\"stalledSince\":\"not a time\"}}")
        .ok();
    await("an Active stall's unreadable stalledSince restored")
        .atMost(Duration.ofSeconds(30))
        .until(() -> restored(bed, stall, since));
    assertThat(bed.active(FaultBed.STALLED).get(0).getMetadata().getUid())
        .isEqualTo(bed.before.getMetadata().getUid());
    assertThat(bed.stalledEvents(FaultBed.STALLED))
        .as("RolloutStalled Events after the status was vandalised and restored")
        .isEqualTo(1);
    outcome.put(
        "a RolloutStall's status edited into nonsense (phase Banana, stalledSince \"yesterday\","
            + " stalledNodeCount −5; then only stalledSince unreadable)",
        "the CRD schema accepts it; the operator rewrites the status at once, stalledSince as"
            + " before, one WARN line each, no second Event");

    // The stall in progress deleted by hand: it comes back.
    cluster.kubectl("delete", "-n", NS, "rolloutstall/" + stall).ok();
    await("the deleted Active stall comes back")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                bed.active(FaultBed.STALLED).stream()
                    .anyMatch(
                        x -> !x.getMetadata().getUid().equals(bed.before.getMetadata().getUid())));
    RolloutStall back = bed.active(FaultBed.STALLED).get(0);
    assertThat(back.getMetadata().getName()).isEqualTo(stall);
    assertThat(back.getStatus().stalledSince())
        .as("stalledSince of the re-created stall")
        .isEqualTo(since);
    outcome.put(
        "a RolloutStall deleted by hand while Active",
        "re-created under the same name with the same stalledSince; a RolloutStalled Event for"
            + " the new object ("
            + bed.stalledEvents(FaultBed.STALLED)
            + " in all)");

    // Through all of it the operator watched the rest: the healthy DaemonSet's stall.
    bed.breakHealthy("v2");
    bed.awaitHealthyStall(java.time.Instant.EPOCH);
    bed.assertHealthyStalledOnce();
    for (String quiet : List.of("annotated", "tolerant", "greedy", "unknown-fields")) {
      assertQuiet(bed.stallsOf(quiet), quiet);
    }
    assertThat(operator.alive()).isTrue();
    long rss = rssMiB(operator.pid());
    assertThat(rss).as("operator resident memory, MiB (heap capped at 256 MiB)").isLessThan(600);
    String log = operator.output();
    long errors = log.lines().filter(l -> l.contains(" ERROR ")).count();
    long rewritten = log.lines().filter(l -> l.contains("edited by hand")).count();
    assertThat(errors).as("ERROR lines in the operator log:%n%s", log).isZero();
    assertThat(rewritten).as("log lines about the vandalised stall").isEqualTo(2);
    outcome.put(
        "all of the above, then the healthy DaemonSet broken",
        "its stall recorded once; operator RSS "
            + rss
            + " MiB (-Xmx256m); no ERROR line in its log");
    ReliabilityReport.hostile(outcome);
  }

  private static boolean restored(FaultBed bed, String name, String since) {
    return bed.stallsOf(FaultBed.STALLED).stream()
        .anyMatch(
            x ->
                x.getMetadata().getName().equals(name)
                    && x.getStatus() != null
                    && x.getStatus().active()
                    && since.equals(x.getStatus().stalledSince())
                    && x.getStatus().stalledNodeCount() != null
                    && x.getStatus().stalledNodeCount() > 0
                    && !"Gremlins".equals(x.getStatus().cause()));
  }

  private static long rssMiB(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
      }
    }
    throw new IllegalStateException("no VmRSS for " + pid);
  }

  private static String refusal(Runnable r) {
    try {
      r.run();
      return "";
    } catch (KubernetesClientException e) {
      return e.getMessage();
    }
  }

  private static String firstLine(String s) {
    String line = s.strip().lines().findFirst().orElse("");
    return line.length() > 160 ? line.substring(0, 160) + "…" : line;
  }
}
