package dev.stallwatch.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import java.util.Locale;
import org.slf4j.LoggerFactory;

/**
 * Points logback at stderr in the chosen level and format: {@code text} for people, {@code json}
 * (logback's own JSON encoder, one object per line) for log pipelines.
 */
public final class LogSetup {
  private LogSetup() {}

  /** The accepted log formats. */
  public enum Format {
    text,
    json
  }

  /** Replaces the root logger's appenders; {@code level} is a logback level name. */
  public static void apply(String level, Format format) {
    Level parsed = Level.toLevel(level.toUpperCase(Locale.ROOT), null);
    if (parsed == null) {
      throw new IllegalArgumentException(
          "--log-level must be one of trace, debug, info, warn, error; got '" + level + "'");
    }
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.detachAndStopAllAppenders();
    ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
    appender.setContext(context);
    appender.setName("stderr");
    appender.setTarget("System.err");
    appender.setEncoder(encoder(context, format));
    appender.start();
    root.addAppender(appender);
    root.setLevel(parsed);
    // Our own loggers follow the flag even when a bundled config set them apart.
    context.getLogger("dev.stallwatch").setLevel(parsed);
  }

  private static Encoder<ILoggingEvent> encoder(LoggerContext context, Format format) {
    if (format == Format.json) {
      JsonEncoder json = new JsonEncoder();
      json.setContext(context);
      // Keep lines small for log pipelines: no MDC/context dumps beyond what JSON needs.
      json.setWithContext(false);
      json.setWithSequenceNumber(false);
      json.setWithNanoseconds(false);
      json.setWithMessage(false);
      json.setWithArguments(false);
      json.setWithFormattedMessage(true);
      json.start();
      return json;
    }
    PatternLayoutEncoder pattern = new PatternLayoutEncoder();
    pattern.setContext(context);
    pattern.setPattern("%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{30} - %msg%n");
    pattern.start();
    return pattern;
  }
}
