package dev.stallwatch.sim;

import dev.stallwatch.rollout.Durations;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;

/**
 * One container's life from a start instant under an {@link ImageBehavior}, evaluated at {@code
 * now} as a pure function: pulling, {@code ErrImagePull} / {@code ImagePullBackOff} with the
 * kubelet's back-off (10 s doubling to 5 min), running, crashing into {@code CrashLoopBackOff} with
 * a growing restart count, ready, or (init containers) completed.
 *
 * @param completedAt when an init container exited 0, null if it has not (yet)
 * @param readyAt when the container became ready, null if it is not
 */
record ContainerRun(ContainerStatus status, Instant completedAt, Instant readyAt, boolean started) {

  /** How long the kubelet shows ErrImagePull before its next sync reports the back-off. */
  static final Duration ERR_IMAGE_PULL_SHOWN = Duration.ofSeconds(5);

  static final Duration BACKOFF_START = Duration.ofSeconds(10);
  static final Duration BACKOFF_MAX = Duration.ofMinutes(5);

  /** Where the container is: its name, image, the pod it belongs to (for messages), init or not. */
  record Subject(String name, String image, String podRef, String podUid, boolean init) {}

  static Duration backoff(int k) {
    Duration d = BACKOFF_START.multipliedBy(1L << Math.min(k, 10));
    return d.compareTo(BACKOFF_MAX) > 0 ? BACKOFF_MAX : d;
  }

  /** A container that has not been started because something before it has not finished. */
  static ContainerRun notStarted(Subject c, String reason) {
    return new ContainerRun(base(c, 0).withState(waiting(reason, null)).build(), null, null, false);
  }

  static ContainerRun at(Subject c, ImageBehavior b, Instant from, Instant now) {
    String idle = c.init() ? "PodInitializing" : "ContainerCreating";
    if (b.pullFails()) {
      return pullFailing(c, b, from, now, idle);
    }
    Instant started = from.plus(b.pullTime());
    if (now.isBefore(started)) {
      return new ContainerRun(base(c, 0).withState(waiting(idle, null)).build(), null, null, false);
    }
    if (b.crashes()) {
      return crashLooping(c, b, started, now);
    }
    ContainerStatusBuilder s = base(c, 0).withImageID(imageId(c.image())).withStarted(true);
    s.withContainerID(containerId(c, 0));
    if (c.init() && b.completesAfter() != null && !now.isBefore(started.plus(b.completesAfter()))) {
      Instant done = started.plus(b.completesAfter());
      s.withState(terminated("Completed", 0, started, done)).withStarted(false);
      return new ContainerRun(s.build(), done, null, true);
    }
    s.withState(running(started));
    Instant readyAt = b.readyAfter() == null || c.init() ? null : started.plus(b.readyAfter());
    boolean ready = readyAt != null && !now.isBefore(readyAt);
    s.withReady(ready);
    return new ContainerRun(s.build(), null, ready ? readyAt : null, true);
  }

  private static ContainerRun pullFailing(
      Subject c, ImageBehavior b, Instant from, Instant now, String idle) {
    Instant failure = from.plus(b.pullTime());
    String reason = idle;
    String message = null;
    for (int k = 0; !now.isBefore(failure); k++) {
      if (now.isBefore(failure.plus(ERR_IMAGE_PULL_SHOWN))) {
        reason = "ErrImagePull";
        message =
            "rpc error: code = NotFound desc = failed to pull and unpack image \""
                + c.image()
                + "\": failed to resolve reference \""
                + c.image()
                + "\": "
                + c.image()
                + ": not found";
        break;
      }
      reason = "ImagePullBackOff";
      message = "Back-off pulling image \"" + c.image() + "\"";
      failure = failure.plus(backoff(k)).plus(b.pullTime());
    }
    return new ContainerRun(
        base(c, 0).withState(waiting(reason, message)).build(), null, null, false);
  }

  private static ContainerRun crashLooping(
      Subject c, ImageBehavior b, Instant started, Instant now) {
    Instant runStart = started;
    Instant prevStart = null;
    Instant prevCrash = null;
    for (int k = 0; ; k++) {
      Instant crash = runStart.plus(b.runBeforeCrash());
      ContainerStatusBuilder s =
          base(c, k)
              .withImageID(imageId(c.image()))
              .withStarted(true)
              .withContainerID(containerId(c, k));
      if (k > 0) {
        s.withLastState(terminated("Error", 1, prevStart, prevCrash));
      }
      if (now.isBefore(crash)) {
        return new ContainerRun(s.withState(running(runStart)).build(), null, null, true);
      }
      Instant restart = crash.plus(backoff(k));
      if (now.isBefore(restart)) {
        String message =
            "back-off "
                + Durations.go(backoff(k))
                + " restarting failed container="
                + c.name()
                + " pod="
                + c.podRef()
                + "("
                + c.podUid()
                + ")";
        s.withStarted(false)
            .withLastState(terminated("Error", 1, runStart, crash))
            .withState(waiting("CrashLoopBackOff", message));
        return new ContainerRun(s.build(), null, null, true);
      }
      prevStart = runStart;
      prevCrash = crash;
      runStart = restart;
    }
  }

  private static ContainerStatusBuilder base(Subject c, int restarts) {
    return new ContainerStatusBuilder()
        .withName(c.name())
        .withImage(c.image())
        .withImageID("")
        .withReady(false)
        .withStarted(false)
        .withRestartCount(restarts);
  }

  static ContainerState waiting(String reason, String message) {
    return new ContainerStateBuilder()
        .withNewWaiting()
        .withReason(reason)
        .withMessage(message)
        .endWaiting()
        .build();
  }

  static ContainerState running(Instant since) {
    return new ContainerStateBuilder()
        .withNewRunning()
        .withStartedAt(since.toString())
        .endRunning()
        .build();
  }

  static ContainerState terminated(String reason, int exitCode, Instant started, Instant finished) {
    return new ContainerStateBuilder()
        .withNewTerminated()
        .withReason(reason)
        .withExitCode(exitCode)
        .withStartedAt(started == null ? null : started.toString())
        .withFinishedAt(finished == null ? null : finished.toString())
        .endTerminated()
        .build();
  }

  private static String imageId(String image) {
    int at = image.indexOf('@');
    String repo = at >= 0 ? image.substring(0, at) : image.replaceFirst(":[^:/]*$", "");
    return repo + "@sha256:" + sha256(image);
  }

  private static String containerId(Subject c, int restart) {
    return "containerd://" + sha256(c.podUid() + "/" + c.name() + "/" + restart);
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM lacks SHA-256", e);
    }
  }
}
