package dev.stallwatch.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The analyzer stays a pure function: no client, no clock, no I/O. */
class AnalyzerPurityTest {
  private static JavaClasses production;

  @BeforeAll
  static void importClasses() {
    production =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.stallwatch");
  }

  @Test
  void theAnalyzerDependsOnlyOnTheJdkAndItself() {
    classes()
        .that()
        .resideInAPackage("dev.stallwatch.rollout..")
        .should()
        .onlyDependOnClassesThat()
        // java.math: exact resource quantities (500m, 1Gi) when the suspect rules compare requests.
        .resideInAnyPackage(
            "dev.stallwatch.rollout..", "java.lang..", "java.util..", "java.time..", "java.math..")
        .check(production);
  }

  @Test
  void theAnalyzerNeverReadsTheSystemClock() {
    noClasses()
        .that()
        .resideInAPackage("dev.stallwatch.rollout..")
        .should()
        .callMethod(java.time.Instant.class, "now")
        .orShould()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .orShould()
        .callMethod(java.time.Clock.class, "systemUTC")
        .orShould()
        .callMethod(java.time.Clock.class, "systemDefaultZone")
        .check(production);
  }

  @Test
  void theAnalyzerDoesNotUseTheKubernetesClientOrIo() {
    noClasses()
        .that()
        .resideInAPackage("dev.stallwatch.rollout..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.fabric8..", "io.javaoperatorsdk..", "java.io..", "java.nio..", "java.net..")
        .check(production);
  }
}
