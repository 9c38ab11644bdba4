package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.operator.decision.EventReason;
import dev.stallwatch.operator.decision.Resolution;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A deliberate narrowing (scenario toleration-dropped: the new template no longer tolerates
 * gpu-node-1's taint) acknowledged with {@value MetadataKeys#ACKNOWLEDGED}: the stall is Resolved,
 * not raised again for that revision, and the opted-in auto-rollback leaves the accepted revision
 * alone.
 */
class AcknowledgedExclusionIT {
  private static final String NS = SimulatedRun.NS;
  private static final String DS = SimulatedRun.DS;
  private static final Duration ROLLBACK_AFTER = Duration.ofMinutes(3);

  @Test
  void anAcknowledgedExclusionIsResolvedStaysQuietAndIsNotRolledBack() throws Exception {
    try (SimulatedRun run =
        SimulatedRun.start(
            "toleration-dropped",
            new OperatorSettings(
                Set.of(),
                Duration.ofMinutes(2),
                Duration.ofHours(24),
                0,
                false,
                null,
                true,
                ROLLBACK_AFTER))) {
      run.client()
          .apps()
          .daemonSets()
          .inNamespace(NS)
          .withName(DS)
          .edit(
              ds -> {
                ds.getMetadata().getAnnotations().put(MetadataKeys.AUTO_ROLLBACK, "true");
                return ds;
              });
      assertThat(run.drive(() -> run.active().isPresent(), Duration.ofMinutes(15))).isTrue();
      RolloutStall stall = run.active().orElseThrow();
      assertThat(stall.getStatus().cause()).isEqualTo("NodeExcluded");
      String template = template(run.client());

      run.client()
          .resource(stall)
          .edit(
              s -> {
                var annotations = new java.util.HashMap<String, String>();
                if (s.getMetadata().getAnnotations() != null) {
                  annotations.putAll(s.getMetadata().getAnnotations());
                }
                annotations.put(MetadataKeys.ACKNOWLEDGED, "true");
                s.getMetadata().setAnnotations(annotations);
                return s;
              });
      String name = stall.getMetadata().getName();
      assertThat(
              run.drive(
                  () -> RolloutStallStatus.RESOLVED.equals(run.stall(name).getStatus().phase()),
                  Duration.ofMinutes(1)))
          .isTrue();
      assertThat(run.stall(name).getStatus().conditions().get(0).getReason())
          .isEqualTo(Resolution.Acknowledged.name());

      // Well past the auto-rollback delay: the accepted revision stays, nothing is raised again.
      run.pass(ROLLBACK_AFTER.plusMinutes(2));
      assertThat(template(run.client())).isEqualTo(template);
      assertThat(run.events(EventReason.ROLLED_BACK.reason())).isEmpty();
      assertThat(run.events(EventReason.STALLED.reason())).hasSize(1);
      assertThat(run.stall(name).getStatus().phase()).isEqualTo(RolloutStallStatus.RESOLVED);
      assertThat(run.registry.scrape()).doesNotContain("stallwatch_rollout_stalled{");
    }
  }

  private static String template(KubernetesClient client) {
    DaemonSet ds = client.apps().daemonSets().inNamespace(NS).withName(DS).get();
    var spec = ds.getSpec().getTemplate().getSpec();
    return spec.getContainers().get(0).getImage() + " tolerations=" + spec.getTolerations();
  }
}
