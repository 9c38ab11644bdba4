package dev.stallwatch.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads durations as people write them on a command line — {@code 90s}, {@code 5m}, {@code 1h},
 * {@code 1h30m}, {@code 500ms}, {@code 2d} — and as ISO-8601 ({@code PT5M}).
 */
public final class DurationParser implements CommandLine.ITypeConverter<Duration> {

  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");
  private static final Pattern WHOLE = Pattern.compile("(?:\\d+(?:ms|s|m|h|d))+");

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException naming the text and the accepted forms
   */
  public static Duration parse(String text) {
    String s = text == null ? "" : text.trim();
    if (s.toUpperCase(Locale.ROOT).startsWith("P")) {
      try {
        Duration d = Duration.parse(s.toUpperCase(Locale.ROOT));
        if (!d.isNegative()) {
          return d;
        }
      } catch (DateTimeParseException e) {
        // fall through to the common message
      }
    } else if (WHOLE.matcher(s).matches()) {
      try {
        return sum(s);
      } catch (NumberFormatException | ArithmeticException e) {
        throw new IllegalArgumentException("\"" + s + "\" is too long a duration");
      }
    }
    throw new IllegalArgumentException(
        "\"" + s + "\" is not a duration; use e.g. 90s, 5m, 1h, 1h30m or ISO-8601 PT5M");
  }

  private static Duration sum(String s) {
    Duration total = Duration.ZERO;
    Matcher m = PART.matcher(s);
    while (m.find()) {
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
    }
    return total;
  }

  @Override
  public Duration convert(String value) {
    try {
      return parse(value);
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new CommandLine.TypeConversionException(
          e instanceof ArithmeticException
              ? "\"" + value + "\" is too long a duration"
              : e.getMessage());
    }
  }
}
