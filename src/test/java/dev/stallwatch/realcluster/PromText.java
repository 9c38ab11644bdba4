package dev.stallwatch.realcluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the Prometheus text exposition format as the scale run needs it: the samples of one metric
 * with their labels, and quantiles of a histogram between two scrapes (the way {@code
 * histogram_quantile(q, increase(..._bucket[window]))} does: linear inside the bucket).
 */
final class PromText {
  private PromText() {}

  /** One sample: its labels (in the order written) and value. */
  record Sample(Map<String, String> labels, double value) {
    String label(String name) {
      return labels.get(name);
    }
  }

  /** Every sample of {@code metric} (the exact name, no suffix) in {@code text}. */
  static List<Sample> samples(String text, String metric) {
    List<Sample> found = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (!line.startsWith(metric)) {
        continue;
      }
      int end = metric.length();
      if (line.length() == end || (line.charAt(end) != '{' && line.charAt(end) != ' ')) {
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>();
      int valueAt = end;
      if (line.charAt(end) == '{') {
        int close = line.lastIndexOf('}');
        if (close < 0) {
          throw new IllegalArgumentException("unterminated labels in: " + line);
        }
        parseLabels(line.substring(end + 1, close), labels);
        valueAt = close + 1;
      }
      String[] rest = line.substring(valueAt).trim().split("\\s+");
      found.add(new Sample(labels, parseValue(rest[0])));
    }
    return found;
  }

  /** The value of the sample of {@code metric} without labels (or the first one), else NaN. */
  static double value(String text, String metric) {
    List<Sample> s = samples(text, metric);
    return s.isEmpty() ? Double.NaN : s.get(0).value();
  }

  /** The cumulative buckets of histogram {@code metric}: upper bound → count. */
  static TreeMap<Double, Double> buckets(String text, String metric) {
    TreeMap<Double, Double> buckets = new TreeMap<>();
    for (Sample s : samples(text, metric + "_bucket")) {
      buckets.merge(parseValue(s.label("le")), s.value(), Double::sum);
    }
    return buckets;
  }

  /**
   * The {@code q} quantile of the observations made between two scrapes of a histogram's buckets;
   * NaN when there were none. Inside a bucket the observations are taken as evenly spread.
   */
  static double quantile(double q, Map<Double, Double> before, TreeMap<Double, Double> after) {
    TreeMap<Double, Double> delta = new TreeMap<>();
    after.forEach((le, count) -> delta.put(le, count - before.getOrDefault(le, 0.0)));
    if (delta.isEmpty() || delta.lastEntry().getValue() <= 0) {
      return Double.NaN;
    }
    double total = delta.lastEntry().getValue();
    double rank = q * total;
    double lowerBound = 0;
    double lowerCount = 0;
    for (var e : delta.entrySet()) {
      if (e.getValue() >= rank) {
        if (e.getKey().isInfinite()) {
          return lowerBound; // above the highest finite bound: the best that can be said
        }
        double inBucket = e.getValue() - lowerCount;
        return inBucket <= 0
            ? e.getKey()
            : lowerBound + (e.getKey() - lowerBound) * (rank - lowerCount) / inBucket;
      }
      lowerBound = e.getKey();
      lowerCount = e.getValue();
    }
    return lowerBound;
  }

  /** How often {@code prefix} occurs in {@code text} (a cheap count of one metric's series). */
  static long linesStartingWith(String text, String prefix) {
    long n = 0;
    for (int at = text.indexOf(prefix); at >= 0; at = text.indexOf(prefix, at + prefix.length())) {
      n++;
    }
    return n;
  }

  /** The number of samples (lines that are neither comments nor blank). */
  static long seriesCount(String text) {
    return text.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).count();
  }

  private static double parseValue(String v) {
    return switch (v) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(v);
    };
  }

  private static void parseLabels(String body, Map<String, String> into) {
    int i = 0;
    while (i < body.length()) {
      int eq = body.indexOf('=', i);
      if (eq < 0) {
        break;
      }
      String name = body.substring(i, eq).trim();
      if (body.charAt(eq + 1) != '"') {
        throw new IllegalArgumentException("label " + name + " without a quoted value: " + body);
      }
      StringBuilder value = new StringBuilder();
      int j = eq + 2;
      while (j < body.length() && body.charAt(j) != '"') {
        char c = body.charAt(j);
        if (c == '\\' && j + 1 < body.length()) {
          char n = body.charAt(++j);
          value.append(n == 'n' ? '\n' : n);
        } else {
          value.append(c);
        }
        j++;
      }
      into.put(name, value.toString());
      i = j + 1;
      while (i < body.length() && (body.charAt(i) == ',' || body.charAt(i) == ' ')) {
        i++;
      }
    }
  }
}
