package dev.stallwatch.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layers of the production code: the pure analyzer at the bottom, the adapters from Kubernetes
 * objects above it, the faces (the command line also holds the plumbing every face shares), and the
 * root command that wires them. The simulator and the embedded API server exist for the demo (and
 * tests) only.
 */
class LayersTest {
  /**
   * The plumbing every face shares (exit codes, {@code --version}, duration and time flags,
   * logging, the cluster connection): it lives in {@code cli}, and the operator and the demo use it
   * too.
   */
  private static final Set<String> PLUMBING =
      Set.of(
          "ClusterOptions",
          "DurationParser",
          "ExitCodes",
          "LogSetup",
          "TimeParser",
          "VersionProvider");

  private static final DescribedPredicate<JavaClass> SHARED_PLUMBING =
      DescribedPredicate.describe(
          "the shared plumbing " + PLUMBING,
          c ->
              c.getPackageName().equals("dev.stallwatch.cli")
                  && PLUMBING.contains(c.getName().replaceAll("^.*\\.|\\$.*$", "")));

  private static JavaClasses production;

  @BeforeAll
  static void importClasses() {
    production =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.stallwatch");
  }

  @Test
  void eachLayerUsesOnlyTheLayersBelowIt() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("Core")
        .definedBy("dev.stallwatch.rollout..")
        .layer("Adapters")
        .definedBy(
            "dev.stallwatch.kube..",
            "dev.stallwatch.crd..",
            "dev.stallwatch.rollback..",
            "dev.stallwatch.report..")
        .layer("Faces")
        .definedBy("dev.stallwatch.cli..", "dev.stallwatch.operator..", "dev.stallwatch.demo..")
        .layer("Simulation")
        .definedBy("dev.stallwatch.sim..", "dev.stallwatch.embedded..")
        .layer("Main")
        .definedBy("dev.stallwatch.main..")
        .whereLayer("Main")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Faces")
        .mayOnlyBeAccessedByLayers("Main")
        .whereLayer("Simulation")
        .mayOnlyBeAccessedByLayers("Faces")
        .whereLayer("Adapters")
        .mayOnlyBeAccessedByLayers("Faces", "Simulation")
        .whereLayer("Core")
        .mayOnlyBeAccessedByLayers("Adapters", "Faces", "Simulation")
        .check(production);
  }

  @Test
  void theSimulatorAndTheEmbeddedApiServerServeOnlyTheDemo() {
    noClasses()
        .that()
        .resideOutsideOfPackages(
            "dev.stallwatch.demo..", "dev.stallwatch.sim..", "dev.stallwatch.embedded..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.stallwatch.sim..", "dev.stallwatch.embedded..")
        .check(production);
  }

  @Test
  void theOperatorNeedsNeitherTheCommandLineNorTheDemo() {
    noClasses()
        .that()
        .resideInAPackage("dev.stallwatch.operator..")
        .should()
        .dependOnClassesThat(resideInAPackage("dev.stallwatch.cli..").and(not(SHARED_PLUMBING)))
        .orShould()
        .dependOnClassesThat()
        .resideInAPackage("dev.stallwatch.demo..")
        .check(production);
  }

  @Test
  void theCommandLineNeedsNeitherTheOperatorNorTheDemo() {
    noClasses()
        .that()
        .resideInAPackage("dev.stallwatch.cli..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.stallwatch.operator..", "dev.stallwatch.demo..")
        .check(production);
  }

  @Test
  void theOperatorImagesRootCommandLeavesTheDemoOut() {
    // The image's jar holds no demo, sim or embedded classes (pom.xml, profile `image`).
    noClasses()
        .that()
        .haveFullyQualifiedName("dev.stallwatch.main.ImageCommand")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.stallwatch.demo..", "dev.stallwatch.sim..", "dev.stallwatch.embedded..")
        .check(production);
  }

  @Test
  void noPackageCycles() {
    slices().matching("dev.stallwatch.(*)..").should().beFreeOfCycles().check(production);
  }

  /** Also between a package and the rooms inside it (operator and operator.cache, kube.dump). */
  @Test
  void noCyclesBetweenNestedPackages() {
    slices().matching("dev.stallwatch.(**)").should().beFreeOfCycles().check(production);
  }
}
