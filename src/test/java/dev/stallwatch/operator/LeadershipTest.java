package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stallwatch.operator.StallwatchOperator.LeaseTiming;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LeadershipTest {

  @Test
  void theIdentityIsThePodNameWithASuffixThatKeepsTwoProcessesApart() {
    Map<String, String> pod = Map.of("POD_NAME", "stallwatch-7d9f-abcde", "HOSTNAME", "host-1");

    String first = Leadership.identity(pod::get);
    String second = Leadership.identity(pod::get);

    assertThat(first).matches("stallwatch-7d9f-abcde_[0-9a-f-]{36}");
    assertThat(second).startsWith("stallwatch-7d9f-abcde_").isNotEqualTo(first);
  }

  @Test
  void withoutPodNameTheIdentityFallsBackToHostnameThenTheHostsName() {
    assertThat(Leadership.identity(Map.of("HOSTNAME", "stallwatch-0", "POD_NAME", " ")::get))
        .startsWith("stallwatch-0_");
    assertThat(Leadership.identity(name -> null)).matches(".+_[0-9a-f-]{36}");
  }

  @Test
  void josdkGetsTheLeaseTheIdentityTheTimingAndNoSystemExit() {
    Leadership leadership = new Leadership(null, "stallwatch-system", "pod-1_x");
    LeaseTiming timing =
        new LeaseTiming(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofMillis(250));

    LeaderElectionConfiguration config = leadership.configuration(timing);

    assertThat(config.getLeaseName()).isEqualTo(OperatorSettings.LEASE_NAME);
    assertThat(config.getLeaseNamespace()).contains("stallwatch-system");
    assertThat(config.getIdentity()).contains("pod-1_x");
    assertThat(config.getLeaseDuration()).isEqualTo(Duration.ofSeconds(3));
    assertThat(config.getRenewDeadline()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.getRetryPeriod()).isEqualTo(Duration.ofMillis(250));
    // JOSDK would System.exit(1) from its callback: the whole JVM, or a hang in a shutdown hook.
    assertThat(config.isExitOnStopLeading()).isFalse();
    assertThat(config.getLeaderCallbacks()).isPresent();
    assertThat(leadership.leading()).isFalse();
    assertThat(leadership.lost()).isNotDone();
  }

  @Test
  void aLeaderPastItsRenewDeadlineSinceTheLastRenewalItSawMustStop() {
    Instant renewed = Instant.parse("2026-12-03T11:48:50Z");
    Duration deadline = Duration.ofSeconds(10);

    assertThat(Leadership.overdue(renewed, deadline, renewed.plusSeconds(9))).isFalse();
    assertThat(Leadership.overdue(renewed, deadline, renewed.plusSeconds(10))).isFalse();
    assertThat(Leadership.overdue(renewed, deadline, renewed.plusMillis(10_001))).isTrue();
    assertThat(Leadership.overdue(null, deadline, renewed)).isFalse();
  }

  @Test
  void theRenewalCountsOnlyWhileThisProcessHoldsTheLease() {
    ZonedDateTime at = ZonedDateTime.parse("2026-12-03T11:48:50.123456Z");
    Lease ours =
        new LeaseBuilder()
            .withNewSpec()
            .withHolderIdentity("pod-1_x")
            .withRenewTime(at)
            .endSpec()
            .build();

    assertThat(Leadership.renewedBy(ours, "pod-1_x")).isEqualTo(at.toInstant());
    assertThat(Leadership.renewedBy(ours, "pod-2_y")).isNull();
    assertThat(Leadership.renewedBy(null, "pod-1_x")).isNull();
    assertThat(Leadership.renewedBy(new Lease(), "pod-1_x")).isNull();
  }

  @Test
  void productionLeaseTimingIsJosdksAndClientGosDefault() {
    assertThat(StallwatchOperator.Timing.REAL.lease()).isEqualTo(LeaseTiming.DEFAULT);
    assertThat(LeaseTiming.DEFAULT)
        .isEqualTo(
            new LeaseTiming(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2)));
  }

  @Test
  void leaseTimingThatCouldLetTwoLeadersOverlapIsRefused() {
    assertThatThrownBy(
            () ->
                new LeaseTiming(
                    Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofMillis(100)))
        .hasMessageContaining("renewDeadline must be positive and shorter than leaseDuration");
    assertThatThrownBy(
            () ->
                new LeaseTiming(
                    Duration.ofMillis(2500), Duration.ofSeconds(1), Duration.ofMillis(100)))
        .hasMessageContaining("whole number of seconds");
    assertThatThrownBy(
            () ->
                new LeaseTiming(
                    Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofMillis(900)))
        .hasMessageContaining("retryPeriod must be positive and, times 1.2, shorter");
    assertThatThrownBy(
            () -> new LeaseTiming(Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ZERO))
        .hasMessageContaining("retryPeriod");
  }
}
