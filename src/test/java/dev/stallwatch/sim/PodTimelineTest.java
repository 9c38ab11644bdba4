package dev.stallwatch.sim;

import static java.time.temporal.ChronoUnit.HOURS;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The kubelet's reported pod status over time, as a pure function of script and instant. */
class PodTimelineTest {

  static final Instant START = Instant.parse("2026-12-02T10:00:00Z");
  static final String IMAGE = "registry.example.com/agent:2";
  static final String DRIVER = "registry.example.com/wait-for-driver:1";

  static Pod pod(boolean withInit) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName("agent-bcdfg")
            .withNamespace("ops")
            .withUid("u-1")
            .endMetadata()
            .withNewSpec()
            .withNodeName("node-1")
            .addNewContainer()
            .withName("agent")
            .withImage(IMAGE)
            .endContainer()
            .endSpec();
    if (withInit) {
      b.editSpec()
          .addNewInitContainer()
          .withName("driver")
          .withImage(DRIVER)
          .endInitContainer()
          .endSpec();
    }
    return b.build();
  }

  static PodStatus at(KubeletScript script, boolean init, Duration after) {
    return PodTimeline.statusAt(pod(init), script, START, START.plus(after));
  }

  static ContainerStatus main(PodStatus s) {
    return s.getContainerStatuses().get(0);
  }

  static String condition(PodStatus s, String type) {
    return PodConditions.condition(s, type).getStatus();
  }

  @Test
  void aHealthyContainerIsCreatingThenRunningThenReady() {
    KubeletScript script = new KubeletScript();
    PodStatus creating = at(script, false, Duration.ofSeconds(1));
    assertThat(creating.getPhase()).isEqualTo("Pending");
    assertThat(main(creating).getState().getWaiting().getReason()).isEqualTo("ContainerCreating");
    PodStatus running = at(script, false, Duration.ofSeconds(3));
    assertThat(running.getPhase()).isEqualTo("Running");
    assertThat(main(running).getState().getRunning().getStartedAt())
        .isEqualTo("2026-12-02T10:00:02Z");
    assertThat(condition(running, "Ready")).isEqualTo("False");
    PodStatus ready = at(script, false, Duration.ofSeconds(5));
    assertThat(main(ready).getReady()).isTrue();
    assertThat(main(ready).getImageID()).startsWith("registry.example.com/agent@sha256:");
    assertThat(PodConditions.condition(ready, "Ready").getLastTransitionTime())
        .isEqualTo("2026-12-02T10:00:05Z");
    assertThat(condition(ready, "ContainersReady")).isEqualTo("True");
  }

  @Test
  void anUnpullableImageAlternatesErrImagePullAndImagePullBackOff() {
    KubeletScript script = new KubeletScript().image(IMAGE, ImageBehavior.unpullable());
    var first = main(at(script, false, Duration.ofSeconds(3))).getState().getWaiting();
    assertThat(first.getReason()).isEqualTo("ErrImagePull");
    assertThat(first.getMessage()).contains("failed to pull and unpack image \"" + IMAGE + "\"");
    var backoff = main(at(script, false, Duration.ofSeconds(8))).getState().getWaiting();
    assertThat(backoff.getReason()).isEqualTo("ImagePullBackOff");
    assertThat(backoff.getMessage()).isEqualTo("Back-off pulling image \"" + IMAGE + "\"");
    // failure at 2s, back-off 10s, pull 2s: the second failure at 14s
    assertThat(main(at(script, false, Duration.ofSeconds(15))).getState().getWaiting().getReason())
        .isEqualTo("ErrImagePull");
    assertThat(at(script, false, Duration.ofHours(1)).getPhase()).isEqualTo("Pending");
  }

  @Test
  void aCrashingContainerLoopsWithAGrowingRestartCount() {
    KubeletScript script = new KubeletScript().image(IMAGE, ImageBehavior.crashLoop());
    // started 2s, crashes 7s, back-off 10s → restart 17s, crash 22s, back-off 20s → restart 42s
    ContainerStatus firstBackoff = main(at(script, false, Duration.ofSeconds(8)));
    assertThat(firstBackoff.getState().getWaiting().getReason()).isEqualTo("CrashLoopBackOff");
    assertThat(firstBackoff.getState().getWaiting().getMessage())
        .isEqualTo("back-off 10s restarting failed container=agent pod=agent-bcdfg_ops(u-1)");
    assertThat(firstBackoff.getLastState().getTerminated().getExitCode()).isEqualTo(1);
    assertThat(firstBackoff.getRestartCount()).isZero();
    ContainerStatus secondRun = main(at(script, false, Duration.ofSeconds(18)));
    assertThat(secondRun.getState().getRunning()).isNotNull();
    assertThat(secondRun.getRestartCount()).isEqualTo(1);
    ContainerStatus secondBackoff = main(at(script, false, Duration.ofSeconds(30)));
    assertThat(secondBackoff.getState().getWaiting().getMessage()).startsWith("back-off 20s");
    assertThat(main(at(script, false, Duration.ofHours(1))).getRestartCount()).isGreaterThan(10);
    assertThat(at(script, false, Duration.ofHours(1)).getPhase()).isEqualTo("Running");
    assertThat(condition(at(script, false, Duration.ofHours(1)), "Ready")).isEqualTo("False");
  }

  @Test
  void aContainerWhoseProbeNeverPassesRunsButIsNeverReady() {
    KubeletScript script = new KubeletScript().image(IMAGE, ImageBehavior.neverReady());
    PodStatus s = at(script, false, Duration.ofHours(1));
    assertThat(s.getPhase()).isEqualTo("Running");
    assertThat(main(s).getReady()).isFalse();
    assertThat(PodConditions.condition(s, "Ready").getReason()).isEqualTo("ContainersNotReady");
    assertThat(PodConditions.condition(s, "Ready").getMessage())
        .isEqualTo("containers with unready status: [agent]");
  }

  @Test
  void anInitContainerWaitingOnADriverHoldsThePodInInit() {
    KubeletScript script = new KubeletScript().image(DRIVER, ImageBehavior.initWaitsForever());
    PodStatus s = at(script, true, Duration.ofHours(1));
    assertThat(s.getPhase()).isEqualTo("Pending");
    assertThat(s.getInitContainerStatuses().get(0).getState().getRunning()).isNotNull();
    assertThat(main(s).getState().getWaiting().getReason()).isEqualTo("PodInitializing");
    assertThat(condition(s, "Initialized")).isEqualTo("False");
    assertThat(PodConditions.condition(s, "Initialized").getMessage())
        .isEqualTo("containers with incomplete status: [driver]");
  }

  @Test
  void anInitContainerThatFinishesLetsTheMainContainerStart() {
    KubeletScript script = new KubeletScript();
    // init: pulled 2s, exits 4s; main: pulled 6s, ready 9s
    PodStatus s = at(script, true, Duration.ofSeconds(10));
    assertThat(s.getInitContainerStatuses().get(0).getState().getTerminated().getReason())
        .isEqualTo("Completed");
    assertThat(PodConditions.condition(s, "Initialized").getLastTransitionTime())
        .isEqualTo("2026-12-02T10:00:04Z");
    assertThat(main(s).getReady()).isTrue();
    assertThat(s.getPhase()).isEqualTo("Running");
  }

  @Test
  void whileAVolumeCannotBeMountedNothingStartsAndTheContainersWaitContainerCreating() {
    KubeletScript script = new KubeletScript();
    PodStatus s = PodTimeline.statusAt(pod(false), script, START, null, START.plus(1, HOURS));
    assertThat(s.getPhase()).isEqualTo("Pending");
    assertThat(s.getStartTime()).isEqualTo("2026-12-02T10:00:00Z");
    assertThat(main(s).getState().getWaiting().getReason()).isEqualTo("ContainerCreating");
    assertThat(main(s).getState().getWaiting().getMessage()).isNull();
    assertThat(main(s).getImageID()).isEmpty();
    assertThat(main(s).getContainerID()).isNull();
    assertThat(condition(s, "Initialized")).isEqualTo("True");
    assertThat(PodConditions.condition(s, "Ready").getMessage())
        .isEqualTo("containers with unready status: [agent]");
    PodStatus withInit = PodTimeline.statusAt(pod(true), script, START, null, START.plus(1, HOURS));
    assertThat(withInit.getInitContainerStatuses().get(0).getState().getWaiting().getReason())
        .isEqualTo("PodInitializing");
    assertThat(main(withInit).getState().getWaiting().getReason()).isEqualTo("PodInitializing");
    assertThat(condition(withInit, "Initialized")).isEqualTo("False");
  }

  @Test
  void onceTheVolumesAreMountedTheContainersStartFromThen() {
    KubeletScript script = new KubeletScript();
    Instant mounted = START.plus(Duration.ofMinutes(3));
    // pulled 2s after the mount, ready 3s later
    PodStatus s = PodTimeline.statusAt(pod(false), script, START, mounted, mounted.plusSeconds(6));
    assertThat(main(s).getState().getRunning().getStartedAt()).isEqualTo("2026-12-02T10:03:02Z");
    assertThat(PodConditions.condition(s, "Ready").getLastTransitionTime())
        .isEqualTo("2026-12-02T10:03:05Z");
    assertThat(PodConditions.condition(s, "Initialized").getLastTransitionTime())
        .isEqualTo("2026-12-02T10:00:00Z");
    assertThat(s.getStartTime()).isEqualTo("2026-12-02T10:00:00Z");
  }

  @Test
  void thePerNodeScriptWinsOverThePerImageOne() {
    KubeletScript script =
        new KubeletScript()
            .image(IMAGE, ImageBehavior.unpullable())
            .image("node-1", IMAGE, ImageBehavior.healthy());
    assertThat(main(at(script, false, Duration.ofMinutes(1))).getReady()).isTrue();
  }
}
