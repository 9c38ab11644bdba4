package dev.stallwatch.operator.effects;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.operator.decision.RoutingLabels;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

public class StallWritesTest {
  private static RolloutStallStatus status(String phase, String since, String observed) {
    return RolloutStallStatus.builder()
        .phase(phase)
        .node("gpu-node-1")
        .stalledNodeCount(1)
        .cause("ImagePull")
        .suspect("NewRevision")
        .stalledSince(since)
        .lastObserved(observed)
        .build();
  }

  @Test
  void aStatusReadBackIsThisOperatorsOwnWriteOnlyWhenItsStampsAgree() {
    RolloutStallStatus written = status("Active", "2026-12-04T06:00:00Z", "2026-12-04T06:10:00Z");

    assertThat(StallWrites.sameStatus(written, written)).isTrue();
    assertThat(
            StallWrites.sameStatus(
                status("Active", "2026-12-04T06:00:00Z", "2026-12-04T06:10:00Z"), written))
        .isTrue();
    // Another write of the same stall (a later look), a hand edit, or none at all: not ours.
    assertThat(
            StallWrites.sameStatus(
                status("Active", "2026-12-04T06:00:00Z", "2026-12-04T06:10:05Z"), written))
        .isFalse();
    assertThat(
            StallWrites.sameStatus(
                status("Resolved", "2026-12-04T06:00:00Z", "2026-12-04T06:10:00Z"), written))
        .isFalse();
    assertThat(StallWrites.sameStatus(null, written)).isFalse();
  }

  @Test
  void aNewRolloutStallCarriesTheDaemonSetsAllowlistedLabelsButKeepsItsOwn() {
    var planned =
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName("toolkit-abc")
            .withLabels(
                java.util.Map.of(
                    "stallwatch.dev/daemonset",
                    "toolkit",
                    "app.kubernetes.io/managed-by",
                    "stallwatch"))
            .build();
    var routing = new RoutingLabels(java.util.List.of("team", "app.kubernetes.io/managed-by"));

    var meta =
        StallWrites.withRoutingLabels(
            planned,
            java.util.Map.of(
                "team", "gpu-platform", "tier", "node", "app.kubernetes.io/managed-by", "Helm"),
            routing);

    assertThat(meta.getName()).isEqualTo("toolkit-abc");
    assertThat(meta.getLabels())
        .containsExactlyInAnyOrderEntriesOf(
            java.util.Map.of(
                "team", "gpu-platform",
                "stallwatch.dev/daemonset", "toolkit",
                "app.kubernetes.io/managed-by", "stallwatch"));
    assertThat(StallWrites.withRoutingLabels(planned, java.util.Map.of("tier", "node"), routing))
        .isSameAs(planned);
  }

  @Test
  void onlyAGoawayOrALostConnectionMayHaveDoneTheRequest() {
    assertThat(
            StallWrites.answerLost(
                new KubernetesClientException(
                    "An error has occurred.", new java.io.IOException("GOAWAY received"))))
        .isTrue();
    assertThat(
            StallWrites.answerLost(
                new KubernetesClientException(
                    "An error has occurred.", new java.net.ConnectException("refused"))))
        .isTrue();
    assertThat(StallWrites.answerLost(new KubernetesClientException("Forbidden", 403, null)))
        .isFalse();
    assertThat(StallWrites.answerLost(new KubernetesClientException("Conflict", 409, null)))
        .isFalse();
  }
}
