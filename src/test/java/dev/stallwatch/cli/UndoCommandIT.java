package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code stallwatch undo} against an in-process API server. */
class UndoCommandIT {

  final TestApiServer server = new TestApiServer();
  final DaemonSetFixture toolkit = new DaemonSetFixture(server.client(), "gpu", "toolkit");
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
    List<String> all = new ArrayList<>(List.of("undo", "--kubeconfig", kubeconfig, "-n", "gpu"));
    all.addAll(List.of(args));
    return CliRun.of(all.toArray(String[]::new));
  }

  String image() {
    DaemonSet ds = server.client().apps().daemonSets().inNamespace("gpu").withName("toolkit").get();
    return ds.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
  }

  @Test
  void rollsBackToThePreviousRevisionLikeKubectl() {
    toolkit.daemonSet(2, 3, 1, 2);

    CliRun run = undo("ds/toolkit");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    assertThat(run.out())
        .isEqualTo(
            "daemonset.apps/toolkit rolled back\n  revision 2 ("
                + toolkit.hash(2)
                + ") -> revision 1 ("
                + toolkit.hash(1)
                + "): "
                + toolkit.image(1)
                + "\n");
    assertThat(image()).isEqualTo(toolkit.image(1));
  }

  @Test
  void rollsBackToTheNamedRevision() {
    toolkit.daemonSet(3, 3, 3, 3);

    CliRun run = undo("toolkit", "--to-revision", "1");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    assertThat(image()).isEqualTo(toolkit.image(1));
  }

  @Test
  void aDryRunShowsTheImageChangeAndChangesNothing() {
    toolkit.daemonSet(2, 3, 1, 2);

    CliRun run = undo("ds/toolkit", "--dry-run");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    assertThat(run.out())
        .isEqualTo(
            "daemonset.apps/toolkit rolled back (dry run)\n"
                + "  from: revision 2 ("
                + toolkit.hash(2)
                + ")\n  to:   revision 1 ("
                + toolkit.hash(1)
                + ")\n  image: "
                + toolkit.image(2)
                + " -> "
                + toolkit.image(1)
                + "\n");
    assertThat(image()).isEqualTo(toolkit.image(2));
  }

  @Test
  void refusesClearlyWhenThereIsNothingToRollBackTo() {
    toolkit.daemonSet(1, 3, 3, 3);

    CliRun run = undo("ds/toolkit");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .isEqualTo(
            "error: daemonset.apps/toolkit has no previous revision to roll back to"
                + " (revisions: 1)\n");
    assertThat(image()).isEqualTo(toolkit.image(1));
  }

  @Test
  void refusesToGuessWhileTheControllerHasNotRecordedTheAppliedTemplate() {
    toolkit.daemonSet(2, 3, 1, 2);
    // kubectl apply of revision 3's template; the controller has not recorded it yet. The highest
    // revision, 2, is the one this edit replaces: "previous" cannot be told.
    long generation = toolkit.applyTemplate(3).getMetadata().getGeneration();

    List<CliRun> runs = List.of(undo("ds/toolkit"), undo("ds/toolkit", "--dry-run"));

    assertThat(runs)
        .allSatisfy(
            run -> {
              assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.USAGE);
              assertThat(run.err())
                  .isEqualTo(
                      "error: daemonset.apps/toolkit: the DaemonSet's template matches no"
                          + " ControllerRevision yet: the controller has not recorded generation "
                          + generation
                          + "; try again in a moment, or name one with --to-revision"
                          + " (revisions: 1, 2)\n");
            });
    assertThat(image()).isEqualTo(toolkit.image(3));
  }

  @Test
  void rollsBackToANamedRevisionWhileTheControllerHasNotRecordedTheAppliedTemplate() {
    toolkit.daemonSet(2, 3, 1, 2);
    toolkit.applyTemplate(3);

    CliRun run = undo("ds/toolkit", "--to-revision", "1");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.OK);
    assertThat(run.out())
        .isEqualTo(
            "daemonset.apps/toolkit rolled back\n  current template -> revision 1 ("
                + toolkit.hash(1)
                + "): "
                + toolkit.image(1)
                + "\n");
    assertThat(image()).isEqualTo(toolkit.image(1));
  }

  @Test
  void refusesAnUnknownRevisionAndListsTheKnownOnes() {
    toolkit.daemonSet(2, 3, 1, 2);

    CliRun run = undo("ds/toolkit", "--to-revision", "9");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err())
        .isEqualTo("error: daemonset.apps/toolkit has no revision 9 (revisions: 1, 2)\n");
  }

  @Test
  void skipsWhenAlreadyAtTheNamedRevision() {
    toolkit.daemonSet(2, 3, 3, 3);

    CliRun run = undo("ds/toolkit", "--to-revision", "2");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.OK);
    assertThat(run.out())
        .isEqualTo(
            "daemonset.apps/toolkit skipped rollback (current template already matches revision 2 ("
                + toolkit.hash(2)
                + "))\n");
  }

  @Test
  void aMissingDaemonSetIsAnError() {
    CliRun run = undo("ds/nope");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).isEqualTo("error: daemonset.apps/nope not found in namespace gpu\n");
  }

  @Test
  void rejectsARevisionBelowOne() {
    CliRun run = undo("ds/toolkit", "--to-revision", "0");

    assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(run.err()).contains("--to-revision must be 1 or more, got 0");
  }
}
