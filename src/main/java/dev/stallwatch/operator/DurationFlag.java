package dev.stallwatch.operator;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads durations as Kubernetes people write them: {@code 90s}, {@code 5m}, {@code 1h30m}, {@code
 * 24h}, {@code 500ms}; ISO-8601 ({@code PT5M}) is accepted too.
 */
public final class DurationFlag implements ITypeConverter<Duration> {
  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /** Parses {@code value} or throws a message naming the accepted forms. */
  public static Duration parse(String value) {
    String text = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    if (text.startsWith("pt") || text.startsWith("p")) {
      try {
        return Duration.parse(text.toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw invalid(value);
      }
    }
    Matcher m = PART.matcher(text);
    Duration total = Duration.ZERO;
    int end = 0;
    while (m.find()) {
      if (m.start() != end) {
        throw invalid(value);
      }
      long n = Long.parseLong(m.group(1));
      total =
          total.plus(
              switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
              });
      end = m.end();
    }
    if (end == 0 || end != text.length()) {
      throw invalid(value);
    }
    return total;
  }

  private static TypeConversionException invalid(String value) {
    return new TypeConversionException(
        "'" + value + "' is not a duration; use e.g. 30s, 5m, 1h30m, 24h or PT5M");
  }
}
