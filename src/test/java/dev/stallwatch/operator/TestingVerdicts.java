package dev.stallwatch.operator;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.crd.RolloutStallSpec;
import dev.stallwatch.crd.RolloutStallStatus;
import dev.stallwatch.crd.StallName;
import dev.stallwatch.rollout.Cause;
import dev.stallwatch.rollout.Counts;
import dev.stallwatch.rollout.Evidence;
import dev.stallwatch.rollout.NodeRow;
import dev.stallwatch.rollout.NodeRow.Revision;
import dev.stallwatch.rollout.NodeRow.Standing;
import dev.stallwatch.rollout.ObjectRef;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RevisionSummary;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.rollout.Suspect;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Verdicts of the seed story, built by hand: 3 GPU nodes, the new toolkit tag cannot be pulled. */
final class TestingVerdicts {
  static final ObjectRef DS = new ObjectRef("gpu-operator", "nvidia-container-toolkit", "uid-1");
  static final RevisionSummary OLD =
      new RevisionSummary("5d4b9c7f8", 1L, List.of("nvcr.io/nvidia/k8s/container-toolkit:v1.14.3"));
  static final RevisionSummary NEW =
      new RevisionSummary("7f6c8d9b4", 2L, List.of("nvcr.io/nvidia/k8s/container-toolkit:v1.14.9"));
  static final Instant STALLED_SINCE = Instant.parse("2026-12-02T10:00:00Z");
  static final String SUSPECT_REASON =
      "the new revision's pod fails on Ready node gpu-node-1 (ImagePullBackOff)";

  private TestingVerdicts() {}

  static RolloutVerdict stalled(Cause cause) {
    return stalled(cause, NEW, STALLED_SINCE);
  }

  static RolloutVerdict stalled(Cause cause, RevisionSummary newRevision, Instant since) {
    return new RolloutVerdict(
        DS,
        Phase.Stalled,
        cause,
        "ImagePullBackOff",
        "node gpu-node-1 cannot pull nvcr.io/nvidia/k8s/container-toolkit:v1.14.9",
        List.of("gpu-node-1"),
        since,
        OLD,
        newRevision,
        new Counts(3, 3, 2, 1, 2, 1, 0),
        new Counts(3, 3, 2, 1, 2, 1, 0),
        2L,
        2L,
        1,
        0,
        List.of(
            new NodeRow(
                "gpu-node-1",
                Revision.NEW,
                "toolkit-abcde",
                newRevision.images(),
                "ImagePullBackOff",
                Standing.STUCK,
                cause,
                "ImagePullBackOff",
                "Back-off pulling image",
                since,
                Suspect.NewRevision,
                SUSPECT_REASON),
            row("gpu-node-2", Revision.OLD, Standing.WAITING),
            row("gpu-node-3", Revision.OLD, Standing.WAITING)),
        null,
        Evidence.Full,
        List.of(),
        Suspect.NewRevision,
        SUSPECT_REASON);
  }

  static RolloutVerdict notStalled(Phase phase, RevisionSummary newRevision) {
    return new RolloutVerdict(
        DS,
        phase,
        null,
        phase.name(),
        "rollout " + phase,
        List.of(),
        null,
        OLD,
        newRevision,
        new Counts(3, 3, 3, 3, 3, 0, 0),
        null,
        2L,
        2L,
        1,
        0,
        List.of(
            row("gpu-node-1", Revision.NEW, Standing.UPDATED),
            row("gpu-node-2", Revision.NEW, Standing.UPDATED),
            row("gpu-node-3", Revision.NEW, Standing.UPDATED)),
        null);
  }

  static RolloutStall stall(RolloutStallStatus status, Map<String, String> annotations) {
    RolloutStall stall = new RolloutStall();
    stall.setMetadata(
        new ObjectMetaBuilder()
            .withNamespace(DS.namespace())
            .withName(StallName.of(DS.name(), NEW.hash()))
            .withAnnotations(annotations)
            .build());
    stall.setSpec(new RolloutStallSpec(DS.name(), NEW.hash()));
    stall.setStatus(status);
    return stall;
  }

  /** {@link #stalled(Cause)} on a cluster where {@code waiting} more nodes run the old revision. */
  static RolloutVerdict stalledWithManyWaiting(int waiting) {
    RolloutVerdict base = stalled(Cause.ImagePull);
    List<NodeRow> rows = new java.util.ArrayList<>(base.nodes().subList(0, 1));
    for (int i = 0; i < waiting; i++) {
      rows.add(row(String.format("node-%04d", i), Revision.OLD, Standing.WAITING));
    }
    return new RolloutVerdict(
        base.daemonSet(),
        base.phase(),
        base.cause(),
        base.reason(),
        base.message(),
        base.stalledNodes(),
        base.stalledSince(),
        base.oldRevision(),
        base.newRevision(),
        base.counts(),
        base.reported(),
        base.observedGeneration(),
        base.generation(),
        base.maxUnavailable(),
        base.maxSurge(),
        rows,
        base.nextCheck());
  }

  private static NodeRow row(String node, Revision revision, Standing standing) {
    return new NodeRow(
        node, revision, node + "-pod", List.of(), "Running", standing, null, null, null, null);
  }
}
