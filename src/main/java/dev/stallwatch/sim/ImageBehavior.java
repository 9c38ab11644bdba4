package dev.stallwatch.sim;

import java.time.Duration;

/**
 * How the simulated kubelet runs a container of one image: whether the pull succeeds and how long
 * it takes, whether the process crashes (and after how long), when it passes its readiness probe,
 * and — for init containers — when it exits 0.
 *
 * @param readyAfter time from start to Ready; null: never ready (a readiness probe that fails)
 * @param completesAfter for an init container, time from start to a successful exit; null: it keeps
 *     running (waiting on something, e.g. a driver)
 */
public record ImageBehavior(
    boolean pullFails,
    Duration pullTime,
    boolean crashes,
    Duration runBeforeCrash,
    Duration readyAfter,
    Duration completesAfter) {

  public ImageBehavior {
    pullTime = pullTime == null ? Duration.ZERO : pullTime;
    runBeforeCrash = runBeforeCrash == null ? Duration.ofSeconds(5) : runBeforeCrash;
  }

  /** Pulls in 2 s, ready 3 s after start; as an init container, exits 0 after 2 s. */
  public static ImageBehavior healthy() {
    return new ImageBehavior(
        false, Duration.ofSeconds(2), false, null, Duration.ofSeconds(3), Duration.ofSeconds(2));
  }

  /** The registry does not have the image: ErrImagePull, then ImagePullBackOff, forever. */
  public static ImageBehavior unpullable() {
    return healthy().withPullFails(true);
  }

  /** Starts, exits with code 1 after 5 s, restarted with back-off: CrashLoopBackOff. */
  public static ImageBehavior crashLoop() {
    return new ImageBehavior(false, Duration.ofSeconds(2), true, Duration.ofSeconds(5), null, null);
  }

  /** Runs but its readiness probe never passes. */
  public static ImageBehavior neverReady() {
    return healthy().withReadyAfter(null);
  }

  /** As an init container: runs and never exits (waiting for a driver that never appears). */
  public static ImageBehavior initWaitsForever() {
    return healthy().withCompletesAfter(null);
  }

  public ImageBehavior withPullFails(boolean fails) {
    return new ImageBehavior(fails, pullTime, crashes, runBeforeCrash, readyAfter, completesAfter);
  }

  public ImageBehavior withReadyAfter(Duration d) {
    return new ImageBehavior(pullFails, pullTime, crashes, runBeforeCrash, d, completesAfter);
  }

  public ImageBehavior withCompletesAfter(Duration d) {
    return new ImageBehavior(pullFails, pullTime, crashes, runBeforeCrash, readyAfter, d);
  }
}
