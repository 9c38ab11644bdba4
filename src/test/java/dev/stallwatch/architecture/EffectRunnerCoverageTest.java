package dev.stallwatch.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.InstanceofCheck;
import com.tngtech.archunit.core.domain.JavaClass;
import dev.stallwatch.operator.decision.Effect;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every kind of {@link Effect} the decider can return has a branch in {@code EffectRunner.run}.
 * Java 17 has no exhaustive pattern switch, so the compiler would not say when a new kind is
 * forgotten; the runner would throw on its first use. Read from the bytecode's {@code instanceof}
 * checks.
 */
class EffectRunnerCoverageTest {
  @Test
  void theRunnerHasABranchForEveryKindOfEffect() {
    JavaClass runner = ProductionClasses.get().get("dev.stallwatch.operator.effects.EffectRunner");
    Set<String> checked =
        runner.getMethods().stream()
            .filter(m -> m.getName().equals("run"))
            .flatMap(m -> m.getInstanceofChecks().stream())
            .map(InstanceofCheck::getRawType)
            .map(JavaClass::getName)
            .collect(Collectors.toSet());
    Set<String> kinds =
        Arrays.stream(Effect.class.getPermittedSubclasses())
            .map(Class::getName)
            .collect(Collectors.toSet());

    assertThat(kinds).as("the kinds of Effect").hasSizeGreaterThanOrEqualTo(12);
    assertThat(checked).as("the kinds EffectRunner.run tells apart").containsAll(kinds);
  }
}
