package dev.stallwatch.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HumanAgeTest {

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
    assertThat(HumanAge.of(Duration.ofSeconds(seconds))).isEqualTo(printed);
  }

  @ParameterizedTest(name = "timestamp \"{0}\" has age {1}")
  @CsvSource({
    "2026-12-02T10:00:00Z, 120m",
    "2026-12-02T07:00:00Z, 5h",
    "'', <unknown>",
    "yesterday, <unknown>"
  })
  void timestampsAreMeasuredAgainstNow(String timestamp, String printed) {
    assertThat(HumanAge.since(timestamp, Instant.parse("2026-12-02T12:00:00Z"))).isEqualTo(printed);
  }
}
