package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ApiReachabilityTest {
  private final dev.stallwatch.sim.SimClock time =
      dev.stallwatch.sim.SimClock.virtual(Instant.parse("2026-12-04T06:00:00Z"));
  private final ApiReachability reachability = new ApiReachability(time);
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(ApiReachability.class);

  @BeforeEach
  void capture() {
    lines.start();
    logger.addAppender(lines);
  }

  @AfterEach
  void release() {
    logger.detachAppender(lines);
  }

  private List<String> said() {
    return lines.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
  }

  private static ApiTrouble refused() {
    return new ApiTrouble(ApiTrouble.Reason.unreachable, "Connection refused");
  }

  @Test
  void anOutageIsOneWarningAndOneLineWhenEveryWatchIsBack() {
    reachability.watching(true);
    reachability.reconcileFailed(refused());
    for (int i = 0; i < 50; i++) {
      time.advance(Duration.ofSeconds(1));
      reachability.reconcileFailed(refused());
      reachability.watching(false);
    }
    time.advance(Duration.ofSeconds(3));
    reachability.watching(true);
    reachability.watching(true);

    assertThat(said())
        .containsExactly(
            "WARN lost the API server (unreachable: Connection refused); retrying until it answers",
            "INFO the API server answers again after 53 s; every watch is back; 51 reconcile(s)"
                + " failed meanwhile");
    assertThat(reachability.lost()).isFalse();
  }

  @Test
  void watchesThatDropFirstAreTheOutagesStart() {
    reachability.watching(false);
    reachability.reconcileFailed(refused());
    assertThat(said())
        .containsExactly(
            "WARN lost the API server (the informers' watches are down); retrying until it answers");
    assertThat(reachability.lost()).isTrue();
  }
}
