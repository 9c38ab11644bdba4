package dev.stallwatch.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

/**
 * The {@code RolloutStall} status keeps its times as RFC 3339 strings on the wire (a hand-edited
 * value must not break reading the object); Java code reads them through the status's typed
 * accessors ({@code stalledSinceTime()}, …), the one parse with the one fallback. The faces and the
 * plumbing that read statuses parse no times themselves, except {@code cli.TimeParser} for
 * command-line flags.
 */
class StatusTimesTest {
  @Test
  void onlyTheStatusAndTheFlagParserTurnTimeTextIntoInstants() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.stallwatch.operator..",
            "dev.stallwatch.cli..",
            "dev.stallwatch.report..",
            "dev.stallwatch.demo..",
            "dev.stallwatch.main..",
            "dev.stallwatch.rollout..")
        .and()
        .doNotHaveFullyQualifiedName("dev.stallwatch.cli.TimeParser")
        .should()
        .callMethod(Instant.class, "parse", CharSequence.class)
        .orShould()
        .callMethod(OffsetDateTime.class, "parse", CharSequence.class)
        .orShould()
        .callMethod(OffsetDateTime.class, "parse", CharSequence.class, DateTimeFormatter.class)
        .orShould()
        .callMethod(ZonedDateTime.class, "parse", CharSequence.class)
        .orShould()
        .callMethod(DateTimeFormatter.class, "parse", CharSequence.class)
        .orShould()
        .callMethod(
            DateTimeFormatter.class,
            "parse",
            CharSequence.class,
            java.time.temporal.TemporalQuery.class)
        .because(
            "RolloutStallStatus parses its own time strings once (crd), with one fallback;"
                + " readers use its Optional<Instant> accessors")
        .check(ProductionClasses.get());
  }
}
