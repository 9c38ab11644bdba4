package dev.stallwatch.app;

import java.time.Duration;

/** Durations as the command line takes them back: {@code 90s}, {@code 5m}, {@code 1h30m}. */
public final class DurationText {
  private DurationText() {}

  public static String of(Duration d) {
    long s = Math.max(0, d.getSeconds());
    if (s == 0 && d.toMillis() > 0) {
      return d.toMillis() + "ms";
    }
    StringBuilder out = new StringBuilder();
    if (s >= 3600) {
      out.append(s / 3600).append('h');
    }
    if (s % 3600 >= 60) {
      out.append((s % 3600) / 60).append('m');
    }
    if (s % 60 != 0 || out.length() == 0) {
      out.append(s % 60).append('s');
    }
    return out.toString();
  }
}
