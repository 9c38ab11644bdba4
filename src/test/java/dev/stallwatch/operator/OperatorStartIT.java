package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.stallwatch.cli.ExitCodes;
import dev.stallwatch.testcluster.TestApiServer;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code stallwatch operator} against a cluster that refuses it: one line, exit 3, no waiting. */
class OperatorStartIT {

  final TestApiServer server = new TestApiServer();

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aForbiddenListIsOneLineNamingTheResourceAndExitThree() {
    String forbidden =
        "daemonsets.apps is forbidden: User \"system:serviceaccount:stallwatch-system:stallwatch\""
            + " cannot list resource \"daemonsets\" in API group \"apps\" at the cluster scope";
    server
        .mockServer()
        .expect()
        .get()
        .withPath("/apis/apps/v1/daemonsets?resourceVersion=0")
        .andReturn(
            403,
            new StatusBuilder()
                .withStatus("Failure")
                .withReason("Forbidden")
                .withCode(403)
                .withMessage(forbidden)
                .build())
        .always();
    Config config = new ConfigBuilder().withMasterUrl(server.url()).build();

    OperatorCommandTest.Run run = OperatorCommandTest.operator(config);

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.ACCESS);
    assertThat(run.err()).isEqualTo("error: forbidden (HTTP 403): " + forbidden + "\n");
    // A hang guard: a refusal ends the start at once, not after the client's minute of retries;
    // 15 s is room for a loaded machine.
    assertThat(run.took()).as("no retries").isLessThan(Duration.ofSeconds(15));
  }

  @Test
  void rejectedCredentialsAreOneLineNamingTheServerAndExitThree() throws Exception {
    // An API server that does not know our token answers 401 to every request.
    HttpServer refusing = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    refusing.createContext(
        "/",
        exchange -> {
          byte[] body =
              ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                      + "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(401, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    refusing.start();
    try {
      String url = "http://127.0.0.1:" + refusing.getAddress().getPort();
      Config config = new ConfigBuilder().withMasterUrl(url).withOauthToken("stale").build();

      OperatorCommandTest.Run run = OperatorCommandTest.operator(config);

      assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.ACCESS);
      assertThat(run.err())
          .isEqualTo(
              "error: unauthorized by the cluster at "
                  + url
                  + "/ (HTTP 401): check your credentials\n");
      // A hang guard: 401 is final, so no retries (the client's would take over a minute); 10 s
      // is room for a loaded machine.
      assertThat(run.took()).as("no retries").isLessThan(Duration.ofSeconds(10));
    } finally {
      refusing.stop(0);
    }
  }
}
