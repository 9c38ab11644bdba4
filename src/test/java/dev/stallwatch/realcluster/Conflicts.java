package dev.stallwatch.realcluster;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.Supplier;

/**
 * The tests' read-modify-write of an object that controllers write too. fabric8's {@code edit}
 * reads the object and patches it with the resourceVersion it read, so a status update by the
 * DaemonSet controller or a kwok heartbeat in between makes the API server refuse it with 409
 * Conflict; as {@code kubectl edit} and client-go's {@code RetryOnConflict}, read again and retry.
 */
final class Conflicts {
  /** Attempts before a conflict is given up as the test's answer. */
  static final int ATTEMPTS = 10;

  private Conflicts() {}

  /** Runs {@code edit} (which reads afresh each time) until it is not refused with 409. */
  static <T> T retry(Supplier<T> edit) {
    for (int attempt = 1; ; attempt++) {
      try {
        return edit.get();
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt >= ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
