package dev.stallwatch.report;

import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.Counts;
import dev.stallwatch.rollout.NodeRow;
import dev.stallwatch.rollout.ObjectRef;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RevisionSummary;
import dev.stallwatch.rollout.RolloutVerdict;
import java.time.Instant;
import java.util.List;

/** Verdicts built by hand, as the analyzer would give them, for the report tests. */
final class Verdicts {
  static final Instant NOW = Instant.parse("2026-12-02T16:12:00Z");
  static final Instant SINCE = Instant.parse("2026-12-02T16:00:03Z");
  static final String OLD_IMAGE = "nvcr.io/nvidia/k8s/container-toolkit:v1.17.4-ubuntu20.04";
  static final String NEW_IMAGE = "nvcr.io/nvidia/k8s/container-toolkit:v1.17.9-ubuntu20.04";

  private Verdicts() {}

  static RolloutVerdict stalledOnImagePull() {
    Counts counts = new Counts(3, 3, 2, 1, 2, 1, 0);
    return new RolloutVerdict(
        new ObjectRef("gpu-operator", "nvidia-container-toolkit-daemonset", "u1"),
        Phase.Stalled,
        Cause.ImagePull,
        "ImagePullBackOff",
        "rollout to revision 2 (7c9d5f6b84) stopped on node gpu-node-1: ImagePull: Back-off"
            + " pulling image \""
            + NEW_IMAGE
            + "\": ErrImagePull: rpc error: code = NotFound desc = failed to pull and unpack"
            + " image \""
            + NEW_IMAGE
            + "\": failed to resolve reference \""
            + NEW_IMAGE
            + "\": not found",
        List.of("gpu-node-1"),
        SINCE,
        new RevisionSummary("6d4f9b8c7d", 1L, List.of(OLD_IMAGE)),
        new RevisionSummary("7c9d5f6b84", 2L, List.of(NEW_IMAGE)),
        counts,
        counts,
        2L,
        2,
        1,
        0,
        List.of(
            new NodeRow(
                "gpu-node-1",
                NodeRow.Revision.NONE,
                "nvidia-container-toolkit-daemonset-x7k2p",
                List.of(NEW_IMAGE),
                "ImagePullBackOff",
                NodeRow.Standing.STUCK,
                Cause.ImagePull,
                "ImagePullBackOff",
                "Back-off pulling image \"" + NEW_IMAGE + "\": ErrImagePull: not found",
                SINCE),
            waiting("gpu-node-2", "nvidia-container-toolkit-daemonset-9qmzl"),
            waiting("gpu-node-3", "nvidia-container-toolkit-daemonset-c4r8v")),
        null);
  }

  static NodeRow waiting(String node, String pod) {
    return new NodeRow(
        node,
        NodeRow.Revision.OLD,
        pod,
        List.of(OLD_IMAGE),
        "Running",
        NodeRow.Standing.WAITING,
        null,
        "",
        "",
        null);
  }

  static RolloutVerdict complete(String namespace, String name, Counts reported) {
    Counts counts = new Counts(2, 2, 2, 2, 2, 0, 0);
    return new RolloutVerdict(
        new ObjectRef(namespace, name, null),
        Phase.Complete,
        null,
        "Complete",
        "all 2 nodes run revision 3",
        List.of(),
        null,
        null,
        new RevisionSummary("abc", 3L, List.of("registry.k8s.io/kube-proxy:v1.31.4")),
        counts,
        reported,
        3L,
        3,
        1,
        0,
        List.of(
            new NodeRow(
                "node-a",
                NodeRow.Revision.NEW,
                name + "-a",
                List.of("registry.k8s.io/kube-proxy:v1.31.4"),
                "Running",
                NodeRow.Standing.UPDATED,
                null,
                null,
                null,
                null)),
        null);
  }
}
