package dev.stallwatch.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RolloutStallStatusTest {
  private static final Instant T = Instant.parse("2026-12-02T16:00:00Z");

  private static RolloutStallStatus status(String stalledSince, String resolvedAt) {
    return status(stalledSince, resolvedAt, null, null);
  }

  private static RolloutStallStatus status(
      String stalledSince, String resolvedAt, String cause, String suspect) {
    return RolloutStallStatus.builder()
        .phase(RolloutStallStatus.RESOLVED)
        .node("gpu-node-1")
        .nodes(List.of())
        .stalledNodeCount(0)
        .cause(cause)
        .suspect(suspect)
        .stalledSince(stalledSince)
        .resolvedAt(resolvedAt)
        .build();
  }

  @Test
  void theTimesItWroteReadBackAsInstants() {
    RolloutStallStatus s = status("2026-12-02T16:00:00Z", "2026-12-02T16:05:00Z");

    assertThat(s.stalledSinceTime()).contains(T);
    assertThat(s.resolvedAtTime()).contains(T.plusSeconds(300));
    assertThat(
            new RolloutStallStatus.StalledNode(
                    "n", null, null, null, null, "2026-12-02T16:00:00Z", null)
                .sinceTime())
        .contains(T);
    assertThat(new RolloutStallStatus.Rollback("a", "b", "2026-12-02T16:00:00Z", null).atTime())
        .contains(T);
  }

  @Test
  void anAbsentOrHandEditedTimeIsEmptyNotAnError() {
    RolloutStallStatus s = status(null, "yesterday");

    assertThat(s.stalledSinceTime()).isEmpty();
    assertThat(s.resolvedAtTime()).isEmpty();
    assertThat(new RolloutStallStatus.Rollback("a", "b", "soon", null).atTime()).isEmpty();
  }

  @Test
  void aBuilderFromAStatusCopiesEveryField() {
    RolloutStallStatus full =
        RolloutStallStatus.builder()
            .phase(RolloutStallStatus.RESOLVED)
            .node("gpu-node-1")
            .nodes(
                List.of(
                    new RolloutStallStatus.StalledNode(
                        "gpu-node-1", "p", "ImagePull", "r", "m", "2026-12-02T16:00:00Z", "s")))
            .stalledNodeCount(1)
            .cause("ImagePull")
            .reason("ImagePullBackOff")
            .message("message")
            .evidence("evidence")
            .suspect("NewRevision")
            .suspectReason("why")
            .oldRevision(new RolloutStallStatus.Revision("a", 1L, List.of("i:1"), "i:1"))
            .newRevision(new RolloutStallStatus.Revision("b", 2L, List.of("i:2"), "i:2"))
            .counts(new RolloutStallStatus.StallCounts(3, 3, 2, 1, 2, 1, 0))
            .ready("2/3")
            .split(
                new RolloutStallStatus.NodeSplit(
                    2, 1, 0, "2 old / 1 new / 0 none", List.of("x"), List.of("y"), List.of()))
            .stalledSince("2026-12-02T16:00:00Z")
            .lastObserved("2026-12-02T16:01:00Z")
            .resolvedAt("2026-12-02T16:05:00Z")
            .rollback(new RolloutStallStatus.Rollback("b", "a", "2026-12-02T16:04:00Z", "me"))
            .rollbackWithheld("withheld")
            .conditions(
                List.of(
                    new io.fabric8.kubernetes.api.model.ConditionBuilder()
                        .withType("Stalled")
                        .withStatus("False")
                        .build()))
            .build();

    // Every field is set, so a field the copy forgets fails here.
    assertThat(full).hasNoNullFieldsOrProperties();
    assertThat(full.toBuilder().build()).isEqualTo(full);
    assertThat(full.toBuilder().message("other").build().message()).isEqualTo("other");
  }
}
