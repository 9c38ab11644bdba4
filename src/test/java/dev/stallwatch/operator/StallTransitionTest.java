package dev.stallwatch.operator;

import static dev.stallwatch.operator.TestingVerdicts.stalled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.rollout.Cause;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class StallTransitionTest {
  private final Instant now = Instant.parse("2026-12-02T10:07:00Z");
  private final RolloutStallStatus active = StallRecord.active(stalled(Cause.ImagePull), null, now);
  private final RolloutStallStatus resolved =
      StallRecord.resolved(active, Resolution.RolloutComplete, "done", now.plusSeconds(5));

  @Test
  void aFirstActiveStatusIsAStall() {
    assertThat(StallTransition.between(null, active)).isEqualTo(StallTransition.STALLED);
  }

  @Test
  void anActiveStallSeenAgainIsNoNewStall() {
    assertThat(StallTransition.between(active, active)).isEqualTo(StallTransition.STILL_STALLED);
  }

  @Test
  void activeToResolvedIsAResolution() {
    assertThat(StallTransition.between(active, resolved)).isEqualTo(StallTransition.RESOLVED);
  }

  @Test
  void resolvedStaysQuietAndCanStallAgain() {
    assertThat(StallTransition.between(resolved, resolved)).isEqualTo(StallTransition.UNCHANGED);
    assertThat(StallTransition.between(resolved, active)).isEqualTo(StallTransition.STALLED);
  }
}
