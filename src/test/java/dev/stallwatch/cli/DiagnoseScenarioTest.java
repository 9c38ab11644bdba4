package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.testing.ScenarioFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every scenario fixture under {@code src/test/resources/scenarios} through {@code stallwatch
 * diagnose -o json} — reader, mapping, analyzer and report together — and checks the verdict keys
 * the fixture expects. A fixture is a story, an instant, stall-after, the objects as {@code kubectl
 * get -o yaml} prints them, and the expected verdict.
 */
class DiagnoseScenarioTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  static Stream<String> scenarios() {
    return ScenarioFixture.files().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void diagnoseGivesTheExpectedVerdict(String file) throws IOException {
    ScenarioFixture fixture = ScenarioFixture.load(file);
    Path dump = tmp.resolve("dump.json");
    JSON.writeValue(dump.toFile(), fixture.objects());

    CliRun run = CliRun.diagnoseJson(dump, fixture.now(), fixture.stallAfter());

    JsonNode expect = fixture.expect();
    if (expect.has("stderr")) {
      // An input problem the fixture is about: named on stderr, the rest still diagnosed.
      assertThat(run.err()).as("stderr of %s", file).contains(expect.get("stderr").asText());
    } else {
      assertThat(run.err()).as("stderr of %s", file).doesNotContain("error");
    }
    assertThat(run.err()).as("stderr of %s", file).doesNotContain("Exception");
    assertThat(run.exitCode())
        .as("exit code of %s", file)
        .isEqualTo(expect.get("exitCode").asInt());
    JsonNode actual = JSON.readTree(run.out());
    SoftAssertions soft = new SoftAssertions();
    if (expect.has("unsupported")) {
      soft.assertThat(actual.get("unsupported"))
          .as("%s: unsupported", file)
          .isEqualTo(expect.get("unsupported"));
      soft.assertThat(actual.get("daemonSets"))
          .as("%s: judged", file)
          .hasSize(expect.get("daemonSets").size());
    }
    for (JsonNode wanted : expect.get("daemonSets")) {
      JsonNode got = find(actual.get("daemonSets"), wanted);
      soft.assertThat(got).as("%s: verdict for %s", file, wanted.get("name")).isNotNull();
      if (got != null) {
        compare(soft, file + " " + wanted.get("name").asText(), wanted, got);
      }
    }
    soft.assertAll();
  }

  private static JsonNode find(JsonNode verdicts, JsonNode wanted) {
    for (JsonNode v : verdicts) {
      boolean nameMatches = v.get("name").asText().equals(wanted.get("name").asText());
      boolean nsMatches =
          !wanted.has("namespace")
              || v.get("namespace").asText().equals(wanted.get("namespace").asText());
      if (nameMatches && nsMatches) {
        return v;
      }
    }
    return null;
  }

  private static void compare(SoftAssertions soft, String where, JsonNode wanted, JsonNode got) {
    Iterator<Map.Entry<String, JsonNode>> fields = wanted.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      String key = field.getKey();
      JsonNode value = field.getValue();
      if (key.equals("stderr")) {
        continue;
      }
      if (key.equals("nodes")) {
        compareNodes(soft, where, value, got.get("nodes"));
      } else if (value.isObject()) {
        JsonNode sub = got.get(key);
        soft.assertThat(sub == null || sub.isNull()).as("%s: %s present", where, key).isFalse();
        if (sub != null && !sub.isNull()) {
          compare(soft, where + "." + key, value, sub);
        }
      } else {
        soft.assertThat(normalize(got.get(key)))
            .as("%s: %s", where, key)
            .isEqualTo(normalize(value));
      }
    }
  }

  private static void compareNodes(
      SoftAssertions soft, String where, JsonNode wanted, JsonNode rows) {
    Iterator<Map.Entry<String, JsonNode>> nodes = wanted.fields();
    while (nodes.hasNext()) {
      Map.Entry<String, JsonNode> node = nodes.next();
      JsonNode row = null;
      for (JsonNode r : rows) {
        if (r.get("node").asText().equals(node.getKey())) {
          row = r;
        }
      }
      soft.assertThat(row).as("%s: row for node %s", where, node.getKey()).isNotNull();
      if (row != null) {
        compare(soft, where + " node " + node.getKey(), node.getValue(), row);
      }
    }
  }

  /** Compares scalars and arrays by value, treating a missing key like JSON null. */
  private static Object normalize(JsonNode n) {
    if (n == null || n.isNull() || n.isMissingNode()) {
      return null;
    }
    if (n.isArray()) {
      return JSON.convertValue(n, List.class);
    }
    if (n.isNumber()) {
      return n.asLong();
    }
    return n.asText();
  }

  /** A rule no fixture reaches could be dead behind an earlier one: every cause has a story. */
  @org.junit.jupiter.api.Test
  void everyCauseIsTheVerdictOfSomeFixture() throws IOException {
    java.util.Set<String> seen = new java.util.TreeSet<>();
    for (ScenarioFixture fixture : ScenarioFixture.all()) {
      String file = fixture.file();
      JsonNode expect = fixture.expect();
      expect.findValues("cause").forEach(c -> seen.add(c.asText()));
    }
    assertThat(seen)
        .containsAll(
            java.util.Arrays.stream(dev.stallwatch.rollout.Cause.values())
                .map(Enum::name)
                .toList());
  }
}
