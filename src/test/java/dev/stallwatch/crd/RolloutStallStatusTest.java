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
    return new RolloutStallStatus(
        RolloutStallStatus.RESOLVED,
        "gpu-node-1",
        List.of(),
        0,
        cause,
        null,
        null,
        null,
        suspect,
        null,
        null,
        null,
        null,
        null,
        null,
        stalledSince,
        null,
        resolvedAt,
        null,
        null,
        null);
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
}
