package dev.stallwatch.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RolloutBudgetTest {

  @ParameterizedTest(name = "maxUnavailable={0} maxSurge={1} desired={2} -> {3}/{4}")
  @CsvSource({
    // absolute numbers pass through
    "1,0,3,1,0",
    "2,0,10,2,0",
    // percentages of DESIRED round up (upstream GetScaledValueFromIntOrPercent(…, true))
    "10%,0,3,1,0",
    "50%,0,3,2,0",
    "34%,0,100,34,0",
    "1%,0,1000,10,0",
    "0,10%,3,0,1",
    "0,100%,5,0,5",
    // both zero on a non-empty DaemonSet: upstream accepts one unavailable
    "0,0,3,1,0",
    "0%,0%,3,1,0",
    // nothing desired: nothing to budget, and no defaulting
    "0,0,0,0,0",
    "25%,0,0,0,0",
  })
  void budgetsFollowTheUpstreamArithmetic(
      String maxUnavailable, String maxSurge, int desired, int unavailable, int surge) {
    DaemonSetView.UpdateStrategy strategy =
        new DaemonSetView.UpdateStrategy(
            false, IntOrPercent.parse(maxUnavailable), IntOrPercent.parse(maxSurge));
    assertThat(RolloutBudget.of(strategy, desired))
        .isEqualTo(new RolloutBudget(unavailable, surge));
  }

  @Test
  void surgeIsAllowedByAnyPositiveMaxSurge() {
    assertThat(
            RolloutBudget.allowsSurge(
                new DaemonSetView.UpdateStrategy(
                    false, IntOrPercent.ZERO, IntOrPercent.parse("1%"))))
        .isTrue();
    assertThat(RolloutBudget.allowsSurge(DaemonSetView.UpdateStrategy.DEFAULT)).isFalse();
  }

  @Test
  void intOrPercentRejectsTextThatIsNeither() {
    assertThatThrownBy(() -> IntOrPercent.parse("abc"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"abc\"");
    assertThatThrownBy(() -> IntOrPercent.parse("-1")).isInstanceOf(IllegalArgumentException.class);
    assertThat(IntOrPercent.parse(" 25% ")).isEqualTo(new IntOrPercent(25, true));
    assertThat(IntOrPercent.parse(3)).isEqualTo(new IntOrPercent(3, false));
    assertThat(IntOrPercent.parse(null)).isNull();
  }
}
