package dev.stallwatch.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.generator.annotation.Required;

/**
 * What a RolloutStall is about: a DaemonSet in the same namespace and the hash of the revision its
 * rollout stalled on. Together they are the stall's identity (and its name).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RolloutStallSpec(@Required String daemonSet, @Required String revision) {}
