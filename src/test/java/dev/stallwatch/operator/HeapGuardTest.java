package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeapGuardTest {
  private static final long MAX = 100L << 20;
  private static final long FULL = MAX * HeapGuard.NEARLY_FULL_PERCENT / 100;

  @Test
  void fullCollectionsInARowThatLeaveTheHeapNearlyFullEndTheOperatorAtTheLastOfThem() {
    HeapGuard.Streak streak = new HeapGuard.Streak();
    allButTheLastDoNotEnd(streak);
    assertThat(streak.afterFullCollection(MAX, MAX)).isTrue();
  }

  @Test
  void aCollectionThatFreesTheHeapStartsTheCountAgain() {
    HeapGuard.Streak streak = new HeapGuard.Streak();
    allButTheLastDoNotEnd(streak);
    assertThat(streak.afterFullCollection(FULL - 1, MAX)).isFalse();
    allButTheLastDoNotEnd(streak);
    assertThat(streak.afterFullCollection(FULL, MAX)).isTrue();
  }

  /** {@link HeapGuard#FULL_IN_A_ROW} - 1 nearly full collections, none of which ends it. */
  private static void allButTheLastDoNotEnd(HeapGuard.Streak streak) {
    for (int i = 1; i < HeapGuard.FULL_IN_A_ROW; i++) {
      assertThat(streak.afterFullCollection(FULL, MAX)).as("collection %d", i).isFalse();
    }
  }

  @Test
  void aPoolWithoutAMaximumNeverEndsTheOperator() {
    HeapGuard.Streak streak = new HeapGuard.Streak();
    for (int i = 0; i < 3 * HeapGuard.FULL_IN_A_ROW; i++) {
      assertThat(streak.afterFullCollection(MAX, -1)).isFalse();
    }
  }

  @Test
  void theOldGenerationOfEachCollectorIsKnownByItsPoolName() {
    assertThat(HeapGuard.isOldGeneration("Tenured Gen")).isTrue(); // serial
    assertThat(HeapGuard.isOldGeneration("PS Old Gen")).isTrue(); // parallel
    assertThat(HeapGuard.isOldGeneration("G1 Old Gen")).isTrue();
    assertThat(HeapGuard.isOldGeneration("Eden Space")).isFalse();
    assertThat(HeapGuard.isOldGeneration("G1 Survivor Space")).isFalse();
  }

  @Test
  void theLastLineSaysTheHeapStayedFullAndWhereTheSizingGuideIs() {
    assertThat(HeapGuard.ending(40L << 20, HeapGuard.FULL_IN_A_ROW))
        .isEqualTo(
            "the heap of 40 MiB stayed full across 5 full collections in a row: the operator ends"
                + " now (exit 3) rather than spend its time collecting; see "
                + HeapGuard.SIZING)
        .doesNotContain("the heap is nearly full");
  }
}
