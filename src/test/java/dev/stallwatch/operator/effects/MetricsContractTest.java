package dev.stallwatch.operator.effects;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.operator.StallwatchOperator;
import dev.stallwatch.operator.decision.ActiveStall;
import dev.stallwatch.operator.decision.Effect;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.Suspect;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * One list of series ({@link Series}) and everything that names them agreeing with it: what the
 * operator's code exports (names and labels, from a scrape with every series fed), the reference's
 * metrics table, the Grafana dashboard (both copies) and the alert rules (both copies).
 */
public class MetricsContractTest {
  private static final Pattern NAME = Pattern.compile("\\bstallwatch_[a-z_]+");
  private static final Path METRICS_DOC = Path.of("docs/reference/metrics.md");

  private static final Pattern METRICS_ROW =
      Pattern.compile("^\\| `(stallwatch_[a-z_]+)(?:\\{([^}]+)})?`");

  /** A scrape with every series the operator has fed at least once. */
  private static String scrapeOfEverySeries() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    StallMetrics metrics = new StallMetrics(registry);
    metrics.observe(
        "gpu",
        "toolkit",
        new Effect.SetSeries(
            StallMetricsTest.split(2, 0, 1),
            new ActiveStall(Cause.ImagePull, Suspect.NewRevision, 1, Instant.EPOCH),
            java.util.Map.of("label_team", "gpu-platform"),
            new dev.stallwatch.rollout.Pace(2.0, 4, java.time.Duration.ofMinutes(2)),
            false));
    // An Advanced DaemonSet paused by its owner (its series beside the stalled one's).
    metrics.observe(
        "gpu",
        "agent",
        new Effect.SetSeries(
            StallMetricsTest.split(1, 1, 0),
            null,
            java.util.Map.of(),
            dev.stallwatch.rollout.Pace.UNKNOWN,
            true));
    metrics.countStall("gpu", "toolkit", Cause.ImagePull);
    metrics.countRollback("gpu", "toolkit");
    metrics.reconciled(2_000_000, 1_000_000);
    metrics.reconcileFailed("conflict");
    metrics.cachedPods("gpu", ns -> 3);
    metrics.foreignConditions(1); // --daemonset-conditions
    StallwatchOperator.replicaGauges(registry, () -> true, () -> true);
    return registry.scrape();
  }

  /** Sample names the scrape shows for a series: a counter's _total, a histogram's parts. */
  private static Set<String> sampleNames(Series s) {
    String name = s.prometheusName();
    return switch (s.kind()) {
      case GAUGE, COUNTER -> Set.of(name);
      case TIMER -> Set.of(name + "_bucket", name + "_count", name + "_sum", name + "_max");
    };
  }

  @Test
  void theOperatorExportsExactlyTheListedSeriesWithTheirLabels() {
    Map<String, Set<String>> exported = new TreeMap<>();
    for (String line : scrapeOfEverySeries().split("\n")) {
      if (line.startsWith("stallwatch_")) {
        String name = line.replaceFirst("[{ ].*", "");
        Set<String> labels = new TreeSet<>();
        Matcher m = Pattern.compile("([a-z_]+)=\"").matcher(line.replaceFirst("^[^{ ]*", ""));
        while (m.find()) {
          labels.add(m.group(1));
        }
        labels.remove("le"); // a histogram bucket's bound
        exported.computeIfAbsent(name, k -> new TreeSet<>()).addAll(labels);
      }
    }
    Map<String, Set<String>> listed = new TreeMap<>();
    for (Series s : Series.values()) {
      Set<String> labels = new TreeSet<>(s.labels());
      if (s == Series.ROLLOUT_STALLED) {
        labels.add("label_team"); // the routing label fed above
      }
      sampleNames(s).forEach(n -> listed.put(n, labels));
    }
    assertThat(exported).isEqualTo(listed);
  }

  @Test
  void theReferenceTableListsEverySeriesWithItsLabels() throws IOException {
    Map<String, List<String>> rows = new TreeMap<>();
    for (String line : Files.readAllLines(METRICS_DOC)) {
      Matcher m = METRICS_ROW.matcher(line);
      if (m.find()) {
        // Labels by name; a row may show a label's values (revision="old\\|new\\|none").
        String labels = m.group(2) == null ? "" : m.group(2).replaceAll("=\"[^\"]*\"", "");
        rows.put(m.group(1), labels.isEmpty() ? List.of() : Arrays.asList(labels.split(",")));
      }
    }
    Map<String, List<String>> listed = new TreeMap<>();
    for (Series s : Series.values()) {
      listed.put(s.prometheusName(), s.labels());
    }
    assertThat(rows).as(METRICS_DOC + "'s metrics table").isEqualTo(listed);
  }

  @Test
  void theDashboardsAndAlertRulesQueryOnlyExportedSeries() throws IOException {
    Set<String> known = new TreeSet<>();
    for (Series s : Series.values()) {
      known.addAll(sampleNames(s));
      known.add(s.prometheusName());
    }
    List<Path> files =
        List.of(
            Path.of("deploy/grafana/stallwatch-dashboard.json"),
            Path.of("deploy/prometheus/stallwatch-alerts.yml"),
            Path.of("deploy/helm/stallwatch/files/stallwatch-alerts.yml"));
    List<Path> all = new ArrayList<>(files);
    try (var dashboards = Files.list(Path.of("deploy/helm/stallwatch/dashboards"))) {
      dashboards.forEach(all::add);
    }
    for (Path file : all) {
      Set<String> used = new TreeSet<>();
      Matcher m = NAME.matcher(Files.readString(file));
      while (m.find()) {
        used.add(m.group());
      }
      assertThat(used).as("series named in %s", file).isNotEmpty();
      assertThat(known).as("series named in %s", file).containsAll(used);
    }
  }
}
