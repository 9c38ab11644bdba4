package dev.stallwatch.cli;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import picocli.CommandLine;

/** Reads an RFC 3339 instant ({@code 2026-12-02T16:05:00Z}, {@code …+02:00}, fractions allowed). */
public final class TimeParser implements CommandLine.ITypeConverter<Instant> {

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException naming the text and the expected form
   */
  public static Instant parse(String text) {
    String s = text == null ? "" : text.trim().toUpperCase(Locale.ROOT);
    // RFC 3339 also allows a space between date and time.
    if (s.length() > 10 && s.charAt(10) == ' ') {
      s = s.substring(0, 10) + "T" + s.substring(11);
    }
    try {
      return OffsetDateTime.parse(s).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "\"" + text + "\" is not an RFC 3339 time like 2026-12-02T16:05:00Z");
    }
  }

  @Override
  public Instant convert(String value) {
    try {
      return parse(value);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.TypeConversionException(e.getMessage());
    }
  }
}
