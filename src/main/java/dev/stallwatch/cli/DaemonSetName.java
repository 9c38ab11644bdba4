package dev.stallwatch.cli;

import java.util.Locale;
import java.util.Set;
import picocli.CommandLine;

/**
 * A DaemonSet named as kubectl accepts it: {@code ds/NAME}, {@code daemonset/NAME}, {@code
 * daemonsets.apps/NAME} or just {@code NAME}.
 */
record DaemonSetName(String name) {

  private static final Set<String> KINDS =
      Set.of(
          "ds",
          "daemonset",
          "daemonsets",
          "daemonset.apps",
          "daemonsets.apps",
          "ds.apps",
          "daemonsets.v1.apps",
          "daemonset.v1.apps");

  /** Picocli converter; rejects other kinds and malformed names with a clear message. */
  static final class Converter implements CommandLine.ITypeConverter<DaemonSetName> {
    @Override
    public DaemonSetName convert(String value) {
      String text = value == null ? "" : value.trim();
      String name = text;
      int slash = text.indexOf('/');
      if (slash >= 0) {
        String kind = text.substring(0, slash).toLowerCase(Locale.ROOT);
        if (!KINDS.contains(kind)) {
          throw new CommandLine.TypeConversionException(
              "\"" + text + "\" is not a DaemonSet; use ds/NAME");
        }
        name = text.substring(slash + 1);
      }
      if (!name.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?")) {
        throw new CommandLine.TypeConversionException(
            "\"" + text + "\" is not a valid DaemonSet name; use ds/NAME");
      }
      return new DaemonSetName(name);
    }
  }
}
