package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolBuildsTest {
  @TempDir Path dir;

  @Test
  void aScriptNotQueuedIsNotWaitedFor() {
    assertThatCode(() -> ToolBuilds.await("kruise-build.sh", dir, Duration.ofMillis(1)))
        .doesNotThrowAnyException();
  }

  @Test
  void aQueuedScriptThatIsDoneIsNotWaitedFor() throws IOException {
    Files.createFile(dir.resolve("build.sh.queued"));
    Files.createFile(dir.resolve("build.sh.done"));
    assertThatCode(() -> ToolBuilds.await("build.sh", dir, Duration.ofMillis(1)))
        .doesNotThrowAnyException();
  }

  @Test
  void aQueuedScriptStillBuildingIsWaitedForUntilItIsDone() throws Exception {
    Files.createFile(dir.resolve("kruise-build.sh.queued"));
    Thread build =
        new Thread(
            () -> {
              try {
                // Usually after the wait has begun; either way await must return, not throw.
                Thread.sleep(200);
                Files.createFile(dir.resolve("kruise-build.sh.done"));
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    build.start();
    assertThatCode(() -> ToolBuilds.await("kruise-build.sh", dir, Duration.ofMinutes(1)))
        .doesNotThrowAnyException();
    build.join();
    assertThat(dir.resolve("kruise-build.sh.done")).exists();
  }

  @Test
  void aQueuedScriptThatFailedFailsTheTestWithTheEndOfItsLog() throws IOException {
    Files.createFile(dir.resolve("helm-build.sh.queued"));
    Files.writeString(dir.resolve("helm-build.sh.log"), "go: downloading\nhelm build: failed\n");
    Files.createFile(dir.resolve("helm-build.sh.failed"));
    assertThatThrownBy(() -> ToolBuilds.await("helm-build.sh", dir, Duration.ofMillis(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("helm-build.sh failed in the background")
        .hasMessageContaining("helm build: failed");
  }

  @Test
  void aQueuedScriptStillBuildingAtTheLimitFailsTheTestAndSaysSo() throws IOException {
    Files.createFile(dir.resolve("build.sh.queued"));
    Files.writeString(
        dir.resolve("build.sh.log"), "realcluster build: kubernetes v1.36.3: build ...\n");
    assertThatThrownBy(() -> ToolBuilds.await("build.sh", dir, Duration.ofMillis(200)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("build.sh still building after PT0.2S")
        .hasMessageContaining("kubernetes v1.36.3: build ...");
  }
}
