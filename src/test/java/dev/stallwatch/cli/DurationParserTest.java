package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationParserTest {

  @ParameterizedTest
  @CsvSource({
    "90s, PT1M30S",
    "5m, PT5M",
    "1h, PT1H",
    "1h30m, PT1H30M",
    "500ms, PT0.5S",
    "2d, PT48H",
    "PT5M, PT5M",
    "pt90s, PT1M30S",
    "' 5m ', PT5M",
    "0s, PT0S"
  })
  void reads_the_forms_people_write(String text, String iso) {
    assertThat(DurationParser.parse(text)).isEqualTo(Duration.parse(iso));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "5", "five minutes", "5 m", "-5m", "PT-5M", "5y", "m5", "P"})
  void rejects_anything_else_naming_the_text_and_the_forms(String text) {
    assertThatThrownBy(() -> DurationParser.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"" + text.trim() + "\"")
        .hasMessageContaining("90s, 5m, 1h");
  }

  @ParameterizedTest
  @ValueSource(strings = {"99999999999999999999s", "9999999999999999d"})
  void rejects_durations_too_long_to_hold(String text) {
    assertThatThrownBy(() -> DurationParser.parse(text)).hasMessageContaining("too long");
  }

  @ParameterizedTest
  @CsvSource({
    "2026-12-02T16:05:00Z, 2026-12-02T16:05:00Z",
    "2026-12-02T18:05:00+02:00, 2026-12-02T16:05:00Z",
    "2026-12-02t16:05:00.250z, 2026-12-02T16:05:00.250Z",
    "2026-12-02 16:05:00Z, 2026-12-02T16:05:00Z"
  })
  void times_are_rfc_3339(String text, String instant) {
    assertThat(TimeParser.parse(text)).isEqualTo(Instant.parse(instant));
  }

  @ParameterizedTest
  @ValueSource(strings = {"now", "2026-12-02", "2026-12-02T16:05:00", "16:05"})
  void a_time_without_zone_or_date_is_rejected(String text) {
    assertThatThrownBy(() -> TimeParser.parse(text))
        .hasMessage("\"" + text + "\" is not an RFC 3339 time like 2026-12-02T16:05:00Z");
  }
}
