package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.stallwatch.operator.effects.ApiTrouble;
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
  void aRunOfRefusalsIsOneWarningAndOneLineWhenAReconcileSucceeds() {
    var forbidden =
        new ApiTrouble(
            ApiTrouble.Reason.forbidden,
            "Failure executing: PUT at: https://10.0.0.1/apis/stallwatch.dev/v1alpha1/namespaces/a/"
                + "rolloutstalls/x/status. Message: Forbidden");
    reachability.authorized(); // nothing refused yet: nothing to say
    for (int i = 0; i < 7; i++) {
      reachability.reconcileRefused(forbidden);
      time.advance(Duration.ofSeconds(1));
    }
    reachability.authorized();
    reachability.authorized();
    reachability.reconcileRefused(forbidden); // a new run: said again

    assertThat(said())
        .containsExactly(
            "WARN the API server refuses a request ("
                + forbidden.message()
                + "); retrying. Just"
                + " after an API server restart this is its authorizer catching up; if it lasts,"
                + " the operator lacks a grant",
            "INFO the API server authorizes the operator's requests again after 7 s; 7"
                + " reconcile(s) refused meanwhile",
            "WARN the API server refuses a request ("
                + forbidden.message()
                + "); retrying. Just"
                + " after an API server restart this is its authorizer catching up; if it lasts,"
                + " the operator lacks a grant");
    // A refusal is no outage: the API server answers.
    assertThat(reachability.lost()).isFalse();
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
  void aReconcileThatCannotReachItIsTheOutageDatedFromTheWatchesDrop() {
    reachability.watching(false);
    time.advance(Duration.ofSeconds(2));
    reachability.reconcileFailed(refused());
    time.advance(Duration.ofSeconds(4));
    reachability.watching(true);
    assertThat(said())
        .containsExactly(
            "WARN lost the API server (unreachable: Connection refused); retrying until it answers",
            "INFO the API server answers again after 6 s; every watch is back; 1 reconcile(s)"
                + " failed meanwhile");
  }

  @Test
  void watchesDownAtEnoughLooksInARowAreAnOutageFromTheFirstLook() {
    for (int i = 1; i < ApiReachability.DOWN_LOOKS; i++) {
      reachability.watching(false);
      time.advance(StallwatchOperator.WATCH_POLL);
    }
    assertThat(said()).isEmpty();
    assertThat(reachability.lost()).isFalse();

    reachability.watching(false);
    assertThat(said())
        .containsExactly(
            "WARN lost the API server (the informers' watches are down); retrying until it answers");
    assertThat(reachability.lost()).isTrue();
    time.advance(StallwatchOperator.WATCH_POLL);
    reachability.watching(true);
    assertThat(said())
        .last()
        .isEqualTo(
            "INFO the API server answers again after "
                + StallwatchOperator.WATCH_POLL.multipliedBy(ApiReachability.DOWN_LOOKS).toSeconds()
                + " s; every watch is back; 0 reconcile(s) failed meanwhile");
  }

  /** A GOAWAY closes the watches of one connection; the informers reconnect between two looks. */
  @Test
  void watchesThatReconnectWithinAFewLooksAreNoOutage() {
    for (int blip = 0; blip < 200; blip++) {
      for (int i = 0; i < 1 + blip % (ApiReachability.DOWN_LOOKS - 1); i++) {
        reachability.watching(false);
        time.advance(StallwatchOperator.WATCH_POLL);
      }
      reachability.watching(true);
      assertThat(reachability.lost()).isFalse();
    }
    assertThat(said()).isEmpty();
  }
}
