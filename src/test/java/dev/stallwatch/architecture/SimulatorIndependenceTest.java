package dev.stallwatch.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import org.junit.jupiter.api.Test;

/**
 * The simulator's DaemonSet controller writes a status the tests compare with the analyzer's
 * recount; that check is only worth something when the two read upstream's rules separately. So
 * {@code sim} keeps its own node fit, pod predicates and update budget and does not use the
 * analyzer's.
 */
class SimulatorIndependenceTest {
  @Test
  void theSimulatorHasItsOwnStatusPredicates() {
    noClasses()
        .that()
        .resideInAPackage("dev.stallwatch.sim..")
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.stallwatch.rollout.NodeEligibility")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.stallwatch.rollout.NodeEligibility$Fit")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.stallwatch.rollout.PodAvailability")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("dev.stallwatch.rollout.RolloutBudget")
        .because(
            "the simulator-vs-analyzer status check must compare two readings of upstream's"
                + " rules (UpstreamUpdateTest's rows check both)")
        .check(ProductionClasses.get());
  }
}
