package dev.stallwatch.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PodAvailabilityTest {
  private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");

  static PodView pod(String name, String node, Instant created, Map<String, String> labels) {
    return new PodView(
        "ns", name, null, labels, null, node, node, created, null, "Running", null, null, null,
        null, null, null, null);
  }

  static PodView readyPod(Instant readySince) {
    return new PodView(
        "ns",
        "p",
        null,
        null,
        null,
        "n",
        "n",
        NOW,
        null,
        "Running",
        null,
        null,
        List.of(new PodView.Condition("Ready", "True", null, null, readySince)),
        null,
        null,
        null,
        null);
  }

  // The rows of upstream's TestIsPodUpdated, in our words: hash OR template generation.
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "generation and hash both match,          12345, 55555, 12345, 55555, true",
    "generation matches and hash does not,    12345, 55555, 12345, 55555123, true",
    "generation matches and no hash label,    12345, ,      12345, 55555, true",
    "generation matches and no hash either,   12345, ,      12345, , true",
    "generation matches with label but no hash, 12345, 55555, 12345, , true",
    "hash matches and generation does not,    12345, 55555, 12350, 55555, true",
    "neither matches,                         12345, 55555, 12350, 55555123, false",
    "no labels and no hash,                   ,      ,      12345, , false",
    "no labels,                               ,      ,      12345, 55555, false",
    "no template generation on the DaemonSet, 12345, 55555, ,      55555123, false",
  })
  void aPodIsUpdatedWhenItsHashOrItsTemplateGenerationMatches(
      String description,
      String podGeneration,
      String podHash,
      Long dsGeneration,
      String hash,
      boolean updated) {
    Map<String, String> labels = new HashMap<>();
    if (podGeneration != null) {
      labels.put(MetadataKeys.TEMPLATE_GENERATION_LABEL, podGeneration);
    }
    if (podHash != null) {
      labels.put(MetadataKeys.REVISION_HASH_LABEL, podHash);
    }
    assertThat(PodAvailability.isUpdated(pod("p", "n", NOW, labels), hash, dsGeneration))
        .isEqualTo(updated);
  }

  @Test
  void aReadyPodIsAvailableOnlyOnceMinReadySecondsHavePassedStrictly() {
    assertThat(PodAvailability.isAvailable(readyPod(NOW.minusSeconds(5)), 0, NOW)).isTrue();
    assertThat(PodAvailability.isAvailable(readyPod(NOW.minusSeconds(5)), 10, NOW)).isFalse();
    assertThat(PodAvailability.isAvailable(readyPod(NOW.minusSeconds(10)), 10, NOW)).isFalse();
    assertThat(PodAvailability.isAvailable(readyPod(NOW.minusSeconds(11)), 10, NOW)).isTrue();
    assertThat(PodAvailability.isAvailable(readyPod(null), 10, NOW)).isFalse();
    assertThat(PodAvailability.availableAt(readyPod(NOW.minusSeconds(5)), 10, NOW))
        .isEqualTo(NOW.plusSeconds(5).plusMillis(1));
  }

  @Test
  void aPodWithoutAReadyConditionIsNeitherReadyNorAvailable() {
    PodView p = pod("p", "n", NOW, Map.of());
    assertThat(PodAvailability.isReady(p)).isFalse();
    assertThat(PodAvailability.isAvailable(p, 0, NOW)).isFalse();
    assertThat(PodAvailability.availableAt(p, 10, NOW)).isNull();
  }

  @Test
  void podsAreOrderedBoundFirstThenOldestThenByName() {
    PodView unboundOldest = pod("a", "", NOW.minusSeconds(300), Map.of());
    PodView boundNewer = pod("z", "n", NOW.minusSeconds(10), Map.of());
    PodView boundOlder = pod("y", "n", NOW.minusSeconds(100), Map.of());
    PodView boundSameTimeB = pod("b", "n", NOW.minusSeconds(100), Map.of());
    List<PodView> pods =
        new ArrayList<>(List.of(unboundOldest, boundNewer, boundOlder, boundSameTimeB));
    pods.sort(PodAvailability.OLDEST_FIRST);
    assertThat(pods).extracting(PodView::name).containsExactly("b", "y", "z", "a");
  }
}
