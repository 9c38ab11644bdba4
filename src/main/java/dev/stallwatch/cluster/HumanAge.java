package dev.stallwatch.cluster;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Ages as kubectl prints them ({@code 45s}, {@code 3m12s}, {@code 5h10m}, {@code 12d}): exact for
 * young objects, coarser as they grow older, following apimachinery's {@code HumanDuration} rules.
 */
final class HumanAge {

  private HumanAge() {}

  /**
   * The age of an RFC 3339 timestamp at {@code now}; {@code <unknown>} when absent or malformed.
   */
  static String since(String timestamp, Instant now) {
    if (timestamp == null || timestamp.isEmpty()) {
      return "<unknown>";
    }
    try {
      return of(Duration.between(Instant.parse(timestamp), now));
    } catch (DateTimeParseException e) {
      return "<unknown>";
    }
  }

  static String of(Duration d) {
    long seconds = d.getSeconds();
    if (seconds < -1) {
      // Clock skew between writer and reader: a timestamp in the future.
      return "<invalid>";
    }
    if (seconds < 0) {
      return "0s";
    }
    if (seconds < 120) {
      return seconds + "s";
    }
    long minutes = seconds / 60;
    if (minutes < 10) {
      long s = seconds % 60;
      return s == 0 ? minutes + "m" : minutes + "m" + s + "s";
    }
    if (minutes < 180) {
      return minutes + "m";
    }
    long hours = minutes / 60;
    if (hours < 8) {
      long m = minutes % 60;
      return m == 0 ? hours + "h" : hours + "h" + m + "m";
    }
    if (hours < 48) {
      return hours + "h";
    }
    if (hours < 24 * 8) {
      long h = hours % 24;
      return h == 0 ? hours / 24 + "d" : hours / 24 + "d" + h + "h";
    }
    if (hours < 24 * 365 * 2) {
      return hours / 24 + "d";
    }
    if (hours < 24 * 365 * 8) {
      long dy = (hours / 24) % 365;
      return dy == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + dy + "d";
    }
    return hours / 24 / 365 + "y";
  }
}
