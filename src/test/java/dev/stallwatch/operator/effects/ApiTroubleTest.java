package dev.stallwatch.operator.effects;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

public class ApiTroubleTest {
  private static KubernetesClientException answered(int code) {
    return new KubernetesClientException("Failure executing: PUT\nMessage: nope", code, null);
  }

  @Test
  void theAnswersARunningOperatorMeetsAreExpected() {
    assertThat(ApiTrouble.of(answered(409)))
        .hasValueSatisfying(
            t -> {
              assertThat(t.reason()).isEqualTo(ApiTrouble.Reason.conflict);
              assertThat(t.message()).isEqualTo("Failure executing: PUT");
              assertThat(t.outage()).isFalse();
            });
    assertThat(ApiTrouble.of(answered(429)).map(ApiTrouble::reason))
        .contains(ApiTrouble.Reason.throttled);
    assertThat(ApiTrouble.of(answered(410)).map(ApiTrouble::reason))
        .contains(ApiTrouble.Reason.gone);
    assertThat(ApiTrouble.of(answered(503)))
        .hasValueSatisfying(t -> assertThat(t.outage()).isTrue());
  }

  @Test
  void noAnswerAtAllIsAnOutageWhereverTheCauseSits() {
    var refused =
        new KubernetesClientException(
            "An error has occurred.", new ConnectException("Connection refused"));
    assertThat(ApiTrouble.of(refused))
        .hasValueSatisfying(
            t -> {
              assertThat(t.reason()).isEqualTo(ApiTrouble.Reason.unreachable);
              assertThat(t.message()).isEqualTo("Connection refused");
              assertThat(t.outage()).isTrue();
            });
    assertThat(
            ApiTrouble.of(new CompletionException(new TimeoutException())).map(ApiTrouble::reason))
        .contains(ApiTrouble.Reason.unreachable);
  }

  @Test
  void aGoawayWithTheRequestInFlightIsRetriedNotAnOutage() {
    var goaway =
        new KubernetesClientException(
            "An error has occurred.", new java.io.IOException("/127.0.0.1:39110: GOAWAY received"));
    assertThat(ApiTrouble.of(goaway))
        .hasValueSatisfying(
            t -> {
              assertThat(t.reason()).isEqualTo(ApiTrouble.Reason.goaway);
              assertThat(t.outage()).isFalse();
            });
  }

  @Test
  void aRefusalIsRetriedNotAnOutage() {
    // A kube-apiserver just restarted refuses until its authorizer's caches are synced.
    assertThat(ApiTrouble.of(answered(403)))
        .hasValueSatisfying(
            t -> {
              assertThat(t.reason()).isEqualTo(ApiTrouble.Reason.forbidden);
              assertThat(t.outage()).isFalse();
            });
  }

  @Test
  void bugsKeepTheirStackTrace() {
    assertThat(ApiTrouble.of(answered(404))).isEmpty();
    assertThat(ApiTrouble.of(answered(422))).isEmpty();
    assertThat(ApiTrouble.of(new NullPointerException())).isEmpty();
    assertThat(ApiTrouble.of(new IllegalStateException("x", answered(401)))).isEmpty();
  }
}
