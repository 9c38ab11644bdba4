package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class HealthEndpointIT {
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void servesMetricsHealthAndReadinessThatFollowsTheInformers() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Counter.builder("stallwatch.test").register(registry).increment();
    AtomicBoolean synced = new AtomicBoolean(false);
    try (HealthEndpoint endpoint = HealthEndpoint.start(0, registry, synced::get)) {
      String base = "http://localhost:" + endpoint.port();
      assertThat(get(base + "/healthz").statusCode()).isEqualTo(200);
      assertThat(get(base + "/readyz").statusCode()).isEqualTo(503);
      synced.set(true);
      assertThat(get(base + "/readyz").statusCode()).isEqualTo(200);
      HttpResponse<String> metrics = get(base + "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).contains("stallwatch_test_total 1.0");
    }
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
