package dev.stallwatch.cli;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.crd.StallName;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.rollout.StallMemory;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The operator's Active RolloutStall for a DaemonSet's new revision, when one exists: {@code
 * status} and {@code wait} date the stalled nodes from it (as the operator does after a restart)
 * and name it, so that the CLI and the cluster's record never contradict each other. A record is
 * the DaemonSet's when its spec names the DaemonSet, the revision and the API ({@code apps/v1} or
 * an Advanced DaemonSet's {@code apps.kruise.io}). Without the CRD, or without the right to read
 * it, there is simply no record.
 */
record OperatorRecord(RolloutStall stall) {

  /** The Active stall of the verdict's new revision, if the cluster has one. */
  static Optional<OperatorRecord> of(KubernetesClient client, RolloutVerdict verdict) {
    if (verdict.newRevision() == null || verdict.newRevision().hash().isEmpty()) {
      return Optional.empty();
    }
    try {
      RolloutStall stall =
          client
              .resources(RolloutStall.class)
              .inNamespace(verdict.daemonSet().namespace())
              .withName(StallName.of(verdict.daemonSet().name(), verdict.newRevision().hash()))
              .get();
      // a RolloutStall edited by hand may lack its spec or name another revision: not a record
      return stall != null
              && stall.getStatus() != null
              && stall.getStatus().active()
              && stall.getSpec() != null
              && verdict.newRevision().hash().equals(stall.getSpec().revision())
              && verdict.daemonSet().name().equals(stall.getSpec().daemonSet())
              && sameApi(stall.getSpec().daemonSetAPIVersion(), verdict.apiVersion())
          ? Optional.of(new OperatorRecord(stall))
          : Optional.empty();
    } catch (KubernetesClientException e) {
      return Optional.empty(); // no CRD, no operator, or not allowed to read it
    }
  }

  /**
   * True when a record's {@code spec.daemonSetAPIVersion} ({@code apps/v1} when it was written
   * before the field existed) names the API of the verdict's DaemonSet: an {@code apps/v1}
   * DaemonSet and an OpenKruise Advanced DaemonSet may share a name (and, with the same template, a
   * revision hash). The group decides: {@code apps.kruise.io/v1alpha1} and {@code v1beta1} are two
   * versions of one object.
   */
  static boolean sameApi(String recorded, String verdict) {
    return group(recorded).equals(group(verdict));
  }

  private static String group(String apiVersion) {
    String api = apiVersion == null || apiVersion.isBlank() ? "apps/v1" : apiVersion.trim();
    int slash = api.indexOf('/');
    return slash < 0 ? "" : api.substring(0, slash);
  }

  /** {@code memory} with the stalled nodes' {@code since} from this record, earliest wins. */
  StallMemory merged(StallMemory memory) {
    String hash = stall.getSpec().revision();
    Map<String, Instant> held = new HashMap<>();
    if (memory.revisionHash().equals(hash)) {
      held.putAll(memory.heldSince());
    }
    RolloutStallStatus s = stall.getStatus();
    if (s.nodes() != null) {
      for (var node : s.nodes()) {
        Instant since = node.sinceTime().orElse(null);
        if (node.name() != null && since != null) {
          held.merge(node.name(), since, (a, b) -> a.isBefore(b) ? a : b);
        }
      }
    }
    return new StallMemory(hash, held, memory.observedAt());
  }

  /** The record's stalled nodes, then {@code more} (the CLI's own) not among them. */
  List<String> withNodes(List<String> more) {
    java.util.LinkedHashSet<String> all = new java.util.LinkedHashSet<>();
    RolloutStallStatus s = stall.getStatus();
    if (s.nodes() != null) {
      s.nodes().stream().map(n -> n.name()).filter(n -> n != null).forEach(all::add);
    } else if (s.node() != null) {
      all.add(s.node());
    }
    all.addAll(more);
    return List.copyOf(all);
  }

  /**
   * How long the record's stall has lasted at {@code now} (from its {@code stalledSince}); null
   * when that is unreadable or still ahead of {@code now}.
   */
  java.time.Duration heldFor(Instant now) {
    return stall
        .getStatus()
        .stalledSinceTime()
        .map(since -> java.time.Duration.between(since, now))
        .filter(d -> !d.isNegative())
        .orElse(null);
  }

  String cause() {
    return stall.getStatus().cause();
  }

  String suspect() {
    return stall.getStatus().suspect() == null ? "Unknown" : stall.getStatus().suspect();
  }

  String since() {
    return stall.getStatus().stalledSince();
  }

  /**
   * {@code recorded by the operator: RolloutStall ns/name Active: ImagePull on gpu-node-1 since …}.
   */
  String line() {
    RolloutStallStatus s = stall.getStatus();
    return "recorded by the operator: RolloutStall "
        + stall.getMetadata().getNamespace()
        + "/"
        + stall.getMetadata().getName()
        + " Active: "
        + s.cause()
        + " on "
        + s.node()
        + " since "
        + s.stalledSince();
  }
}
