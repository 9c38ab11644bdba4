package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OperatorProcess#killWhenGone}: an operator outlives no test JVM, even a SIGKILLed one.
 * Processes stand in for both (a {@code sleep} each).
 */
class OperatorWatchdogIT {
  private Process owner;
  private Process child;

  @AfterEach
  void stop() {
    for (Process p : new Process[] {owner, child}) {
      if (p != null) {
        p.destroyForcibly();
      }
    }
  }

  @Test
  void theChildIsKilledOnceItsOwnerIsKilled() throws Exception {
    owner = sleeper();
    child = sleeper();
    OperatorProcess.killWhenGone(owner.pid(), child);

    owner.destroyForcibly().waitFor(5, TimeUnit.SECONDS);

    await("the child killed after its owner")
        .atMost(Duration.ofSeconds(10))
        .until(() -> !child.isAlive());
    assertThat(child.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
  }

  @Test
  void theWatchdogEndsWithTheChildAndLeavesTheOwnerAlone() throws Exception {
    owner = sleeper();
    child = sleeper();
    long before = watchdogs(child.pid());
    OperatorProcess.killWhenGone(owner.pid(), child);
    assertThat(watchdogs(child.pid())).isEqualTo(before + 1);

    child.destroyForcibly().waitFor(5, TimeUnit.SECONDS);

    await("the watchdog gone with its child")
        .atMost(Duration.ofSeconds(10))
        .until(() -> watchdogs(child.pid()) == before);
    assertThat(owner.isAlive()).isTrue();
  }

  private static Process sleeper() throws IOException {
    return new ProcessBuilder("sleep", "600").start();
  }

  /** This JVM's watchdog shells for {@code pid}. */
  private static long watchdogs(long pid) {
    return ProcessHandle.current()
        .children()
        .filter(p -> p.info().commandLine().orElse("").contains("kill -9 " + pid + " "))
        .count();
  }
}
