package dev.stallwatch.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import org.junit.jupiter.api.Test;

/**
 * The operator's rooms: {@code operator.decision} (observe → <b>decide</b> → act) stays pure — no
 * client, cache, metrics registry, clock or log — and depends on no other room; {@code
 * operator.cache} reads, {@code operator.effects} acts, and neither reaches into the wiring in
 * {@code operator}. Package rules: a class added to a room is held to them without being listed.
 */
class DecisionPurityTest {
  private static final String DECISION = "dev.stallwatch.operator.decision..";

  @Test
  void theDecisionRoomUsesNoClientNoCacheNoMetricsAndNoLog() {
    noClasses()
        .that()
        .resideInAPackage(DECISION)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.fabric8.kubernetes.client..",
            "io.javaoperatorsdk..",
            "io.micrometer..",
            "org.slf4j..",
            "java.io..",
            "java.net..")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("java.time.Clock")
        .check(ProductionClasses.get());
  }

  @Test
  void theDecisionRoomNeverReadsTheSystemClock() {
    noClasses()
        .that()
        .resideInAPackage(DECISION)
        .should()
        .callMethod(java.time.Instant.class, "now")
        .orShould()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .check(ProductionClasses.get());
  }

  @Test
  void theDecisionRoomDependsOnNoOtherRoomOfTheOperator() {
    noClasses()
        .that()
        .resideInAPackage(DECISION)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.stallwatch.operator",
            "dev.stallwatch.operator.cache..",
            "dev.stallwatch.operator.effects..")
        .check(ProductionClasses.get());
  }

  @Test
  void theCachesAndTheEffectsStayOutOfTheWiringAndOfEachOther() {
    noClasses()
        .that()
        .resideInAPackage("dev.stallwatch.operator.cache..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.stallwatch.operator", "dev.stallwatch.operator.effects..", DECISION)
        .check(ProductionClasses.get());
    noClasses()
        .that()
        .resideInAPackage("dev.stallwatch.operator.effects..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.stallwatch.operator", "dev.stallwatch.operator.cache..")
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
}
