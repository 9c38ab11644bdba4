package dev.stallwatch.cli;

import dev.stallwatch.rollback.DaemonSetApi;
import java.util.Locale;
import java.util.Set;
import picocli.CommandLine;

/**
 * A DaemonSet named as kubectl accepts it: {@code ds/NAME}, {@code daemonset/NAME}, {@code
 * daemonsets.apps/NAME} (an {@code apps/v1} DaemonSet, as kubectl resolves them), {@code
 * daemonset.apps.kruise.io/NAME} (an OpenKruise Advanced DaemonSet), or just {@code NAME}:
 * whichever of the two exists.
 *
 * @param api the API the name was qualified with; null for a bare {@code NAME}
 */
record DaemonSetName(String name, DaemonSetApi api) {

  private static final Set<String> APPS_V1 =
      Set.of(
          "ds",
          "daemonset",
          "daemonsets",
          "daemonset.apps",
          "daemonsets.apps",
          "ds.apps",
          "daemonsets.v1.apps",
          "daemonset.v1.apps");

  private static final Set<String> ADVANCED =
      Set.of(
          "daemonset.apps.kruise.io",
          "daemonsets.apps.kruise.io",
          "daemonset.v1beta1.apps.kruise.io",
          "daemonsets.v1beta1.apps.kruise.io",
          "daemonset.v1alpha1.apps.kruise.io",
          "daemonsets.v1alpha1.apps.kruise.io");

  /** A bare {@code NAME}: either API. */
  DaemonSetName(String name) {
    this(name, null);
  }

  /**
   * How to name it back to the user: {@code daemonset.apps.kruise.io/NAME} as given, {@code
   * daemonset.apps/NAME} for an {@code apps/v1} or bare name (what it was until Advanced
   * DaemonSets).
   */
  String qualified() {
    return (api == null ? DaemonSetApi.APPS_V1 : api).qualified(name);
  }

  /** True when {@code api} is one this name may mean. */
  boolean allows(DaemonSetApi other) {
    return api == null || api == other;
  }

  /** Picocli converter; rejects other kinds and malformed names with a clear message. */
  static final class Converter implements CommandLine.ITypeConverter<DaemonSetName> {
    @Override
    public DaemonSetName convert(String value) {
      String text = value == null ? "" : value.trim();
      String name = text;
      DaemonSetApi api = null;
      int slash = text.indexOf('/');
      if (slash >= 0) {
        String kind = text.substring(0, slash).toLowerCase(Locale.ROOT);
        if (APPS_V1.contains(kind)) {
          api = DaemonSetApi.APPS_V1;
        } else if (ADVANCED.contains(kind)) {
          api = DaemonSetApi.ADVANCED;
        } else {
          throw new CommandLine.TypeConversionException(
              "\"" + text + "\" is not a DaemonSet; use ds/NAME or daemonset.apps.kruise.io/NAME");
        }
        name = text.substring(slash + 1);
      }
      if (!name.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?")) {
        throw new CommandLine.TypeConversionException(
            "\"" + text + "\" is not a valid DaemonSet name; use ds/NAME");
      }
      return new DaemonSetName(name, api);
    }
  }
}
