package dev.stallwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LogSetupTest {
  private final PrintStream originalErr = System.err;

  @AfterEach
  void restore() throws Exception {
    System.setErr(originalErr);
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    new ContextInitializer(context).autoConfig();
  }

  @Test
  void jsonFormatWritesOneJsonObjectPerLine() {
    String out = capture(LogSetup.Format.json);
    assertThat(out.lines().filter(l -> l.contains("stall seen")))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .startsWith("{")
                    .contains("\"level\":\"WARN\"")
                    .contains("\"formattedMessage\":\"stall seen on gpu-node-1\""));
  }

  @Test
  void textFormatWritesReadableLinesAndHonoursTheLevel() {
    String out = capture(LogSetup.Format.text);
    assertThat(out).contains("WARN").contains("stall seen on gpu-node-1").doesNotContain("hidden");
  }

  @Test
  void anUnknownLevelIsRejected() {
    assertThatThrownBy(() -> LogSetup.apply("loud", LogSetup.Format.text))
        .hasMessageContaining("--log-level");
  }

  private String capture(LogSetup.Format format) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    LogSetup.apply("warn", format);
    var log = LoggerFactory.getLogger("dev.stallwatch.test");
    log.info("hidden");
    log.warn("stall seen on {}", "gpu-node-1");
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
