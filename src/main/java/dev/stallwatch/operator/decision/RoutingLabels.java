package dev.stallwatch.operator.decision;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The DaemonSet labels {@code --label-allowlist} names, so that a page reaches the team that owns
 * the DaemonSet (as kube-state-metrics' {@code --metric-labels-allowlist}): copied as they are onto
 * the RolloutStall when it is created, and onto the stall series as {@code label_<key>} with every
 * character Prometheus does not allow in a label name replaced by {@code _} (a key the DaemonSet
 * lacks is an empty value, so every series has the same label names). Pure.
 */
public final class RoutingLabels {
  public static final RoutingLabels NONE = new RoutingLabels(List.of());

  // A Kubernetes label key: an optional DNS-subdomain prefix and '/', then a name of 1-63.
  private static final Pattern NAME =
      Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
  private static final Pattern PREFIX =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private final Map<String, String> metricLabelByKey;

  /**
   * @throws IllegalArgumentException naming each key that is not a label key, and keys that would
   *     become the same metric label
   */
  public RoutingLabels(List<String> allowlist) {
    Map<String, String> byKey = new LinkedHashMap<>();
    Map<String, String> keyByMetricLabel = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    for (String key : allowlist) {
      if (!labelKey(key)) {
        problems.add("--label-allowlist: '" + key + "' is not a label key");
        continue;
      }
      String metricLabel = metricLabel(key);
      String clash = keyByMetricLabel.putIfAbsent(metricLabel, key);
      if (clash != null && !clash.equals(key)) {
        problems.add(
            "--label-allowlist: '" + clash + "' and '" + key + "' would both be " + metricLabel);
      }
      byKey.put(key, metricLabel);
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    this.metricLabelByKey = byKey;
  }

  private static boolean labelKey(String key) {
    int slash = key.indexOf('/');
    if (slash < 0) {
      return NAME.matcher(key).matches();
    }
    String prefix = key.substring(0, slash);
    return prefix.length() <= 253
        && PREFIX.matcher(prefix).matches()
        && NAME.matcher(key.substring(slash + 1)).matches();
  }

  /** {@code label_} and the key with each character outside {@code [a-zA-Z0-9_]} as {@code _}. */
  static String metricLabel(String key) {
    return "label_" + key.replaceAll("[^a-zA-Z0-9_]", "_");
  }

  /** The allowlisted keys, in the order given. */
  public List<String> keys() {
    return List.copyOf(metricLabelByKey.keySet());
  }

  /** The allowlisted labels {@code daemonSetLabels} carries, for the RolloutStall. */
  public Map<String, String> copied(Map<String, String> daemonSetLabels) {
    Map<String, String> copied = new LinkedHashMap<>();
    if (daemonSetLabels != null) {
      for (String key : metricLabelByKey.keySet()) {
        String value = daemonSetLabels.get(key);
        if (value != null) {
          copied.put(key, value);
        }
      }
    }
    return copied;
  }

  /**
   * A {@code label_<key>} metric label for every allowlisted key, in the allowlist's order: its
   * value, or "" when not carried.
   */
  public Map<String, String> metricLabels(Map<String, String> daemonSetLabels) {
    Map<String, String> labels = new LinkedHashMap<>();
    metricLabelByKey.forEach(
        (key, metricLabel) -> {
          String value = daemonSetLabels == null ? null : daemonSetLabels.get(key);
          labels.put(metricLabel, value == null ? "" : value);
        });
    return labels;
  }
}
