package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SimClockTest {

  static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

  @Test
  void aVirtualClockMovesOnlyWhenAdvanced() {
    SimClock c = SimClock.virtual(T0);
    assertThat(c.instant()).isEqualTo(T0);
    c.advance(Duration.ofMinutes(3));
    assertThat(c.instant()).isEqualTo(T0.plusSeconds(180));
    assertThatThrownBy(() -> c.advance(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void failedPodBackoffDoublesFromOneSecondAndCapsAtFifteenMinutes() {
    FailedPodBackoff b = new FailedPodBackoff();
    assertThat(b.inBackoff("k", T0)).isFalse();
    b.next("k", T0);
    assertThat(b.inBackoff("k", T0.plusMillis(999))).isTrue();
    assertThat(b.inBackoff("k", T0.plusSeconds(1))).isFalse();
    b.next("k", T0.plusSeconds(1));
    assertThat(b.inBackoff("k", T0.plusSeconds(2))).isTrue();
    assertThat(b.inBackoff("k", T0.plusSeconds(3))).isFalse();
    Instant t = T0.plusSeconds(3);
    for (int i = 0; i < 20; i++) {
      b.next("k", t);
    }
    assertThat(b.inBackoff("k", t.plus(Duration.ofMinutes(15)).minusSeconds(1))).isTrue();
    assertThat(b.inBackoff("k", t.plus(Duration.ofMinutes(15)))).isFalse();
  }
}
