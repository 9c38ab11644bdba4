package dev.stallwatch.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeUnit;

/**
 * The cluster's clock as seen from here: how far the API server's {@code Date} header is from this
 * machine's clock. The CLI measures durations (how long a node has held the rollout back, against
 * stall-after) with it, so a laptop minutes off, or a cluster whose clock runs ahead (the demo's),
 * changes no verdict.
 *
 * @param skew what to add to this machine's time to get the cluster's
 */
record ClusterClock(Duration skew) {
  static final ClusterClock SAME = new ClusterClock(Duration.ZERO);

  /** {@code Date} has whole seconds: a smaller difference is no skew. */
  static final Duration RESOLUTION = Duration.ofSeconds(2);

  /** The cluster's time when this machine's clock says {@code local}. */
  Instant now(Instant local) {
    return local.plus(skew);
  }

  /**
   * Asks the API server ({@code GET /version}) and reads its {@code Date}; {@link #SAME} when it
   * does not answer with one (the check is not worth failing a command for).
   */
  static ClusterClock of(KubernetesClient client, Clock local) {
    try {
      HttpClient http = client.getHttpClient();
      String base = client.getMasterUrl().toString();
      var request =
          http.newHttpRequestBuilder()
              .uri(base + (base.endsWith("/") ? "" : "/") + "version")
              .build();
      Instant sent = local.instant();
      HttpResponse<String> response =
          http.sendAsync(request, String.class).get(10, TimeUnit.SECONDS);
      Instant received = local.instant();
      return of(response.header("Date"), sent.plus(Duration.between(sent, received).dividedBy(2)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return SAME;
    } catch (Exception e) {
      return SAME;
    }
  }

  /** From a {@code Date} header value answered when this machine's clock read {@code local}. */
  static ClusterClock of(String date, Instant local) {
    if (date == null || date.isBlank()) {
      return SAME;
    }
    try {
      Instant server = ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration skew = Duration.between(local, server);
      return skew.abs().compareTo(RESOLUTION) < 0 ? SAME : new ClusterClock(skew);
    } catch (RuntimeException e) {
      return SAME;
    }
  }
}
