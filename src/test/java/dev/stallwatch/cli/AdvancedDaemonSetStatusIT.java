package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.kube.AdvancedDaemonSet;
import dev.stallwatch.sim.SimClock;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stallwatch status} on OpenKruise Advanced DaemonSets, against the embedded cluster serving
 * kruise's CRD (or not): listed beside {@code apps/v1} DaemonSets and named by their API, their
 * pods found without {@code pod-template-generation}, {@code Paused} and {@code held} rendered, a
 * bare name of both kinds refused, a cluster without the CRD has none (one where they may not be
 * listed warns), and the operator's record of an {@code apps/v1} DaemonSet is not taken for the
 * Advanced one of the same name. The CLI and the cluster share one virtual clock.
 */
class AdvancedDaemonSetStatusIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String NS = "kruise";
  static final List<String> NODES = List.of("node-1", "node-2", "node-3", "node-4", "node-5");

  final SimClock clock = SimClock.virtual(Instant.parse("2026-12-02T10:00:00Z"));
  final TestApiServer server = new TestApiServer(clock);
  final DaemonSetFixture toolkit = new DaemonSetFixture(server.client(), NS, "toolkit");
  final AdvancedDaemonSetFixture agent = new AdvancedDaemonSetFixture(server.client(), NS, "agent");
  @TempDir Path tmp;
  String kubeconfig;

  @BeforeEach
  void cluster() {
    kubeconfig = server.writeKubeconfig(tmp.resolve("kubeconfig")).toString();
    toolkit.nodes(NODES.toArray(String[]::new));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  CliRun status(String... args) {
    List<String> all = new ArrayList<>(List.of("status", "--kubeconfig", kubeconfig));
    all.addAll(List.of(args));
    return ClockedCli.run(clock, all.toArray(String[]::new));
  }

  /** The apps/v1 toolkit, revision 1 everywhere: Complete. */
  void completeToolkit() {
    toolkit.daemonSet(1, 5, 5, 5);
    NODES.forEach(n -> toolkit.readyPod(n, 1, clock.instant()));
  }

  /**
   * The Advanced agent at revision 2 with partition 2, as kruise leaves it: it went from node-5
   * down, node-3..5 run revision 2, node-1 and node-2 are held on revision 1.
   */
  void partitionedAgent() {
    AdvancedDaemonSetFixture.serveCrd(server.client());
    agent.rolling("partition", 2).daemonSet(2, 5, 3, 5);
    Instant t = clock.instant();
    agent.readyPod("node-1", 1, t);
    agent.readyPod("node-2", 1, t);
    agent.readyPod("node-3", 2, t);
    agent.readyPod("node-4", 2, t);
    agent.readyPod("node-5", 2, t);
  }

  @Test
  void listsAdvancedDaemonSetsBesideAppsV1OnesNamedByTheirApi() throws Exception {
    completeToolkit();
    partitionedAgent();
    clock.advance(Duration.ofMinutes(1));

    CliRun table = status("-n", NS);
    CliRun all = status("-A");
    CliRun json = status("-n", NS, "-o", "json");

    assertThat(table.exitCode()).as(table.toString()).isEqualTo(ExitCodes.OK);
    assertThat(table.err()).isEmpty();
    assertThat(table.out())
        .isEqualTo(
            "NAMESPACE NAME                           DESIRED CURRENT READY UP-TO-DATE"
                + " AVAILABLE PHASE    CAUSE\n"
                + "kruise    daemonset.apps.kruise.io/agent 5       5       5     3         "
                + " 5         Complete -\n"
                + "kruise    toolkit                        5       5       5     5         "
                + " 5         Complete -\n");
    assertThat(all.out()).isEqualTo(table.out());
    JsonNode verdicts = JSON.readTree(json.out()).get("daemonSets");
    assertThat(verdicts).hasSize(2);
    assertThat(verdicts.get(1).get("name").asText()).isEqualTo("toolkit");
    assertThat(verdicts.get(1).get("apiVersion").asText()).isEqualTo("apps/v1");
    JsonNode advanced = verdicts.get(0);
    assertThat(advanced.get("name").asText()).isEqualTo("agent");
    assertThat(advanced.get("apiVersion").asText()).isEqualTo(AdvancedDaemonSet.API_VERSION);
    assertThat(advanced.get("message").asText())
        .isEqualTo(
            "all 3 of 5 desired nodes the rollout may update run revision 2 ("
                + agent.hash(2)
                + "), available; 2 nodes held by partition 2");
    // kruise's pods carry no pod-template-generation label: found all the same, node by node
    List<String> standings = new ArrayList<>();
    advanced.get("nodes").forEach(n -> standings.add(n.get("standing").asText()));
    assertThat(standings).containsExactly("held", "held", "updated", "updated", "updated");
  }

  @Test
  void aPausedAdvancedDaemonSetIsPausedWithItsHeldNodes() {
    AdvancedDaemonSetFixture.serveCrd(server.client());
    agent.rolling("partition", 2).rolling("paused", true).daemonSet(2, 5, 1, 4);
    Instant t = clock.instant();
    agent.readyPod("node-1", 1, t);
    agent.readyPod("node-2", 1, t);
    agent.readyPod("node-3", 1, t);
    agent.readyPod("node-4", 1, t);
    agent.pullBackOffPod("node-5", 2, t);
    clock.advance(Duration.ofHours(1)); // node-5 far past stall-after: paused is never Stalled

    CliRun run = status("-n", NS, "--stall-after", "5m");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    assertThat(run.out())
        .contains("daemonset.apps.kruise.io/agent")
        .contains("kruise/agent (daemonset.apps.kruise.io): Paused\n")
        .contains(
            "  rollout paused (rollingUpdate.paused); 0 of 5 nodes updated to revision 2 ("
                + agent.hash(2)
                + "); node\n  node-5 would hold it back (ImagePull); 2 nodes held by partition 2\n");
    assertThat(run.out().lines().filter(l -> l.matches("  node-\\d +(old|new|none) .*")))
        .hasSize(5)
        .anySatisfy(l -> assertThat(l).startsWith("  node-1").contains(" held "))
        .anySatisfy(l -> assertThat(l).startsWith("  node-2").contains(" held "))
        .anySatisfy(l -> assertThat(l).startsWith("  node-3").contains(" waiting "));
    assertThat(run.out().lines().findFirst().orElseThrow()).endsWith("CAUSE");
    assertThat(run.out().lines().skip(1).findFirst().orElseThrow()).contains(" Paused ");
  }

  @Test
  void aBareNameOfBothKindsIsAUsageErrorNamingBoth() {
    partitionedAgent();
    DaemonSetFixture appsAgent = new DaemonSetFixture(server.client(), NS, "agent");
    appsAgent.daemonSet(1, 5, 5, 5);
    NODES.forEach(n -> appsAgent.readyPod(n, 1, clock.instant()));

    CliRun bare = status("-n", NS, "agent");
    CliRun everywhere = status("-A", "agent");
    CliRun advanced = status("-n", NS, "daemonset.apps.kruise.io/agent", "-o", "json");
    CliRun plural = status("-n", NS, "daemonsets.apps.kruise.io/agent", "-o", "json");
    CliRun apps = status("-n", NS, "ds/agent", "-o", "json");

    assertThat(bare.exitCode()).as(bare.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(bare.err())
        .isEqualTo(
            "error: \"agent\" names two DaemonSets in namespace kruise: daemonset.apps/agent and"
                + " daemonset.apps.kruise.io/agent; name one of them\n");
    assertThat(everywhere.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(everywhere.err()).isEqualTo(bare.err());
    assertThat(advanced.exitCode()).as(advanced.toString()).isEqualTo(ExitCodes.OK);
    assertThat(apiVersions(advanced)).containsExactly(AdvancedDaemonSet.API_VERSION);
    assertThat(plural.out()).isEqualTo(advanced.out());
    assertThat(apps.exitCode()).as(apps.toString()).isEqualTo(ExitCodes.OK);
    assertThat(apiVersions(apps)).containsExactly("apps/v1");
  }

  @Test
  void aClusterWithoutTheCrdHasNoAdvancedDaemonSets() {
    completeToolkit();

    CliRun list = status("-n", NS);
    CliRun all = status("-A");
    CliRun named = status("-n", NS, "daemonset.apps.kruise.io/agent");
    CliRun namedEverywhere = status("-A", "daemonset.apps.kruise.io/agent");
    CliRun bare = status("-n", NS, "agent");
    CliRun apps = status("-n", NS, "toolkit");

    assertThat(list.exitCode()).as(list.toString()).isEqualTo(ExitCodes.OK);
    assertThat(list.err()).isEmpty();
    assertThat(list.out()).contains("toolkit").doesNotContain("kruise.io");
    assertThat(all.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(all.err()).isEmpty();
    String notServed =
        "error: the cluster does not serve daemonsets.apps.kruise.io (OpenKruise's Advanced"
            + " DaemonSet, apps.kruise.io/v1beta1): there is no daemonset.apps.kruise.io/agent\n";
    assertThat(named.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(named.err()).isEqualTo(notServed);
    assertThat(namedEverywhere.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(namedEverywhere.err()).isEqualTo(notServed);
    assertThat(bare.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(bare.err()).isEqualTo("error: daemonset.apps/agent not found in namespace kruise\n");
    assertThat(apps.exitCode()).as(apps.toString()).isEqualTo(ExitCodes.OK);
  }

  @Test
  void advancedDaemonSetsOneMayNotListAreAWarningTheOthersAreStillReported() {
    completeToolkit();
    partitionedAgent();
    server
        .mockServer()
        .expect()
        .get()
        .withPath("/apis/apps.kruise.io/v1beta1/namespaces/kruise/daemonsets")
        .andReturn(
            403,
            new io.fabric8.kubernetes.api.model.StatusBuilder()
                .withStatus("Failure")
                .withReason("Forbidden")
                .withCode(403)
                .withMessage("daemonsets.apps.kruise.io is forbidden")
                .build())
        .always();

    CliRun run = status("-n", NS);

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    assertThat(run.out()).contains("toolkit").doesNotContain("kruise.io/agent");
    assertThat(run.err())
        .isEqualTo(
            "warning: cannot list daemonsets.apps.kruise.io in namespace kruise (HTTP 403):"
                + " Advanced DaemonSets are not shown\n");
  }

  @Test
  void aBareNameNeitherKindHasNamesBoth() {
    partitionedAgent();

    CliRun run = status("-n", NS, "nope");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .isEqualTo(
            "error: neither daemonset.apps/nope nor daemonset.apps.kruise.io/nope found in"
                + " namespace kruise\n");
  }

  @Test
  void theOperatorsRecordOfTheAppsV1DaemonSetIsNotTakenForTheAdvancedOne() {
    AdvancedDaemonSetFixture.serveCrd(server.client());
    agent.daemonSet(2, 5, 0, 4);
    Instant t = clock.instant();
    agent.pullBackOffPod("node-5", 2, t);
    for (String node : NODES.subList(0, 4)) {
      agent.readyPod(node, 1, t);
    }
    clock.advance(Duration.ofMinutes(1));
    String since = t.toString();
    // Recorded for daemonset.apps/agent (no daemonSetAPIVersion: apps/v1), with the same revision
    // hash and so the same name as a record of the Advanced one would have.
    String name = operatorStall(null, since);

    // The new pod is a minute old: alone, --stall-after 10m says Progressing.
    CliRun apps = status("-n", NS, "--stall-after", "10m");
    operatorStall(AdvancedDaemonSet.API_VERSION, since);
    CliRun advanced = status("-n", NS, "--stall-after", "10m");

    assertThat(apps.exitCode()).as(apps.toString()).isEqualTo(ExitCodes.OK);
    assertThat(apps.out()).contains(" Progressing ").doesNotContain("recorded by the operator");
    assertThat(advanced.exitCode()).as(advanced.toString()).isEqualTo(ExitCodes.STALLED);
    assertThat(advanced.out())
        .contains(
            "kruise/agent (daemonset.apps.kruise.io): recorded by the operator: RolloutStall"
                + " kruise/"
                + name
                + " Active: ImagePull on node-5 since "
                + since);
  }

  /**
   * The operator's Active RolloutStall of the agent's revision 2 on node-5, for a DaemonSet of
   * {@code apiVersion} (absent: {@code apps/v1}); created or replaced.
   */
  String operatorStall(String apiVersion, String since) {
    String stallName = "agent-" + agent.hash(2);
    RolloutStall stall =
        Serialization.unmarshal(
            "{\"apiVersion\": \"stallwatch.dev/v1alpha1\", \"kind\": \"RolloutStall\","
                + " \"metadata\": {\"name\": \""
                + stallName
                + "\", \"namespace\": \""
                + NS
                + "\"}, \"spec\": {\"daemonSet\": \"agent\", \"revision\": \""
                + agent.hash(2)
                + "\""
                + (apiVersion == null
                    ? ""
                    : ", \"daemonSetAPIVersion\": \""
                        + apiVersion
                        + "\", \"daemonSetKind\":"
                        + " \"DaemonSet\"")
                + "}, \"status\": {\"phase\": \"Active\", \"node\": \"node-5\", \"cause\":"
                + " \"ImagePull\", \"stalledSince\": \""
                + since
                + "\", \"nodes\": [{\"name\": \"node-5\", \"since\": \""
                + since
                + "\"}]}}",
            RolloutStall.class);
    var stalls = server.client().resources(RolloutStall.class).inNamespace(NS);
    stalls.withName(stallName).delete();
    await(() -> stalls.withName(stallName).get() == null);
    stalls.resource(stall).create();
    stalls.resource(stall).updateStatus();
    return stallName;
  }

  private static void await(java.util.function.BooleanSupplier done) {
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(done::getAsBoolean);
  }

  private static List<String> apiVersions(CliRun run) {
    List<String> out = new ArrayList<>();
    try {
      JSON.readTree(run.out())
          .get("daemonSets")
          .forEach(v -> out.add(v.get("apiVersion").asText()));
    } catch (java.io.IOException e) {
      throw new AssertionError(run.toString(), e);
    }
    return out;
  }
}
