package dev.stallwatch.rollout;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;

/**
 * Resource quantities as Kubernetes writes them ({@code 500m}, {@code 1Gi}, {@code 2}, {@code
 * 1e3}).
 */
final class Quantities {
  private static final Map<String, BigDecimal> SUFFIXES =
      Map.ofEntries(
          Map.entry("m", new BigDecimal("0.001")),
          Map.entry("k", BigDecimal.TEN.pow(3)),
          Map.entry("M", BigDecimal.TEN.pow(6)),
          Map.entry("G", BigDecimal.TEN.pow(9)),
          Map.entry("T", BigDecimal.TEN.pow(12)),
          Map.entry("P", BigDecimal.TEN.pow(15)),
          Map.entry("E", BigDecimal.TEN.pow(18)),
          Map.entry("Ki", BigDecimal.valueOf(2).pow(10)),
          Map.entry("Mi", BigDecimal.valueOf(2).pow(20)),
          Map.entry("Gi", BigDecimal.valueOf(2).pow(30)),
          Map.entry("Ti", BigDecimal.valueOf(2).pow(40)),
          Map.entry("Pi", BigDecimal.valueOf(2).pow(50)),
          Map.entry("Ei", BigDecimal.valueOf(2).pow(60)));

  private Quantities() {}

  /** The amount a quantity stands for; empty when it is not a quantity. */
  static Optional<BigDecimal> parse(String text) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    String s = text.trim();
    int end = s.length();
    while (end > 0 && Character.isLetter(s.charAt(end - 1))) {
      end--;
    }
    String suffix = s.substring(end);
    String number = s.substring(0, end);
    // 1e3 ends in a digit: the exponent is part of the number, not a suffix.
    BigDecimal factor = suffix.isEmpty() ? BigDecimal.ONE : SUFFIXES.get(suffix);
    if (factor == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(new BigDecimal(number).multiply(factor));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
