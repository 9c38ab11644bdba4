package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConflictsTest {
  private static KubernetesClientException refused(int code) {
    return new KubernetesClientException("refused", code, null);
  }

  @Test
  void aConflictIsRetriedUntilTheEditLands() {
    AtomicInteger calls = new AtomicInteger();
    String result =
        Conflicts.retry(
            () -> {
              if (calls.incrementAndGet() < 3) {
                throw refused(409);
              }
              return "edited";
            });
    assertThat(result).isEqualTo("edited");
    assertThat(calls).hasValue(3);
  }

  @Test
  void anyOtherRefusalIsTheAnswerAtOnce() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                Conflicts.retry(
                    () -> {
                      calls.incrementAndGet();
                      throw refused(422);
                    }))
        .isInstanceOf(KubernetesClientException.class)
        .extracting(e -> ((KubernetesClientException) e).getCode())
        .isEqualTo(422);
    assertThat(calls).hasValue(1);
  }

  @Test
  void conflictsWithoutEndAreGivenUp() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                Conflicts.retry(
                    () -> {
                      calls.incrementAndGet();
                      throw refused(409);
                    }))
        .isInstanceOf(KubernetesClientException.class);
    assertThat(calls).hasValue(Conflicts.ATTEMPTS);
  }
}
