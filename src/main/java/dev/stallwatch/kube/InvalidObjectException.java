package dev.stallwatch.kube;

/**
 * A Kubernetes object that cannot be turned into an analyzer view. The message names the object
 * ({@code DaemonSet gpu/nvidia-toolkit}), the field and what is wrong with it, so it can be shown
 * to the user as is.
 */
public class InvalidObjectException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public InvalidObjectException(String message) {
    super(message);
  }

  public InvalidObjectException(String message, Throwable cause) {
    super(message, cause);
  }

  /** An error in {@code field} of the object described by {@code object}. */
  static InvalidObjectException field(String object, String field, String problem) {
    return new InvalidObjectException(object + ": " + field + ": " + problem);
  }
}
