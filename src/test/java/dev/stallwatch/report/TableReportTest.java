package dev.stallwatch.report;

import static dev.stallwatch.testing.SeedVerdicts.Report.NOW;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.rollout.Counts;
import dev.stallwatch.rollout.NodeRow;
import dev.stallwatch.rollout.ObjectRef;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.testing.SeedVerdicts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TableReportTest {

  @Test
  void a_stalled_rollout_shows_the_kubectl_line_then_the_split_per_node() {
    List<String> lines = TableReport.lines(NOW, List.of(SeedVerdicts.Report.stalledOnImagePull()));

    assertThat(lines.get(0).split("\\s+"))
        .containsExactly(
            "NAMESPACE",
            "NAME",
            "DESIRED",
            "CURRENT",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "PHASE",
            "CAUSE");
    String[] cells = lines.get(1).split("\\s+");
    assertThat(cells).endsWith("3", "3", "2", "1", "2", "Stalled", "ImagePull");
    // 12 + 34 characters of namespace and name do not fit beside the counts: both are cut.
    assertThat("gpu-operator").startsWith(cells[0].replace("…", ""));
    assertThat("nvidia-container-toolkit-daemonset").startsWith(cells[1].replace("…", ""));
    assertThat(cells[1]).hasSizeGreaterThan(25);
    String text = String.join("\n", lines);
    assertThat(text)
        .contains("gpu-operator/nvidia-container-toolkit-daemonset: Stalled (ImagePull)")
        .contains("since 2026-12-02T16:00:03Z (11m ago) on gpu-node-1")
        .contains("old revision  6d4f9b8c7d #1  " + SeedVerdicts.Report.OLD_IMAGE)
        .contains("new revision  7c9d5f6b84 #2  " + SeedVerdicts.Report.NEW_IMAGE);
    assertThat(lines)
        .anySatisfy(l -> assertThat(l.split("\\s+")).startsWith("", "NODE", "REVISION", "IMAGE"));
    assertThat(row(lines, "gpu-node-1"))
        .contains("none", "ImagePullBackOff", "STUCK", "ImagePull", "11m");
    assertThat(row(lines, "gpu-node-2")).contains("old", "Running", "waiting");
    assertThat(lines.get(lines.indexOf(row(lines, "gpu-node-1")) + 1))
        .startsWith(
            "    pod/nvidia-container-toolkit-daemonset-x7k2p  ImagePullBackOff: Back-off pulling");
    assertThat(text).doesNotContain(".status says");
  }

  @Test
  void every_line_fits_100_columns_even_with_long_names_images_and_messages() {
    RolloutVerdict v = SeedVerdicts.Report.stalledOnImagePull();
    String longName = "a-very-long-daemonset-name-that-someone-generated-from-a-helm-release-name";
    NodeRow longRow =
        new NodeRow(
            "ip-10-20-130-144.eu-central-1.compute.internal.example.cluster.local",
            NodeRow.Revision.NEW,
            "p",
            List.of("registry.example.com/" + "x".repeat(150) + ":v9", "sidecar:1"),
            "CreateContainerConfigError",
            NodeRow.Standing.STUCK,
            dev.stallwatch.rollout.Cause.CrashLoop,
            "CreateContainerConfigError",
            "secret \"" + "y".repeat(200) + "\"\n\tnot found",
            SeedVerdicts.Report.SINCE);
    List<NodeRow> rows = new ArrayList<>(v.nodes());
    rows.add(longRow);
    RolloutVerdict wide =
        new RolloutVerdict(
            new ObjectRef("a-namespace-with-a-long-name-too", longName, null),
            v.phase(),
            v.cause(),
            v.reason(),
            v.message() + " " + "word ".repeat(80),
            v.stalledNodes(),
            v.stalledSince(),
            v.oldRevision(),
            v.newRevision(),
            v.counts(),
            new Counts(7, 7, 7, 7, 7, 7, 7),
            1L,
            5,
            1,
            0,
            rows,
            null);

    List<String> lines =
        TableReport.lines(NOW, List.of(wide, SeedVerdicts.Report.stalledOnImagePull()));

    assertThat(lines).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(100));
    assertThat(lines).noneMatch(l -> l.contains("\t"));
    assertThat(String.join("\n", lines))
        .contains("…")
        .contains("sidecar:1") // images keep their tags: they are cut at the start
        .contains(".status says DESIRED 7");
  }

  @Test
  void a_complete_rollout_gets_only_its_line_unless_status_disagrees() {
    RolloutVerdict agrees =
        SeedVerdicts.Report.complete("kube-system", "kube-proxy", new Counts(2, 2, 2, 2, 2, 0, 0));
    assertThat(TableReport.lines(NOW, List.of(agrees))).hasSize(2);

    RolloutVerdict disagrees =
        SeedVerdicts.Report.complete("kube-system", "kube-proxy", new Counts(2, 2, 1, 2, 1, 1, 0));
    List<String> lines = TableReport.lines(NOW, List.of(disagrees));
    assertThat(lines)
        .containsSubsequence(
            "  .status says DESIRED 2 CURRENT 2 READY 1 UP-TO-DATE 2 AVAILABLE 1 UNAVAILABLE 1",
            "  recomputed differs: READY 2 AVAILABLE 2 UNAVAILABLE 0");
  }

  @Test
  void a_missing_status_and_an_unobserved_generation_are_said() {
    RolloutVerdict v = SeedVerdicts.Report.complete("ns", "ds", null);
    RolloutVerdict unobserved =
        new RolloutVerdict(
            v.daemonSet(),
            dev.stallwatch.rollout.Phase.Progressing,
            null,
            "NotObserved",
            "waiting for the controller",
            v.stalledNodes(),
            null,
            null,
            v.newRevision(),
            v.counts(),
            null,
            null,
            4,
            1,
            0,
            v.nodes(),
            null);
    String text = TableReport.render(NOW, List.of(unobserved));
    assertThat(text)
        .contains(".status is absent")
        .contains("the controller has not observed generation 4 yet")
        .contains("old revision  -");
  }

  @Test
  void ages_read_like_kubectl() {
    Instant t = Instant.parse("2026-12-02T00:00:00Z");
    assertThat(TableReport.age(t.plusSeconds(45), t)).isEqualTo("45s");
    assertThat(TableReport.age(t.plusSeconds(330), t)).isEqualTo("5m30s");
    assertThat(TableReport.age(t.plusSeconds(45 * 60), t)).isEqualTo("45m");
    assertThat(TableReport.age(t.plusSeconds(3 * 3600 + 5 * 60), t)).isEqualTo("3h5m");
    assertThat(TableReport.age(t.plusSeconds(26 * 3600), t)).isEqualTo("26h");
    assertThat(TableReport.age(t.plusSeconds(50 * 3600), t)).isEqualTo("2d2h");
    assertThat(TableReport.age(t.plusSeconds(20 * 86400), t)).isEqualTo("20d");
    assertThat(TableReport.age(t, t.plusSeconds(5))).isEqualTo("0s");
  }

  @Test
  void an_empty_report_is_just_the_header() {
    assertThat(TableReport.render(NOW, List.of())).startsWith("NAMESPACE").hasLineCount(1);
  }

  private static String row(List<String> lines, String node) {
    return lines.stream().filter(l -> l.startsWith("  " + node + " ")).findFirst().orElseThrow();
  }

  @Test
  void a_verdict_without_nodes_shows_the_status_numbers_and_says_what_the_input_lacked() {
    Counts reported = new Counts(2, 2, 1, 1, 1, 1, 0);
    RolloutVerdict v =
        new RolloutVerdict(
            new ObjectRef("kube-system", "kube-proxy", null),
            dev.stallwatch.rollout.Phase.Progressing,
            null,
            "StatusIncomplete",
            ".status reports 1 of 2 desired nodes updated, 1 available",
            List.of(),
            null,
            null,
            null,
            new Counts(0, 0, 0, 0, 0, 0, 0),
            reported,
            3L,
            3,
            1,
            0,
            List.of(),
            null,
            dev.stallwatch.rollout.Evidence.StatusOnly,
            List.of("the input holds no Node objects"),
            null,
            null);

    List<String> lines = TableReport.lines(NOW, List.of(v));

    assertThat(lines.get(1).split("\\s+")).endsWith("2", "2", "1", "1", "1", "Progressing", "-");
    assertThat(String.join("\n", lines))
        .contains("evidence: StatusOnly — the input holds no Node objects")
        .contains(
            ".status says DESIRED 2 CURRENT 2 READY 1 UP-TO-DATE 1 AVAILABLE 1 (not recounted)")
        .contains("no node and no pod of this DaemonSet in the input")
        .doesNotContain("recomputed differs");
  }

  @Test
  void a_complete_verdict_on_partial_evidence_still_shows_its_details() {
    RolloutVerdict full = SeedVerdicts.Report.complete("kube-system", "kube-proxy", null);
    RolloutVerdict partial =
        new RolloutVerdict(
            full.daemonSet(),
            full.phase(),
            null,
            full.reason(),
            full.message(),
            List.of(),
            null,
            null,
            full.newRevision(),
            full.counts(),
            full.reported(),
            full.observedGeneration(),
            full.generation(),
            1,
            0,
            full.nodes(),
            null,
            dev.stallwatch.rollout.Evidence.Partial,
            List.of("node node-b could not be read"),
            null,
            null);

    assertThat(TableReport.lines(NOW, List.of(full))).hasSize(2);
    assertThat(String.join("\n", TableReport.lines(NOW, List.of(partial))))
        .contains("evidence: Partial — node node-b could not be read");
  }

  @Test
  void aProgressingRolloutSaysItsPaceAStalledOneDoesNot() {
    var pace = new dev.stallwatch.rollout.Pace(2.0 / 3, 3, java.time.Duration.ofSeconds(270));
    var stalled = SeedVerdicts.Report.stalledOnImagePull();
    var moving =
        new dev.stallwatch.rollout.RolloutVerdict(
            stalled.daemonSet(),
            dev.stallwatch.rollout.Phase.Progressing,
            null,
            "RollingUpdate",
            "3 of 6 nodes updated",
            List.of(),
            null,
            stalled.oldRevision(),
            stalled.newRevision(),
            stalled.counts(),
            stalled.reported(),
            stalled.observedGeneration(),
            stalled.generation(),
            1,
            0,
            List.of(),
            null,
            stalled.evidence(),
            List.of(),
            null,
            null,
            pace);

    assertThat(TableReport.render(SeedVerdicts.Report.NOW, List.of(moving)))
        .contains("\n  pace: 0.67 nodes/min over the last 10m, 3 nodes left, about 4m30s to go\n");
    assertThat(
            TableReport.render(
                SeedVerdicts.Report.NOW, List.of(SeedVerdicts.withPace(stalled, pace))))
        .doesNotContain("pace:");
  }
}
