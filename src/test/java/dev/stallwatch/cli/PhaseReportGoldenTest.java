package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.rollout.PhaseReason;
import dev.stallwatch.testing.ScenarioFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The words of every verdict on every scenario fixture — phase, reason and message of each
 * DaemonSet, as {@code diagnose -o json} prints them — against a committed golden file. The
 * fixtures' own expectations name phase and reason; this pins the sentences too, so that a change
 * to how a phase is decided or worded shows up as a diff of the golden file.
 *
 * <p>A deliberate change: {@code ./mvnw test -Dtest=PhaseReportGoldenTest -Dgolden.update=true}
 * rewrites the file; review its diff.
 */
class PhaseReportGoldenTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path GOLDEN = Path.of("src/test/resources/golden/phase-reports.txt");

  @TempDir Path tmp;

  @Test
  void everyFixtureIsWordedAsTheGoldenFileSays() throws IOException {
    List<String> lines = new ArrayList<>();
    for (ScenarioFixture fixture : ScenarioFixture.all()) {
      String file = fixture.file();
      Path dump = tmp.resolve(file + ".json");
      JSON.writeValue(dump.toFile(), fixture.objects());
      CliRun run = CliRun.diagnoseJson(dump, fixture.now(), fixture.stallAfter());
      JsonNode verdicts = JSON.readTree(run.out()).get("daemonSets");
      for (JsonNode v : verdicts) {
        lines.add(
            file
                + " "
                + v.path("namespace").asText()
                + "/"
                + v.path("name").asText()
                + " | "
                + v.path("phase").asText()
                + " | "
                + v.path("reason").asText()
                + " | "
                + v.path("message").asText());
      }
    }
    String actual = String.join("\n", lines) + "\n";
    if (Boolean.getBoolean("golden.update")) {
      Files.createDirectories(GOLDEN.getParent());
      Files.writeString(GOLDEN, actual, StandardCharsets.UTF_8);
    }
    assertThat(lines).as("verdicts over the scenario fixtures").hasSizeGreaterThan(50);
    // A row placed behind one that takes all its cases would never give its reason.
    for (PhaseReason reason : PhaseReason.values()) {
      assertThat(lines)
          .as("a fixture whose verdict has reason %s", reason)
          .anyMatch(l -> l.contains(" | " + reason.name() + " | "));
    }
    assertThat(actual)
        .as("phase, reason and message of every fixture's verdicts (%s)", GOLDEN)
        .isEqualTo(Files.readString(GOLDEN, StandardCharsets.UTF_8));
  }
}
