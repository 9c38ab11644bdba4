package dev.stallwatch.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DurationsTest {

  @ParameterizedTest(name = "{0}s old prints as {1}")
  @CsvSource({
    "-5, <invalid>",
    "-1, 0s",
    "0, 0s",
    "45, 45s",
    "119, 119s",
    "120, 2m",
    "192, 3m12s",
    "599, 9m59s",
    "600, 10m",
    "10799, 179m",
    "10800, 3h",
    "18600, 5h10m",
    "28800, 8h",
    "172799, 47h",
    "172800, 2d",
    "183600, 2d3h",
    "691200, 8d",
    "63071999, 729d",
    "63072000, 2y",
    "63158400, 2y1d",
    "252288000, 8y"
  })
  void agesAreCoarserTheOlderTheObject(long seconds, String printed) {
    assertThat(Durations.age(Duration.ofSeconds(seconds))).isEqualTo(printed);
  }

  @ParameterizedTest(name = "{0}ms is {1} for flags and messages")
  @CsvSource({
    "-1000, 0s",
    "0, 0s",
    "250, 250ms",
    "45000, 45s",
    "90000, 1m30s",
    "250000, 4m10s",
    "300000, 5m",
    "5400000, 1h30m",
    "3610000, 1h10s"
  })
  void compactTextIsWhatTheCommandLineTakesBack(long millis, String printed) {
    assertThat(Durations.compact(Duration.ofMillis(millis))).isEqualTo(printed);
  }

  @ParameterizedTest(name = "{0}s is {1} in Go")
  @CsvSource({"0, 0s", "10, 10s", "80, 1m20s", "300, 5m0s", "3600, 1h0m0s", "-5, -5s"})
  void goTextIsGosDurationString(long seconds, String printed) {
    assertThat(Durations.go(Duration.ofSeconds(seconds))).isEqualTo(printed);
  }

  @ParameterizedTest(name = "{0}s reads {1} on the demo's clock")
  @CsvSource({"-3, 00:00", "0, 00:00", "59, 00:59", "90, 01:30", "4505, 75:05"})
  void clockTextIsMinutesAndSeconds(long seconds, String printed) {
    assertThat(Durations.clock(Duration.ofSeconds(seconds))).isEqualTo(printed);
  }
}
