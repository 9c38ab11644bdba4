package dev.stallwatch.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Required;

/**
 * What a RolloutStall is about: a DaemonSet in the same namespace and the hash of the revision its
 * rollout stalled on. Together they are the stall's identity (and its name).
 *
 * @param daemonSetAPIVersion the DaemonSet's API version: {@code apps/v1} (the default, also for
 *     records written before the field existed) or an OpenKruise Advanced DaemonSet's
 * @param daemonSetKind the DaemonSet's kind: {@code DaemonSet} in both APIs
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RolloutStallSpec(
    @Required String daemonSet,
    @Required String revision,
    @Default("apps/v1") String daemonSetAPIVersion,
    @Default("DaemonSet") String daemonSetKind) {

  public RolloutStallSpec {
    daemonSetAPIVersion =
        daemonSetAPIVersion == null || daemonSetAPIVersion.isBlank()
            ? "apps/v1"
            : daemonSetAPIVersion;
    daemonSetKind = daemonSetKind == null || daemonSetKind.isBlank() ? "DaemonSet" : daemonSetKind;
  }

  /** A stall of an {@code apps/v1} DaemonSet. */
  public RolloutStallSpec(String daemonSet, String revision) {
    this(daemonSet, revision, null, null);
  }
}
