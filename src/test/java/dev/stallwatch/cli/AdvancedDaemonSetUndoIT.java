package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.kube.AdvancedDaemonSet;
import dev.stallwatch.kube.PodTemplates;
import dev.stallwatch.rollback.RollbackRecord;
import dev.stallwatch.sim.SimClock;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stallwatch undo} on OpenKruise Advanced DaemonSets, against the embedded cluster serving
 * kruise's CRD: the previous revision's template is patched onto the {@code apps.kruise.io/v1beta1}
 * object (its kruise fields kept), found among the ControllerRevisions it owns; the refusals are
 * those of an {@code apps/v1} DaemonSet; a bare name of both kinds is refused; a qualified one
 * touches only its kind.
 */
class AdvancedDaemonSetUndoIT {
  static final String NS = "kruise";

  final SimClock clock = SimClock.virtual(Instant.parse("2026-12-02T10:00:00Z"));
  final TestApiServer server = new TestApiServer(clock);
  final AdvancedDaemonSetFixture agent = new AdvancedDaemonSetFixture(server.client(), NS, "agent");
  @TempDir Path tmp;
  String kubeconfig;

  @BeforeEach
  void cluster() {
    kubeconfig = server.writeKubeconfig(tmp.resolve("kubeconfig")).toString();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  CliRun undo(String... args) {
    List<String> all = new ArrayList<>(List.of("undo", "--kubeconfig", kubeconfig, "-n", NS));
    all.addAll(List.of(args));
    return ClockedCli.run(clock, all.toArray(String[]::new));
  }

  String image() {
    return agent.read().getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
  }

  DaemonSet appsAgent() {
    return server.client().apps().daemonSets().inNamespace(NS).withName("agent").get();
  }

  @Test
  void restoresThePreviousRevisionsTemplateOnTheAdvancedDaemonSet() {
    AdvancedDaemonSetFixture.serveCrd(server.client());
    agent.rolling("partition", 1).daemonSet(2, 3, 1, 2);

    CliRun run = undo("daemonset.apps.kruise.io/agent");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    assertThat(run.out())
        .isEqualTo(
            "daemonset.apps.kruise.io/agent rolled back\n  revision 2 ("
                + agent.hash(2)
                + ") -> revision 1 ("
                + agent.hash(1)
                + "): "
                + agent.image(1)
                + "\n");
    AdvancedDaemonSet ds = agent.read();
    assertThat(
            PodTemplates.sameTemplate(
                ds.getSpec().getTemplate(),
                PodTemplates.storedTemplate(agent.storedRevision(1).getData())))
        .as("the template is revision 1's")
        .isTrue();
    assertThat(ds.getApiVersion()).isEqualTo(AdvancedDaemonSet.API_VERSION);
    assertThat(RollbackRecord.fromAnnotations(ds.getMetadata().getAnnotations()))
        .contains(
            new RollbackRecord(agent.hash(2), agent.hash(1), clock.instant(), "stallwatch undo"));
    // kruise's own fields are left as they were
    assertThat(
            ds.getSpec()
                .getUpdateStrategy()
                .getRollingUpdate()
                .getAdditionalProperties()
                .get("partition"))
        .isEqualTo(1);
  }

  @Test
  void aBareNameFindsTheAdvancedDaemonSetAndADryRunChangesNothing() {
    AdvancedDaemonSetFixture.serveCrd(server.client());
    agent.daemonSet(2, 3, 1, 2);

    CliRun run = undo("agent", "--dry-run");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    assertThat(run.out())
        .isEqualTo(
            "daemonset.apps.kruise.io/agent rolled back (dry run)\n"
                + "  from: revision 2 ("
                + agent.hash(2)
                + ")\n  to:   revision 1 ("
                + agent.hash(1)
                + ")\n  image: "
                + agent.image(2)
                + " -> "
                + agent.image(1)
                + "\n");
    assertThat(image()).isEqualTo(agent.image(2));
  }

  @Test
  void refusesAsForAnAppsV1DaemonSet() {
    AdvancedDaemonSetFixture.serveCrd(server.client());
    agent.daemonSet(1, 3, 3, 3);

    CliRun previous = undo("daemonset.apps.kruise.io/agent");
    CliRun unknown = undo("daemonset.apps.kruise.io/agent", "--to-revision", "9");
    CliRun missing = undo("daemonset.apps.kruise.io/nope");

    assertThat(previous.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(previous.err())
        .isEqualTo(
            "error: daemonset.apps.kruise.io/agent has no previous revision to roll back to"
                + " (revisions: 1)\n");
    assertThat(unknown.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(unknown.err())
        .isEqualTo("error: daemonset.apps.kruise.io/agent has no revision 9 (revisions: 1)\n");
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(missing.err())
        .isEqualTo("error: daemonset.apps.kruise.io/nope not found in namespace kruise\n");
    assertThat(image()).isEqualTo(agent.image(1));
  }

  @Test
  void aBareNameOfBothKindsIsRefusedAndAQualifiedOneRollsBackOnlyItsKind() {
    AdvancedDaemonSetFixture.serveCrd(server.client());
    agent.daemonSet(2, 3, 1, 2);
    DaemonSetFixture apps = new DaemonSetFixture(server.client(), NS, "agent");
    apps.daemonSet(2, 3, 1, 2);

    CliRun bare = undo("agent");
    assertThat(bare.exitCode()).as(bare.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(bare.err())
        .isEqualTo(
            "error: \"agent\" names two DaemonSets in namespace kruise: daemonset.apps/agent and"
                + " daemonset.apps.kruise.io/agent; name one of them\n");
    assertThat(image()).isEqualTo(agent.image(2));

    CliRun onlyApps = undo("ds/agent");
    assertThat(onlyApps.exitCode()).as(onlyApps.toString()).isEqualTo(ExitCodes.OK);
    assertThat(onlyApps.out()).startsWith("daemonset.apps/agent rolled back\n");
    assertThat(appsImage()).isEqualTo(apps.image(1));
    assertThat(image()).as("the Advanced DaemonSet is left alone").isEqualTo(agent.image(2));

    CliRun onlyAdvanced = undo("daemonset.apps.kruise.io/agent");
    assertThat(onlyAdvanced.exitCode()).as(onlyAdvanced.toString()).isEqualTo(ExitCodes.OK);
    // its own revisions, not the apps/v1 DaemonSet's of the same name
    assertThat(onlyAdvanced.out()).contains("-> revision 1 (" + agent.hash(1) + ")");
    assertThat(image()).isEqualTo(agent.image(1));
  }

  @Test
  void withoutTheCrdAQualifiedNameIsAnError() {
    CliRun run = undo("daemonset.apps.kruise.io/agent");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .isEqualTo(
            "error: the cluster does not serve daemonsets.apps.kruise.io (OpenKruise's Advanced"
                + " DaemonSet, apps.kruise.io/v1beta1): there is no"
                + " daemonset.apps.kruise.io/agent\n");
  }

  private String appsImage() {
    return appsAgent().getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
  }
}
