package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class DurationFlagTest {
  @Test
  void readsKubernetesStyleDurations() {
    assertThat(DurationFlag.parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(DurationFlag.parse("24h")).isEqualTo(Duration.ofHours(24));
    assertThat(DurationFlag.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
    assertThat(DurationFlag.parse("90s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(DurationFlag.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationFlag.parse("PT5M")).isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void rejectsAnythingElseNamingTheValue() {
    for (String bad : new String[] {"", "5", "five minutes", "5m junk", "-5m", "PTX"}) {
      assertThatThrownBy(() -> DurationFlag.parse(bad))
          .isInstanceOf(TypeConversionException.class)
          .hasMessageContaining("'" + bad + "' is not a duration");
    }
  }
}
