package dev.stallwatch.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HumanAgeTest {

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
