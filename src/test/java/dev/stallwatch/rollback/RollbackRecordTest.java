package dev.stallwatch.rollback;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.rollout.MetadataKeys;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RollbackRecordTest {

  @Test
  void roundTripsThroughTheDaemonSetAnnotations() {
    RollbackRecord record =
        new RollbackRecord(
            "7c9a2e", "6d5f8b", Instant.parse("2026-12-02T10:00:00Z"), "stallwatch undo");

    assertThat(RollbackRecord.fromAnnotations(record.annotations())).contains(record);
  }

  @Test
  void isAbsentWithoutBothHashes() {
    assertThat(RollbackRecord.fromAnnotations(null)).isEmpty();
    assertThat(RollbackRecord.fromAnnotations(Map.of(MetadataKeys.ROLLED_BACK_FROM, "a")))
        .isEmpty();
  }

  @Test
  void keepsTheHashesWhenTheTimeCannotBeRead() {
    Map<String, String> annotations =
        new HashMap<>(new RollbackRecord("a", "b", null, "x").annotations());
    annotations.put(MetadataKeys.ROLLED_BACK_AT, "yesterday");

    assertThat(RollbackRecord.fromAnnotations(annotations))
        .contains(new RollbackRecord("a", "b", null, "x"));
  }
}
