package dev.stallwatch.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/** The production classes of {@code dev.stallwatch}, imported once per test JVM. */
final class ProductionClasses {
  private ProductionClasses() {}

  private static JavaClasses classes;

  static synchronized JavaClasses get() {
    if (classes == null) {
      classes =
          new ClassFileImporter()
              .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
              .importPackages("dev.stallwatch");
    }
    return classes;
  }
}
