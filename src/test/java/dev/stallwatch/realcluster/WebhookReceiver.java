package dev.stallwatch.realcluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Alertmanager's webhook receiver, inside the test: every notification POSTed to {@code /RECEIVER}
 * is kept, alert by alert, with the instant it arrived.
 */
final class WebhookReceiver implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One alert of one notification. */
  record Notified(
      Instant received,
      String receiver,
      String status,
      Map<String, String> labels,
      Map<String, String> annotations) {
    String alertname() {
      return labels.get("alertname");
    }

    boolean firing() {
      return "firing".equals(status);
    }
  }

  private final HttpServer server;
  private final List<Notified> notified = new ArrayList<>(); // guarded by this

  private WebhookReceiver(HttpServer server) {
    this.server = server;
  }

  static WebhookReceiver start() {
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      WebhookReceiver receiver = new WebhookReceiver(server);
      server.createContext(
          "/",
          exchange -> {
            Instant at = Instant.now();
            try (exchange) {
              String receiverName = exchange.getRequestURI().getPath().substring(1);
              receiver.keep(at, receiverName, JSON.readTree(exchange.getRequestBody()));
              exchange.sendResponseHeaders(200, -1);
            }
          });
      server.start();
      return receiver;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private synchronized void keep(Instant at, String receiverName, JsonNode body) {
    for (JsonNode alert : body.path("alerts")) {
      notified.add(
          new Notified(
              at,
              receiverName,
              alert.path("status").asText(),
              strings(alert.path("labels")),
              strings(alert.path("annotations"))));
    }
  }

  private static Map<String, String> strings(JsonNode object) {
    Map<String, String> map = new LinkedHashMap<>();
    object.fields().forEachRemaining(e -> map.put(e.getKey(), e.getValue().asText()));
    return map;
  }

  /** The URL Alertmanager posts {@code receiverName}'s notifications to. */
  String url(String receiverName) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/" + receiverName;
  }

  /** Every alert notified so far, in arrival order. */
  synchronized List<Notified> notified() {
    return List.copyOf(notified);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
