package dev.stallwatch.rollout;

import java.time.Duration;

/**
 * The one place durations become text, in the three forms stallwatch prints: kubectl's ages ({@link
 * #age}), the compact form of flags and messages ({@link #compact}) and Go's {@code time.Duration}
 * form that Kubernetes components write into messages ({@link #go}); and the demo's timeline clock
 * ({@link #clock}).
 */
public final class Durations {
  private Durations() {}

  /**
   * An age as kubectl prints it ({@code 45s}, {@code 3m12s}, {@code 5h10m}, {@code 12d}, {@code
   * 2y1d}): exact for young objects, coarser as they grow older, following apimachinery's {@code
   * HumanDuration}. {@code <invalid>} for more than a second in the future (clock skew).
   */
  public static String age(Duration d) {
    long seconds = d.getSeconds();
    if (seconds < -1) {
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
      return minutes + "m" + nonZero(seconds % 60, "s");
    }
    if (minutes < 180) {
      return minutes + "m";
    }
    long hours = minutes / 60;
    if (hours < 8) {
      return hours + "h" + nonZero(minutes % 60, "m");
    }
    if (hours < 48) {
      return hours + "h";
    }
    if (hours < 24 * 8) {
      return hours / 24 + "d" + nonZero(hours % 24, "h");
    }
    if (hours < 24 * 365 * 2) {
      return hours / 24 + "d";
    }
    if (hours < 24 * 365 * 8) {
      return hours / 24 / 365 + "y" + nonZero((hours / 24) % 365, "d");
    }
    return hours / 24 / 365 + "y";
  }

  /**
   * The compact form the command line takes back ({@code 90ms}, {@code 45s}, {@code 4m10s}, {@code
   * 1h30m}): hours, minutes and seconds, each only when not zero; negative counts as zero.
   */
  public static String compact(Duration d) {
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

  /**
   * Whole seconds as Go's {@code time.Duration.String()} writes them ({@code 10s}, {@code 5m0s},
   * {@code 1h0m0s}), as in the kubelet's {@code back-off 5m0s restarting failed container}.
   */
  public static String go(Duration d) {
    long s = d.getSeconds();
    String sign = s < 0 ? "-" : "";
    s = Math.abs(s);
    if (s < 60) {
      return sign + s + "s";
    }
    if (s < 3600) {
      return sign + s / 60 + "m" + s % 60 + "s";
    }
    return sign + s / 3600 + "h" + (s % 3600) / 60 + "m" + s % 60 + "s";
  }

  /**
   * Elapsed time as a clock reads it, minutes and seconds ({@code 00:00}, {@code 01:30}, {@code
   * 75:05}): the demo's timeline; negative counts as zero.
   */
  public static String clock(Duration d) {
    long s = Math.max(0, d.getSeconds());
    return String.format("%02d:%02d", s / 60, s % 60);
  }

  private static String nonZero(long value, String unit) {
    return value == 0 ? "" : value + unit;
  }
}
