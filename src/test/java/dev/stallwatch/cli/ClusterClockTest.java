package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ClusterClockTest {
  private final Instant local = Instant.parse("2026-12-04T06:30:00.400Z");

  @Test
  void theApiServersDateSaysHowFarTheClusterIsFromThisMachine() {
    ClusterClock ahead = ClusterClock.of("Fri, 04 Dec 2026 06:40:00 GMT", local);
    assertThat(ahead.skew()).isEqualTo(Duration.ofMinutes(10).minusMillis(400));
    assertThat(ahead.now(local)).isEqualTo(Instant.parse("2026-12-04T06:40:00Z"));

    ClusterClock behind = ClusterClock.of("Fri, 04 Dec 2026 06:20:00 GMT", local);
    assertThat(behind.now(local)).isEqualTo(Instant.parse("2026-12-04T06:20:00Z"));
  }

  @Test
  void withinTheHeadersWholeSecondsTheClocksAgree() {
    assertThat(ClusterClock.of("Fri, 04 Dec 2026 06:30:01 GMT", local))
        .isEqualTo(ClusterClock.SAME);
    assertThat(ClusterClock.of("Fri, 04 Dec 2026 06:29:59 GMT", local))
        .isEqualTo(ClusterClock.SAME);
  }

  @Test
  void noOrAnUnreadableDateIsNoSkew() {
    assertThat(ClusterClock.of(null, local)).isEqualTo(ClusterClock.SAME);
    assertThat(ClusterClock.of("yesterday", local)).isEqualTo(ClusterClock.SAME);
    assertThat(ClusterClock.SAME.now(local)).isEqualTo(local);
  }
}
