package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The scheduler's host-port check, after upstream's NodePorts plugin and HostPortInfo. */
class HostPortsTest {

  static Pod pod(boolean hostNetwork, ContainerPort... ports) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("p")
        .endMetadata()
        .withNewSpec()
        .withHostNetwork(hostNetwork)
        .addNewContainer()
        .withName("c")
        .withImage("i")
        .withPorts(ports)
        .endContainer()
        .endSpec()
        .build();
  }

  static ContainerPort port(Integer hostPort, String ip, String protocol) {
    return new ContainerPortBuilder()
        .withContainerPort(9400)
        .withHostPort(hostPort)
        .withHostIP(ip)
        .withProtocol(protocol)
        .build();
  }

  @Test
  void theSamePortAndProtocolOnTheWildcardAddressConflicts() {
    Pod held = pod(false, port(9400, null, "TCP"));
    assertThat(HostPorts.conflict(pod(false, port(9400, null, null)), List.of(held))).isTrue();
    assertThat(HostPorts.conflict(pod(false, port(9400, "10.0.0.5", "TCP")), List.of(held)))
        .isTrue();
  }

  @Test
  void anotherProtocolAnotherPortOrAnotherSpecificAddressDoesNot() {
    Pod held = pod(false, port(9400, "10.0.0.5", "TCP"));
    assertThat(HostPorts.conflict(pod(false, port(9400, null, "UDP")), List.of(held))).isFalse();
    assertThat(HostPorts.conflict(pod(false, port(9401, null, "TCP")), List.of(held))).isFalse();
    assertThat(HostPorts.conflict(pod(false, port(9400, "10.0.0.6", "TCP")), List.of(held)))
        .isFalse();
    assertThat(HostPorts.conflict(pod(false, port(9400, "0.0.0.0", "TCP")), List.of(held)))
        .isTrue();
  }

  @Test
  void aContainerPortWithoutHostPortHoldsNothingUnlessThePodUsesTheHostNetwork() {
    Pod plain = pod(false, port(null, null, "TCP"));
    Pod onHost = pod(true, port(null, null, "TCP"));
    assertThat(HostPorts.of(plain)).isEmpty();
    assertThat(HostPorts.of(onHost))
        .containsExactly(new HostPorts.HostPort("0.0.0.0", "TCP", 9400));
    assertThat(HostPorts.conflict(pod(false, port(9400, null, "TCP")), List.of(onHost))).isTrue();
  }

  @Test
  void aFinishedPodHoldsNoPort() {
    Pod done = pod(false, port(9400, null, "TCP"));
    done.setStatus(new io.fabric8.kubernetes.api.model.PodStatus());
    done.getStatus().setPhase("Succeeded");
    assertThat(HostPorts.conflict(pod(false, port(9400, null, "TCP")), List.of(done))).isFalse();
  }
}
