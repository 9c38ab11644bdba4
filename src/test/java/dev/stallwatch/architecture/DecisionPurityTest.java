package dev.stallwatch.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import org.junit.jupiter.api.Test;

/**
 * The operator's decision step (observe → decide → act) stays pure: {@code RolloutDecider} and what
 * it plans with read no client, no cache, no clock and write no log; the reconciler observes and
 * {@code EffectRunner} acts.
 */
class DecisionPurityTest {
  private static final String[] DECISION = {
    "dev.stallwatch.operator.RolloutDecider",
    "dev.stallwatch.operator.RolloutState",
    "dev.stallwatch.operator.Effect",
    "dev.stallwatch.operator.EventReason",
    "dev.stallwatch.operator.ActiveStall",
    "dev.stallwatch.operator.Performed",
    "dev.stallwatch.operator.RoutingLabels",
    "dev.stallwatch.operator.StallPlanner",
    "dev.stallwatch.operator.StallPlan",
    "dev.stallwatch.operator.StallRecord",
    "dev.stallwatch.operator.Resolution",
    "dev.stallwatch.operator.StallNodes",
  };

  @Test
  void theDecisionStepUsesNoClientNoCacheAndNoLog() {
    noClasses()
        .that()
        .haveNameMatching(names())
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.fabric8.kubernetes.client..",
            "io.javaoperatorsdk..",
            "org.slf4j..",
            "java.io..",
            "java.net..")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("java.time.Clock")
        .check(ProductionClasses.get());
  }

  @Test
  void theDecisionStepNeverReadsTheSystemClock() {
    noClasses()
        .that()
        .haveNameMatching(names())
        .should()
        .callMethod(java.time.Instant.class, "now")
        .orShould()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .check(ProductionClasses.get());
  }

  /** The reconciler remembers one record per DaemonSet, in one map: nothing else by DaemonSet. */
  @Test
  void theReconcilerKeepsOneMapOfRolloutStates() {
    // One reconciler per kind of DaemonSet; they keep their fields in the base class they share.
    var reconciler = ProductionClasses.get().get("dev.stallwatch.operator.RolloutReconciler");
    for (String kind :
        java.util.List.of(
            "dev.stallwatch.operator.DaemonSetRolloutReconciler",
            "dev.stallwatch.operator.AdvancedDaemonSetRolloutReconciler")) {
      org.assertj.core.api.Assertions.assertThat(
              ProductionClasses.get().get(kind).getFields().stream()
                  .filter(
                      f ->
                          !f.getModifiers()
                              .contains(com.tngtech.archunit.core.domain.JavaModifier.STATIC)))
          .as("instance fields of %s", kind)
          .isEmpty();
    }
    var maps =
        reconciler.getFields().stream()
            .filter(f -> f.getRawType().isAssignableTo(java.util.Map.class))
            .toList();
    org.assertj.core.api.Assertions.assertThat(maps)
        .singleElement()
        .satisfies(
            f ->
                org.assertj.core.api.Assertions.assertThat(f.getType().getName())
                    .contains("RolloutState"));
  }

  /** The classes and their nested records. */
  private static String names() {
    return "(" + String.join("|", DECISION).replace(".", "\\.") + ")(\\$.*)?";
  }
}
