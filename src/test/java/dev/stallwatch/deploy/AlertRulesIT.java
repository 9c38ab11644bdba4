package dev.stallwatch.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks and unit-tests the alert rules with the real promtool. Without promtool on the PATH the
 * tests are skipped, unless {@code STALLWATCH_REQUIRE_PROMTOOL=true} (set by .ci/run, which
 * installs it) makes its absence a failure.
 */
class AlertRulesIT {

  private static final Path RULES = RenderedChart.PROJECT.resolve("deploy/prometheus");

  @BeforeAll
  static void promtoolIsAvailable() {
    boolean found = promtool() != null;
    if ("true".equals(System.getenv("STALLWATCH_REQUIRE_PROMTOOL"))) {
      assertThat(found).as("promtool on PATH (Debian package prometheus)").isTrue();
    }
    assumeTrue(found, "promtool not on PATH; .ci/run installs it");
  }

  @Test
  void rulesFilePassesPromtoolCheck() throws Exception {
    assertPromtoolSucceeds("check", "rules", RULES.resolve("stallwatch-alerts.yml").toString());
  }

  @Test
  void alertUnitTestsPassInPromtool() throws Exception {
    List<String> tests;
    try (Stream<Path> files = Files.list(RULES.resolve("tests"))) {
      tests = files.map(Path::toString).filter(n -> n.endsWith("_test.yml")).sorted().toList();
    }
    assertThat(tests).isNotEmpty();
    for (String test : tests) {
      assertPromtoolSucceeds("test", "rules", test);
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void everyAlertHasSeveritySummaryDescriptionAndARunbookInTheRepository() throws IOException {
    var groups = (List<Map<String, Object>>) ChartFilesIT.plainRules().get("groups");
    var alerts =
        groups.stream()
            .flatMap(g -> ((List<Map<String, Object>>) g.get("rules")).stream())
            .filter(r -> r.containsKey("alert"))
            .toList();

    assertThat(alerts)
        .extracting(r -> r.get("alert"))
        .containsExactly(
            "DaemonSetRolloutStalled",
            // the watcher watched: dead or leaderless, cut off, failing
            "StallwatchOperatorDown",
            "StallwatchApiServerUnreachable",
            "StallwatchReconcileErrors");
    for (Map<String, Object> alert : alerts) {
      var labels = (Map<String, String>) alert.get("labels");
      var annotations = (Map<String, String>) alert.get("annotations");
      assertThat(labels).containsKey("severity");
      assertThat(annotations).containsKeys("summary", "description", "runbook_url");
      if (alert.get("alert").equals("DaemonSetRolloutStalled")) {
        assertThat(annotations.get("description"))
            .contains("{{ $labels.namespace }}", "{{ $labels.daemonset }}", "{{ $labels.cause }}")
            .contains("{{ $labels.suspect }}")
            .contains("kubectl get rolloutstall -n {{ $labels.namespace }}");
      }
      String runbook =
          annotations
              .get("runbook_url")
              .replace("https://github.com/stallwatch/stallwatch/blob/main/", "");
      Path page = RenderedChart.PROJECT.resolve(runbook);
      assertThat(page).as("runbook of %s", alert.get("alert")).exists();
      assertThat(Files.readString(page))
          .contains("## Meaning", "## Impact", "## Diagnosis", "## Mitigation");
    }
  }

  private static void assertPromtoolSucceeds(String... args) throws Exception {
    List<String> command = Stream.concat(Stream.of(promtool()), Stream.of(args)).toList();
    Process process =
        new ProcessBuilder(command).directory(RULES.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("promtool finished").isTrue();
    assertThat(process.exitValue()).as("%s%n%s", String.join(" ", command), output).isZero();
  }

  private static String promtool() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "promtool");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }
}
