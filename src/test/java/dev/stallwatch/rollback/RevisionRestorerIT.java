package dev.stallwatch.rollback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stallwatch.rollback.RollbackResult.Outcome;
import dev.stallwatch.rollback.RollbackResult.RevisionSummaryLine;
import dev.stallwatch.testcluster.TestApiServer;
import dev.stallwatch.testing.DaemonSetFixture;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RevisionRestorerIT {

  static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");

  final TestApiServer server = new TestApiServer();
  final DaemonSetFixture ds = new DaemonSetFixture(server.client(), "gpu", "toolkit");
  final RevisionRestorer restorer = new RevisionRestorer(server.client());

  @AfterEach
  void stop() {
    server.close();
  }

  DaemonSet read() {
    return server.client().apps().daemonSets().inNamespace("gpu").withName("toolkit").get();
  }

  List<String> images() {
    return RevisionHistory.images(read().getSpec().getTemplate());
  }

  RollbackResult undo(RollbackTarget target, boolean dryRun) {
    return restorer.rollback("gpu", "toolkit", target, dryRun, "stallwatch undo", NOW);
  }

  @Test
  void restoresThePreviousRevisionsTemplateAndRecordsTheRollback() {
    ds.daemonSet(2, 3, 1, 2);

    RollbackResult result = undo(RollbackTarget.previous(), false);

    assertThat(result.outcome()).isEqualTo(Outcome.ROLLED_BACK);
    assertThat(result.from()).isEqualTo(new RevisionSummaryLine(2, ds.hash(2)));
    assertThat(result.to()).isEqualTo(new RevisionSummaryLine(1, ds.hash(1)));
    assertThat(result.fromImages()).containsExactly(ds.image(2));
    assertThat(result.toImages()).containsExactly(ds.image(1));
    assertThat(images()).containsExactly(ds.image(1));
    assertThat(read().getSpec().getTemplate()).isEqualTo(ds.template(1));
    assertThat(RollbackRecord.fromAnnotations(read().getMetadata().getAnnotations()))
        .contains(new RollbackRecord(ds.hash(2), ds.hash(1), NOW, "stallwatch undo"));
  }

  @Test
  void restoresTheNamedRevision() {
    ds.daemonSet(3, 3, 3, 3);

    RollbackResult result = undo(RollbackTarget.revision(1), false);

    assertThat(result.outcome()).isEqualTo(Outcome.ROLLED_BACK);
    assertThat(result.to().number()).isEqualTo(1);
    assertThat(images()).containsExactly(ds.image(1));
  }

  @Test
  void replacesTheWholeTemplateSoFieldsTheRevisionLacksAreGone() {
    ds.daemonSet(2, 3, 1, 2);
    // Revision 2 as applied also carries a nodeSelector; revision 1 never had one.
    DaemonSet withSelector =
        new DaemonSetBuilder(read())
            .editSpec()
            .editTemplate()
            .editSpec()
            .withNodeSelector(Map.of("gpu", "true"))
            .endSpec()
            .endTemplate()
            .endSpec()
            .build();
    server.client().apps().daemonSets().resource(withSelector).update();

    undo(RollbackTarget.revision(1), false);

    assertThat(read().getSpec().getTemplate().getSpec().getNodeSelector()).isNullOrEmpty();
  }

  @Test
  void aDryRunReportsTheChangeAndWritesNothing() {
    ds.daemonSet(2, 3, 1, 2);
    String before = read().getMetadata().getResourceVersion();

    RollbackResult result = undo(RollbackTarget.previous(), true);

    assertThat(result.outcome()).isEqualTo(Outcome.WOULD_ROLL_BACK);
    assertThat(result.toImages()).containsExactly(ds.image(1));
    assertThat(read().getMetadata().getResourceVersion()).isEqualTo(before);
    assertThat(images()).containsExactly(ds.image(2));
  }

  @Test
  void skipsWhenTheTemplateAlreadyMatchesTheTarget() {
    ds.daemonSet(2, 3, 3, 3);
    String before = read().getMetadata().getResourceVersion();

    RollbackResult result = undo(RollbackTarget.revision(2), false);

    assertThat(result.outcome()).isEqualTo(Outcome.ALREADY_MATCHES);
    assertThat(read().getMetadata().getResourceVersion()).isEqualTo(before);
  }

  @Test
  void refusesWhenThereIsNoPreviousRevision() {
    ds.daemonSet(1, 3, 3, 3);

    assertThatThrownBy(() -> undo(RollbackTarget.previous(), false))
        .isInstanceOf(RollbackRefusedException.class)
        .hasMessage(
            "daemonset.apps/toolkit has no previous revision to roll back to (revisions: 1)");
  }

  @Test
  void refusesThePreviousRevisionWhileNoRevisionStoresTheCurrentTemplate() {
    ds.daemonSet(2, 3, 1, 2);
    ds.applyTemplate(3); // not recorded yet: revision 2, the highest, is what this edit replaced

    assertThatThrownBy(() -> undo(RollbackTarget.previous(), false))
        .isInstanceOf(RollbackRefusedException.class)
        .hasMessageContaining("the DaemonSet's template matches no ControllerRevision yet");
    assertThat(images()).containsExactly(ds.image(3));

    ds.revision(3); // the controller catches up: revision 2 is the previous one again
    assertThat(undo(RollbackTarget.previous(), false).to())
        .isEqualTo(new RevisionSummaryLine(2, ds.hash(2)));
  }

  @Test
  void refusesARevisionThatDoesNotExistAndListsTheOnesThatDo() {
    ds.daemonSet(3, 3, 3, 3);

    assertThatThrownBy(() -> undo(RollbackTarget.revision(7), false))
        .isInstanceOf(RollbackRefusedException.class)
        .hasMessage("daemonset.apps/toolkit has no revision 7 (revisions: 1, 2, 3)");
  }

  @Test
  void refusesAMissingDaemonSet() {
    assertThatThrownBy(() -> undo(RollbackTarget.previous(), false))
        .isInstanceOf(RollbackRefusedException.class)
        .hasMessage("daemonset.apps/toolkit not found in namespace gpu");
  }

  @Test
  void refusesWhenTheDaemonSetMovedOnFromTheExpectedRevision() {
    ds.daemonSet(3, 3, 1, 2);

    assertThatThrownBy(() -> undo(RollbackTarget.hash(ds.hash(1), ds.hash(2)), false))
        .isInstanceOf(RollbackRefusedException.class)
        .hasMessageContaining("no longer runs revision " + ds.hash(2));
    assertThat(images()).containsExactly(ds.image(3));
  }

  @Test
  void rollsBackByHashWhileTheExpectedRevisionIsCurrent() {
    ds.daemonSet(2, 3, 1, 2);

    RollbackResult result = undo(RollbackTarget.hash(ds.hash(1), ds.hash(2)), false);

    assertThat(result.outcome()).isEqualTo(Outcome.ROLLED_BACK);
    assertThat(images()).containsExactly(ds.image(1));
  }

  @Test
  void retriesWhenAConcurrentWriteConflicts() {
    ds.daemonSet(2, 3, 1, 2);
    server
        .mockServer()
        .expect()
        .patch()
        .withPath("/apis/apps/v1/namespaces/gpu/daemonsets/toolkit")
        .andReturn(
            409,
            new StatusBuilder()
                .withStatus("Failure")
                .withReason("Conflict")
                .withCode(409)
                .withMessage("the object has been modified")
                .build())
        .once();

    RollbackResult result = undo(RollbackTarget.previous(), false);

    assertThat(result.outcome()).isEqualTo(Outcome.ROLLED_BACK);
    assertThat(images()).containsExactly(ds.image(1));
  }
}
