package dev.stallwatch.report;

import static dev.stallwatch.testing.SeedVerdicts.Report.NOW;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.testing.SeedVerdicts;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonReportTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void a_stalled_verdict_has_every_key_of_the_contract() throws Exception {
    JsonNode root =
        JSON.readTree(JsonReport.render(NOW, List.of(SeedVerdicts.Report.stalledOnImagePull())));

    assertThat(root.get("evaluatedAt").asText()).isEqualTo("2026-12-02T16:12:00Z");
    JsonNode ds = root.get("daemonSets").get(0);
    assertThat(names(ds))
        .contains(
            "namespace",
            "name",
            "phase",
            "cause",
            "reason",
            "message",
            "stalledNodes",
            "stalledSince",
            "oldRevision",
            "newRevision",
            "counts",
            "nodes",
            "evidence",
            "missing",
            "pace",
            "remaining",
            "eta");
    assertThat(ds.get("phase").asText()).isEqualTo("Stalled");
    assertThat(ds.get("evidence").asText()).isEqualTo("Full");
    assertThat(ds.get("missing")).isEmpty();
    assertThat(ds.get("cause").asText()).isEqualTo("ImagePull");
    assertThat(ds.get("stalledNodes").get(0).asText()).isEqualTo("gpu-node-1");
    assertThat(ds.get("stalledSince").asText()).isEqualTo("2026-12-02T16:00:03Z");
    assertThat(ds.get("oldRevision").get("hash").asText()).isEqualTo("6d4f9b8c7d");
    assertThat(ds.get("oldRevision").get("revision").asLong()).isEqualTo(1);
    assertThat(ds.get("newRevision").get("images").get(0).asText())
        .isEqualTo(SeedVerdicts.Report.NEW_IMAGE);
    assertThat(names(ds.get("counts")))
        .containsExactly(
            "desired", "current", "ready", "upToDate", "available", "unavailable", "misscheduled");
    assertThat(ds.get("counts").get("ready").asInt()).isEqualTo(2);
    assertThat(ds.get("split").get("old").asInt()).isEqualTo(2);
    JsonNode node = ds.get("nodes").get(0);
    assertThat(names(node))
        .contains("node", "revision", "pod", "state", "cause", "reason", "message", "since");
    assertThat(node.get("revision").asText()).isEqualTo("none");
    assertThat(node.get("standing").asText()).isEqualTo("stuck");
    assertThat(node.get("since").asText()).isEqualTo("2026-12-02T16:00:03Z");
    JsonNode waiting = ds.get("nodes").get(1);
    assertThat(waiting.get("cause").isNull()).isTrue();
    assertThat(waiting.get("reason").isNull()).isTrue();
    assertThat(waiting.get("since").isNull()).isTrue();
  }

  @Test
  void pace_remaining_and_eta_are_numbers_or_null_when_unknown() throws Exception {
    var known = new dev.stallwatch.rollout.Pace(2.0 / 3, 3, java.time.Duration.ofSeconds(270));
    var seed = SeedVerdicts.Report.stalledOnImagePull();
    JsonNode moving =
        JSON.readTree(JsonReport.render(NOW, List.of(SeedVerdicts.withPace(seed, known))))
            .get("daemonSets")
            .get(0);
    assertThat(moving.get("pace").asDouble()).isEqualTo(0.67);
    assertThat(moving.get("remaining").asInt()).isEqualTo(3);
    assertThat(moving.get("eta").asLong()).isEqualTo(270);

    JsonNode unknown =
        JSON.readTree(
                JsonReport.render(
                    NOW,
                    List.of(
                        SeedVerdicts.withPace(
                            seed, new dev.stallwatch.rollout.Pace(null, 5, null)))))
            .get("daemonSets")
            .get(0);
    assertThat(unknown.get("pace").isNull()).isTrue();
    assertThat(unknown.get("remaining").asInt()).isEqualTo(5);
    assertThat(unknown.get("eta").isNull()).isTrue();
  }

  @Test
  void absent_values_are_json_null_not_missing() throws Exception {
    JsonNode ds =
        JSON.readTree(
                JsonReport.render(
                    NOW, List.of(SeedVerdicts.Report.complete("kube-system", "kube-proxy", null))))
            .get("daemonSets")
            .get(0);
    assertThat(ds.get("cause").isNull()).isTrue();
    assertThat(ds.get("stalledSince").isNull()).isTrue();
    assertThat(ds.get("oldRevision").isNull()).isTrue();
    assertThat(ds.get("reported").isNull()).isTrue();
    assertThat(ds.get("stalledNodes").isArray()).isTrue();
    assertThat(ds.get("nodes").get(0).get("standing").asText()).isEqualTo("updated");
  }

  @Test
  void an_empty_report_has_an_empty_list() throws Exception {
    JsonNode root = JSON.readTree(JsonReport.render(NOW, List.of()));
    assertThat(root.get("daemonSets").isEmpty()).isTrue();
  }

  private static List<String> names(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
