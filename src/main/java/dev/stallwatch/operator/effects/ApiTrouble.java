package dev.stallwatch.operator.effects;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * A failed request that a running operator should expect — the API server restarting, throttling,
 * answering a conflict or, just after a restart, refusing what its authorizer has not caught up
 * with — as opposed to a bug: the reconcile that met it is retried shortly and logged in one line
 * (no stack trace), while anything else keeps its stack trace.
 *
 * @param reason the label of {@code stallwatch_reconcile_errors_total}
 */
public record ApiTrouble(Reason reason, String message) {

  /** Why a request failed, as the failure counter's label says it. */
  public enum Reason {
    /** 409: the object changed since it was read (a status write right after a create). */
    conflict,
    /** 429: the API server's priority and fairness refused the request. */
    throttled,
    /** 410: the resourceVersion asked for is compacted away. */
    gone,
    /**
     * 403: the authorizer refused the request. A kube-apiserver that has just restarted answers so
     * until its RBAC caches are synced (seconds); one that keeps answering so lacks a grant the
     * startup check asked for, taken away since. Either way the reconcile is retried, and the
     * refusal is said in one WARN line, not a stack trace per try ({@link ApiReachability}).
     */
    forbidden,
    /** 5xx: the API server (or etcd behind it) failed or is shutting down. */
    server,
    /** No answer at all: connection refused or reset, a timeout. */
    unreachable,
    /**
     * The connection was closed by a GOAWAY (the API server spreading its clients, {@code
     * --goaway-chance}) with the request in flight: the next try opens a new one.
     */
    goaway
  }

  /** The expected failure {@code e} is, or empty for one that deserves its stack trace. */
  public static Optional<ApiTrouble> of(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof KubernetesClientException k && k.getCode() > 0) {
        Reason r = byCode(k.getCode());
        return r == null ? Optional.empty() : Optional.of(new ApiTrouble(r, firstLine(k)));
      }
      if (t instanceof IOException && String.valueOf(t.getMessage()).contains("GOAWAY")) {
        return Optional.of(new ApiTrouble(Reason.goaway, firstLine(t)));
      }
      if (t instanceof IOException || t instanceof TimeoutException) {
        return Optional.of(new ApiTrouble(Reason.unreachable, firstLine(t)));
      }
    }
    return Optional.empty();
  }

  private static Reason byCode(int code) {
    return switch (code) {
      case 403 -> Reason.forbidden;
      case 409 -> Reason.conflict;
      case 429 -> Reason.throttled;
      case 410 -> Reason.gone;
      case 500, 502, 503, 504 -> Reason.server;
      default -> null;
    };
  }

  private static String firstLine(Throwable t) {
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  /** Whether the API server could not be reached at all (or failed as a whole). */
  public boolean outage() {
    return reason == Reason.unreachable || reason == Reason.server;
  }
}
