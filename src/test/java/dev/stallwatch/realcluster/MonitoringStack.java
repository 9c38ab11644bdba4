package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A webhook receiver, Alertmanager routing to it and Prometheus evaluating rule files and sending
 * to that Alertmanager: what the alert-path tests start, each under {@code dir} (emptied first),
 * stopped in reverse order by {@link #close()}.
 */
final class MonitoringStack implements AutoCloseable {
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  final WebhookReceiver receiver;
  final PromServer alertmanager;
  final PromServer prometheus;

  private MonitoringStack(
      WebhookReceiver receiver, PromServer alertmanager, PromServer prometheus) {
    this.receiver = receiver;
    this.alertmanager = alertmanager;
    this.prometheus = prometheus;
  }

  /**
   * @param alertmanagerConfig Alertmanager's config, given the receiver (for its URLs)
   * @param rules rule files, each checked with {@code promtool check rules} first: a file
   *     Prometheus would refuse fails with promtool's own words
   */
  static MonitoringStack start(
      PromServer.Tools tools,
      Path dir,
      Duration evaluation,
      Function<WebhookReceiver, String> alertmanagerConfig,
      List<Path> rules,
      List<Map<String, Object>> scrapeJobs) {
    for (Path file : rules) {
      RealCluster.Result check =
          RealCluster.Result.run(
              List.of(tools.promtool().toString(), "check", "rules", file.toString()),
              Map.of(),
              Duration.ofMinutes(1));
      assertThat(check.code()).as("promtool check rules %s:%n%s", file, check.output()).isZero();
    }
    WebhookReceiver receiver = WebhookReceiver.start();
    PromServer alertmanager = null;
    try {
      alertmanager =
          PromServer.alertmanager(
              tools.alertmanager(), dir.resolve("am"), alertmanagerConfig.apply(receiver));
      Map<String, Object> config = new LinkedHashMap<>();
      config.put(
          "global",
          Map.of("scrape_interval", "30s", "evaluation_interval", evaluation.toSeconds() + "s"));
      config.put("rule_files", rules.stream().map(Path::toString).toList());
      config.put(
          "alerting",
          Map.of(
              "alertmanagers",
              List.of(
                  Map.of(
                      "static_configs",
                      List.of(Map.of("targets", List.of(alertmanager.address())))))));
      config.put("scrape_configs", scrapeJobs);
      PromServer prometheus =
          PromServer.prometheus(
              tools.prometheus(), dir.resolve("prom"), YAML.writeValueAsString(config));
      MonitoringStack stack = new MonitoringStack(receiver, alertmanager, prometheus);
      for (PromServer server : List.of(alertmanager, prometheus)) {
        await(server.address() + " ready")
            .atMost(Duration.ofMinutes(1))
            .until(() -> server.ready() || !server.alive());
        if (!server.alive()) {
          stack.close();
          throw new AssertionError("exited at start:\n" + server.output());
        }
      }
      return stack;
    } catch (IOException | RuntimeException e) {
      if (alertmanager != null) {
        alertmanager.close();
      }
      receiver.close();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
  }

  /** Writes {@code groups} as a rule file. */
  static Path ruleFile(Path file, Object groups) {
    try {
      Files.createDirectories(file.getParent());
      YAML.writeValue(file.toFile(), Map.of("groups", groups));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code dir}, emptied: nothing of an earlier run (a TSDB, a notification log) carries over. */
  static Path emptied(Path dir) {
    try {
      if (Files.exists(dir)) {
        try (var tree = Files.walk(dir)) {
          for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(p);
          }
        }
      }
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    prometheus.close();
    alertmanager.close();
    receiver.close();
  }
}
