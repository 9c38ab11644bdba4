package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.testing.ScenarioFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The README's first example is a command a newcomer can run as written: its output is what the
 * README shows, with nothing on stderr (no library warnings).
 */
class ReadmeExampleTest {
  private static final String PROMPT = "$ stallwatch ";

  @Test
  void theReadmesDiagnoseExampleRunsAsWrittenAndPrintsWhatTheReadmeShows() throws IOException {
    List<String> readme = Files.readAllLines(Path.of("README.md"));
    int command =
        java.util.stream.IntStream.range(0, readme.size())
            .filter(i -> readme.get(i).startsWith(PROMPT + "diagnose"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("README.md has no `$ stallwatch diagnose` line"));
    int end = command + 1;
    while (!readme.get(end).equals("```")) {
      end++;
    }
    String shown = String.join("\n", readme.subList(command + 1, end)) + "\n";
    String[] args = readme.get(command).substring(PROMPT.length()).trim().split("\\s+");

    CliRun run = CliRun.of(args);

    assertThat(run.out()).as("output of %s", Arrays.toString(args)).isEqualTo(shown);
    assertThat(run.err()).as("stderr").isEmpty();
    assertThat(run.exitCode()).as("a stall").isEqualTo(1);
  }

  @Test
  void theExampleDumpHoldsTheSeedScenariosObjects() throws IOException {
    ScenarioFixture scenario = ScenarioFixture.load("seed-image-pull");
    var dump = new ObjectMapper().readTree(Path.of("docs/examples/image-pull-stall.json").toFile());
    assertThat(dump).isEqualTo(scenario.objects());
    assertThat(scenario.now()).isEqualTo("2026-12-02T10:00:00Z");
  }
}
