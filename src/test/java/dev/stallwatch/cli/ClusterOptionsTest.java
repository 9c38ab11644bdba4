package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

class ClusterOptionsTest {

  static final String SERVER = "https://10.0.0.1:6443";

  static KubernetesClientException failure(int code, String message) {
    return new KubernetesClientException(
        message,
        code,
        new StatusBuilder().withCode(code).withMessage(message).withStatus("Failure").build());
  }

  @Test
  void unauthorizedIsAnAccessError() {
    RuntimeException e = ClusterOptions.translate(failure(401, "Unauthorized"), SERVER);

    assertThat(e).isInstanceOf(ExitCodes.AccessException.class);
    assertThat(e.getMessage())
        .isEqualTo(
            "unauthorized by the cluster at https://10.0.0.1:6443 (HTTP 401): check your"
                + " credentials");
  }

  @Test
  void forbiddenIsAnAccessErrorWithTheServersMessage() {
    RuntimeException e =
        ClusterOptions.translate(
            failure(403, "pods is forbidden: User \"ci\" cannot list"), SERVER);

    assertThat(e).isInstanceOf(ExitCodes.AccessException.class);
    assertThat(e.getMessage())
        .isEqualTo("forbidden (HTTP 403): pods is forbidden: User \"ci\" cannot list");
  }

  @Test
  void aConnectionFailureIsAnAccessErrorNamingTheServer() {
    RuntimeException e =
        ClusterOptions.translate(
            new KubernetesClientException(
                "Operation: [list] failed", new ConnectException("Connection refused")),
            SERVER);

    assertThat(e).isInstanceOf(ExitCodes.AccessException.class);
    assertThat(e.getMessage())
        .isEqualTo(
            "cannot reach the cluster at https://10.0.0.1:6443: ConnectException: Connection"
                + " refused");
  }

  @Test
  void anAnswerThatCannotBeReadIsNotALostConnection() {
    RuntimeException e =
        ClusterOptions.translate(
            new KubernetesClientException(
                "An error has occurred.",
                new com.fasterxml.jackson.core.JsonParseException(null, "Unexpected character")),
            SERVER);

    assertThat(e).isInstanceOf(ExitCodes.AccessException.class);
    assertThat(e.getMessage())
        .isEqualTo(
            "cannot read what the cluster at https://10.0.0.1:6443 sent: JsonParseException:"
                + " Unexpected character");
  }

  @Test
  void otherApiErrorsAreUserErrorsWithTheirCode() {
    RuntimeException e = ClusterOptions.translate(failure(422, "spec.template: Invalid"), SERVER);

    assertThat(e).isInstanceOf(ExitCodes.UserException.class);
    assertThat(e.getMessage()).isEqualTo("spec.template: Invalid (HTTP 422)");
  }

  @Test
  void shellQuotingLeavesPlainWordsAndSingleQuotesTheRest() {
    assertThat(ClusterOptions.shellQuote("kind-gpu")).isEqualTo("kind-gpu");
    assertThat(ClusterOptions.shellQuote("/home/ci/.kube/config"))
        .isEqualTo("/home/ci/.kube/config");
    assertThat(ClusterOptions.shellQuote("arn:aws:eks:eu-west-1:123:cluster/gpu"))
        .isEqualTo("arn:aws:eks:eu-west-1:123:cluster/gpu");
    assertThat(ClusterOptions.shellQuote("my config")).isEqualTo("'my config'");
    assertThat(ClusterOptions.shellQuote("$(rm -rf ~)")).isEqualTo("'$(rm -rf ~)'");
    assertThat(ClusterOptions.shellQuote("it's")).isEqualTo("'it'\\''s'");
    assertThat(ClusterOptions.shellQuote("")).isEqualTo("''");
  }
}
