package dev.stallwatch.testing;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Verdicts of the seed story built by hand, as the analyzer would give them: 3 GPU nodes, the new
 * container-toolkit tag cannot be pulled on {@value #STUCK_NODE}, the other two still run the old
 * revision.
 *
 * <p>Two families share the rows and counts here. {@link Report} carries the exact names, hashes
 * and times the report tests assert in their rendered output; {@link Operator} carries the
 * DaemonSet, revisions and suspect the operator tests compare CR statuses against. Their data
 * differs on purpose: each family's assertions are written against its own values.
 */
public final class SeedVerdicts {
  /** The node the new revision's pod cannot start on. */
  public static final String STUCK_NODE = "gpu-node-1";

  /** kubectl's STATUS, and the reason, of the stuck pod. */
  public static final String PULL_BACK_OFF = "ImagePullBackOff";

  /** Counts mid-stall: 3 desired and scheduled, 2 ready, 1 updated, 2 available, 1 unavailable. */
  public static final Counts STALLED_COUNTS = new Counts(3, 3, 2, 1, 2, 1, 0);

  private SeedVerdicts() {}

  /** The row of {@link #STUCK_NODE}: its pod is in {@value #PULL_BACK_OFF} since {@code since}. */
  public static NodeRow stuckRow(
      Revision revision,
      String pod,
      List<String> images,
      Cause cause,
      String message,
      Instant since,
      Suspect suspect,
      String suspectReason) {
    return new NodeRow(
        STUCK_NODE,
        revision,
        pod,
        images,
        PULL_BACK_OFF,
        Standing.STUCK,
        cause,
        PULL_BACK_OFF,
        message,
        since,
        suspect,
        suspectReason);
  }

  /** A running pod's row with no cause, reason, message or time. */
  public static NodeRow row(
      String node, Revision revision, String pod, List<String> images, Standing standing) {
    return new NodeRow(node, revision, pod, images, "Running", standing, null, null, null, null);
  }

  /** The report tests' seed story: exact names, hashes and times the rendered output shows. */
  public static final class Report {
    public static final Instant NOW = Instant.parse("2026-12-02T16:12:00Z");
    public static final Instant SINCE = Instant.parse("2026-12-02T16:00:03Z");
    public static final String OLD_IMAGE =
        "nvcr.io/nvidia/k8s/container-toolkit:v1.17.4-ubuntu20.04";
    public static final String NEW_IMAGE =
        "nvcr.io/nvidia/k8s/container-toolkit:v1.17.9-ubuntu20.04";

    private Report() {}

    public static RolloutVerdict stalledOnImagePull() {
      return new RolloutVerdict(
          new ObjectRef("gpu-operator", "nvidia-container-toolkit-daemonset", "u1"),
          Phase.Stalled,
          Cause.ImagePull,
          PULL_BACK_OFF,
          "rollout to revision 2 (7c9d5f6b84) stopped on node gpu-node-1: ImagePull: Back-off"
              + " pulling image \""
              + NEW_IMAGE
              + "\": ErrImagePull: rpc error: code = NotFound desc = failed to pull and unpack"
              + " image \""
              + NEW_IMAGE
              + "\": failed to resolve reference \""
              + NEW_IMAGE
              + "\": not found",
          List.of(STUCK_NODE),
          SINCE,
          new RevisionSummary("6d4f9b8c7d", 1L, List.of(OLD_IMAGE)),
          new RevisionSummary("7c9d5f6b84", 2L, List.of(NEW_IMAGE)),
          STALLED_COUNTS,
          STALLED_COUNTS,
          2L,
          2,
          1,
          0,
          List.of(
              stuckRow(
                  Revision.NONE,
                  "nvidia-container-toolkit-daemonset-x7k2p",
                  List.of(NEW_IMAGE),
                  Cause.ImagePull,
                  "Back-off pulling image \"" + NEW_IMAGE + "\": ErrImagePull: not found",
                  SINCE,
                  null,
                  null),
              waiting("gpu-node-2", "nvidia-container-toolkit-daemonset-9qmzl"),
              waiting("gpu-node-3", "nvidia-container-toolkit-daemonset-c4r8v")),
          null);
    }

    /** A node still on the old revision; reason and message are empty, as the table shows them. */
    public static NodeRow waiting(String node, String pod) {
      return new NodeRow(
          node,
          Revision.OLD,
          pod,
          List.of(OLD_IMAGE),
          "Running",
          Standing.WAITING,
          null,
          "",
          "",
          null);
    }

    public static RolloutVerdict complete(String namespace, String name, Counts reported) {
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
          new Counts(2, 2, 2, 2, 2, 0, 0),
          reported,
          3L,
          3,
          1,
          0,
          List.of(
              row(
                  "node-a",
                  Revision.NEW,
                  name + "-a",
                  List.of("registry.k8s.io/kube-proxy:v1.31.4"),
                  Standing.UPDATED)),
          null);
    }
  }

  /** The operator tests' seed story: the DaemonSet, revisions and suspect its CRs are about. */
  public static final class Operator {
    public static final ObjectRef DS =
        new ObjectRef("gpu-operator", "nvidia-container-toolkit", "uid-1");
    public static final RevisionSummary OLD =
        new RevisionSummary(
            "5d4b9c7f8", 1L, List.of("nvcr.io/nvidia/k8s/container-toolkit:v1.14.3"));
    public static final RevisionSummary NEW =
        new RevisionSummary(
            "7f6c8d9b4", 2L, List.of("nvcr.io/nvidia/k8s/container-toolkit:v1.14.9"));
    public static final Instant STALLED_SINCE = Instant.parse("2026-12-02T10:00:00Z");
    public static final String SUSPECT_REASON =
        "the new revision's pod fails on Ready node gpu-node-1 (ImagePullBackOff)";

    private Operator() {}

    public static RolloutVerdict stalled(Cause cause) {
      return stalled(cause, NEW, STALLED_SINCE);
    }

    public static RolloutVerdict stalled(Cause cause, RevisionSummary newRevision, Instant since) {
      return new RolloutVerdict(
          DS,
          Phase.Stalled,
          cause,
          PULL_BACK_OFF,
          "node gpu-node-1 cannot pull nvcr.io/nvidia/k8s/container-toolkit:v1.14.9",
          List.of(STUCK_NODE),
          since,
          OLD,
          newRevision,
          STALLED_COUNTS,
          STALLED_COUNTS,
          2L,
          2L,
          1,
          0,
          List.of(
              stuckRow(
                  Revision.NEW,
                  "toolkit-abcde",
                  newRevision.images(),
                  cause,
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

    public static RolloutVerdict notStalled(Phase phase, RevisionSummary newRevision) {
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

    public static RolloutStall stall(RolloutStallStatus status, Map<String, String> annotations) {
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

    /**
     * {@link #stalled(Cause)} on a cluster where {@code waiting} more nodes run the old revision.
     */
    public static RolloutVerdict stalledWithManyWaiting(int waiting) {
      RolloutVerdict base = stalled(Cause.ImagePull);
      List<NodeRow> rows = new ArrayList<>(base.nodes().subList(0, 1));
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

    /** A running pod named after its node, with no images. */
    private static NodeRow row(String node, Revision revision, Standing standing) {
      return SeedVerdicts.row(node, revision, node + "-pod", List.of(), standing);
    }
  }

  /** {@code v} with {@code pace} (the hand-written verdicts have none). */
  public static dev.stallwatch.rollout.RolloutVerdict withPace(
      dev.stallwatch.rollout.RolloutVerdict v, dev.stallwatch.rollout.Pace pace) {
    return new dev.stallwatch.rollout.RolloutVerdict(
        v.daemonSet(),
        v.phase(),
        v.cause(),
        v.reason(),
        v.message(),
        v.stalledNodes(),
        v.stalledSince(),
        v.oldRevision(),
        v.newRevision(),
        v.counts(),
        v.reported(),
        v.observedGeneration(),
        v.generation(),
        v.maxUnavailable(),
        v.maxSurge(),
        v.nodes(),
        v.nextCheck(),
        v.evidence(),
        v.missing(),
        v.suspect(),
        v.suspectReason(),
        pace);
  }
}
