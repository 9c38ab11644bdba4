package dev.stallwatch.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** When {@code .status} alone proves a rollout complete: row by row, kstatus style. */
class DaemonSetStatusTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    // case,                     generation, observed, desired, current, ready, updated, available,
    // misscheduled, complete
    "all done,                   1, 1, 4, 4, 4, 4, 4, 0, true",
    "zero desired,               1, 1, 0, 0, 0, 0, 0, 0, true",
    "generation not observed,    2, 1, 4, 4, 4, 4, 4, 0, false",
    "observed ahead,             1, 2, 4, 4, 4, 4, 4, 0, true",
    "one not updated,            1, 1, 4, 4, 4, 3, 4, 0, false",
    "one not available,          1, 1, 4, 4, 4, 4, 3, 0, false",
    "one not current,            1, 1, 4, 3, 4, 4, 4, 0, false",
    "fewer ready than available, 1, 1, 4, 4, 2, 4, 4, 0, false",
    "one misscheduled,           1, 1, 4, 4, 4, 4, 4, 1, false",
  })
  void reportsCompleteOnlyWhenEveryCountAgrees(
      String name,
      long generation,
      long observed,
      int desired,
      int current,
      int ready,
      int updated,
      int available,
      int misscheduled,
      boolean complete) {
    DaemonSetView.Status status =
        new DaemonSetView.Status(
            observed, desired, current, ready, updated, available, 0, misscheduled);

    assertThat(status.reportsComplete(generation)).isEqualTo(complete);
  }
}
