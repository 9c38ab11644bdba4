package dev.stallwatch.realcluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * Prometheus or Alertmanager (the Debian packages, as .ci/run installs them) as a child process on
 * loopback, with a config file of the test's and storage of its own under {@code dir}.
 */
final class PromServer implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The binaries the alert path needs, found on the PATH. */
  record Tools(Path prometheus, Path promtool, Path alertmanager) {
    static final String INSTALL = "apt-get install prometheus prometheus-alertmanager";

    /**
     * The three binaries, or the test is skipped with one line saying how to install them — a
     * failure under {@code STALLWATCH_REQUIRE_REAL_CLUSTER=true}.
     */
    static Tools orSkip() {
      var prometheus = ChildProcess.onPath("prometheus");
      var promtool = ChildProcess.onPath("promtool");
      var alertmanager = ChildProcess.onPath("alertmanager", "prometheus-alertmanager");
      if (prometheus.isPresent() && promtool.isPresent() && alertmanager.isPresent()) {
        return new Tools(prometheus.get(), promtool.get(), alertmanager.get());
      }
      String why = "prometheus, promtool and alertmanager are needed on the PATH: " + INSTALL;
      if (Boolean.parseBoolean(System.getenv(RealCluster.REQUIRE))) {
        throw new IllegalStateException(why + " (" + RealCluster.REQUIRE + "=true)");
      }
      Assumptions.abort(why);
      return null;
    }
  }

  /** One series of an instant query's answer. */
  record Series(Map<String, String> labels, double value) {}

  private final String name;
  private final ChildProcess process;
  private final int port;

  private PromServer(String name, ChildProcess process, int port) {
    this.name = name;
    this.process = process;
    this.port = port;
  }

  static PromServer prometheus(Path binary, Path dir, String config) {
    return start("prometheus", binary, dir, config, "--storage.tsdb.path=", "--log.level=info");
  }

  static PromServer alertmanager(Path binary, Path dir, String config) {
    // alone: no gossip port of its own
    return start(
        "alertmanager", binary, dir, config, "--storage.path=", "--cluster.listen-address=");
  }

  /** {@code binary} with its config in {@code dir/NAME.yml}, its storage in {@code dir/data}. */
  private static PromServer start(
      String name, Path binary, Path dir, String config, String storageFlag, String extraFlag) {
    int port = OperatorProcess.freePort();
    Path configFile = write(dir.resolve(name + ".yml"), config);
    return new PromServer(
        name,
        ChildProcess.start(
            List.of(
                binary.toString(),
                "--config.file=" + configFile,
                storageFlag + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                extraFlag),
            dir.resolve(name + ".log")),
        port);
  }

  private static Path write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      return Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** host:port, as another server's config names it. */
  String address() {
    return "127.0.0.1:" + port;
  }

  boolean alive() {
    return process.alive();
  }

  /** {@code /-/ready} answers 200. */
  boolean ready() {
    try {
      return HTTP.send(request("/-/ready"), HttpResponse.BodyHandlers.discarding()).statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The JSON answer of {@code path} (with its query string). */
  JsonNode get(String path) {
    try {
      HttpResponse<String> r = HTTP.send(request(path), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException(
            name + " " + path + ": HTTP " + r.statusCode() + ": " + r.body());
      }
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new UncheckedIOException(name + " " + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Prometheus: the series an instant query returns now (a scalar answers as one series). */
  List<Series> query(String promql) {
    JsonNode data =
        get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8))
            .path("data");
    List<Series> found = new ArrayList<>();
    if ("scalar".equals(data.path("resultType").asText())) {
      found.add(new Series(Map.of(), Double.parseDouble(data.path("result").get(1).asText())));
      return found;
    }
    for (JsonNode r : data.path("result")) {
      Map<String, String> labels = new LinkedHashMap<>();
      r.path("metric")
          .fields()
          .forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
      found.add(new Series(labels, Double.parseDouble(r.path("value").get(1).asText())));
    }
    return found;
  }

  private HttpRequest request(String path) {
    return HttpRequest.newBuilder(URI.create("http://" + address() + path))
        .timeout(Duration.ofSeconds(10))
        .build();
  }

  /** The log so far, for assertion messages. */
  String output() {
    return process.output();
  }

  @Override
  public void close() {
    process.close();
  }
}
