package dev.stallwatch.operator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * Serves {@code /metrics} (Prometheus text format), {@code /healthz} (the process is up) and {@code
 * /readyz} (the informers have synced) on one port.
 */
public final class HealthEndpoint implements AutoCloseable {
  private final HttpServer server;

  private HealthEndpoint(HttpServer server) {
    this.server = server;
  }

  /** Starts serving on {@code port} (0 picks a free one). */
  public static HealthEndpoint start(
      int port, PrometheusMeterRegistry registry, BooleanSupplier ready) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 0);
    server.createContext(
        "/metrics",
        ex -> respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
    server.createContext("/healthz", ex -> respond(ex, 200, "text/plain", "ok\n"));
    server.createContext(
        "/readyz",
        ex -> {
          boolean isReady = ready.getAsBoolean();
          respond(
              ex, isReady ? 200 : 503, "text/plain", isReady ? "ok\n" : "informers not synced\n");
        });
    server.setExecutor(Executors.newSingleThreadExecutor(r -> daemon(r, "stallwatch-http")));
    server.start();
    return new HealthEndpoint(server);
  }

  /** The port actually bound. */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private static void respond(HttpExchange ex, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
