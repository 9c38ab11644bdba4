package dev.stallwatch.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The STATUS word kubectl would print for a pod. */
class PodStateTest {
  private static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");

  private static PodView.ContainerStatus waiting(String name, String reason) {
    return new PodView.ContainerStatus(name, "img", false, 0, reason, "", false, null, null, null);
  }

  private static PodView.ContainerStatus running(String name, boolean ready) {
    return new PodView.ContainerStatus(name, "img", ready, 0, null, null, true, null, null, null);
  }

  private static PodView.ContainerStatus completed(String name) {
    return new PodView.ContainerStatus(
        name, "img", false, 0, null, null, false, "Completed", 0, null);
  }

  private static PodView pod(
      String phase,
      String reason,
      Instant deletion,
      List<String> initNames,
      List<PodView.ContainerStatus> inits,
      List<PodView.ContainerStatus> mains) {
    return new PodView(
        "ns", "p", null, null, null, "n", "n", NOW, deletion, phase, reason, null, null, initNames,
        null, inits, mains);
  }

  @Test
  void aRunningReadyPodIsRunning() {
    assertThat(PodState.of(pod("Running", null, null, null, null, List.of(running("c", true)))))
        .isEqualTo("Running");
  }

  @Test
  void aWaitingContainerNamesTheState() {
    assertThat(
            PodState.of(
                pod("Pending", null, null, null, null, List.of(waiting("c", "ImagePullBackOff")))))
        .isEqualTo("ImagePullBackOff");
  }

  @Test
  void thePodReasonWinsOverThePhase() {
    assertThat(PodState.of(pod("Failed", "OutOfcpu", null, null, null, null)))
        .isEqualTo("OutOfcpu");
  }

  @Test
  void aRunningInitContainerShowsProgressAsInitCountOfTotal() {
    PodView p =
        pod(
            "Pending",
            null,
            null,
            List.of("a", "b"),
            List.of(completed("a"), running("b", false)),
            List.of(waiting("c", "PodInitializing")));
    assertThat(PodState.of(p)).isEqualTo("Init:1/2");
  }

  @Test
  void aFailingInitContainerShowsItsReason() {
    PodView p =
        pod(
            "Pending",
            null,
            null,
            List.of("a"),
            List.of(waiting("a", "CrashLoopBackOff")),
            List.of(waiting("c", "PodInitializing")));
    assertThat(PodState.of(p)).isEqualTo("Init:CrashLoopBackOff");
  }

  @Test
  void aDeletedPodIsTerminatingAndOnALostNodeUnknown() {
    assertThat(PodState.of(pod("Running", null, NOW, null, null, List.of(running("c", true)))))
        .isEqualTo("Terminating");
    assertThat(PodState.of(pod("Running", "NodeLost", NOW, null, null, null))).isEqualTo("Unknown");
  }

  @Test
  void aFinishedPodBeingDeletedKeepsTheStateItEndedIn() {
    PodView.ContainerStatus error =
        new PodView.ContainerStatus("c", "img", false, 0, null, null, false, "Error", 1, null);
    assertThat(PodState.of(pod("Succeeded", null, NOW, null, null, List.of(completed("c")))))
        .isEqualTo("Completed");
    assertThat(PodState.of(pod("Failed", null, NOW, null, null, List.of(error))))
        .isEqualTo("Error");
    assertThat(PodState.of(pod("Failed", "NodeLost", NOW, null, null, List.of(error))))
        .isEqualTo("Unknown");
    assertThat(PodState.of(pod("Pending", null, NOW, null, null, List.of(waiting("c", "X")))))
        .isEqualTo("Terminating");
  }

  @Test
  void noPodIsADash() {
    assertThat(PodState.of(null)).isEqualTo("-");
  }
}
