package dev.stallwatch.rollout;

/**
 * An {@code intstr.IntOrString} as used by {@code maxUnavailable} and {@code maxSurge}: either an
 * absolute number or a percentage of the desired node count.
 */
public record IntOrPercent(int value, boolean percent) {

  public static final IntOrPercent ZERO = new IntOrPercent(0, false);

  public IntOrPercent {
    if (value < 0) {
      throw new IllegalArgumentException("must not be negative: " + value);
    }
  }

  /**
   * Parses {@code "25%"}, {@code "3"} or a number.
   *
   * @throws IllegalArgumentException with a message fit for the user when the text is neither
   */
  public static IntOrPercent parse(Object raw) {
    if (raw == null) {
      return null;
    }
    if (raw instanceof Number n) {
      return new IntOrPercent(n.intValue(), false);
    }
    String s = raw.toString().trim();
    try {
      if (s.endsWith("%")) {
        return new IntOrPercent(Integer.parseInt(s.substring(0, s.length() - 1).trim()), true);
      }
      return new IntOrPercent(Integer.parseInt(s), false);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "\"" + s + "\" is neither an integer nor a percentage like \"25%\"");
    }
  }

  /**
   * The absolute value for {@code total} nodes, rounding a percentage up as upstream's {@code
   * GetScaledValueFromIntOrPercent(…, roundUp=true)} does for DaemonSets.
   */
  public int scaledTo(int total) {
    if (!percent) {
      return value;
    }
    return (int) Math.ceil(value * (double) total / 100.0);
  }

  @Override
  public String toString() {
    return percent ? value + "%" : Integer.toString(value);
  }
}
