package dev.stallwatch.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The table of {@link PeerVerdictsTest}: the DaemonSet cases of kubectl's, kstatus's and Argo CD's
 * own tests as our fixtures under {@code src/test/resources/peers}, and a few stallwatch scenarios,
 * each with every tool's verdict and, wherever we differ, why.
 */
final class PeerCases {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Path RESOURCES = Path.of("src/test/resources");
  private static final String NOW = "2026-12-02T10:00:00Z";

  private PeerCases() {}

  /** Where a case comes from: the upstream test that asserts its verdict, or our own scenario. */
  enum Source {
    KUBECTL(
        "kubectl",
        "https://github.com/kubernetes/kubectl/blob/dee3483a3d6a64c07fdf746caf80af446dee99ac/pkg/polymorphichelpers/rollout_status_test.go"),
    KSTATUS(
        "kstatus",
        "https://github.com/kubernetes-sigs/cli-utils/blob/5895ad6c17dd06b99c1e5c8af17e2b12a3504fad/pkg/kstatus/status/status_compute_test.go"),
    ARGO_CD(
        "Argo CD",
        "https://github.com/argoproj/gitops-engine/blob/5baed5604d2dd970619fc9b91e8d31724662ab3e/pkg/health/health_test.go"),
    STALLWATCH("stallwatch", "../src/test/resources/scenarios");

    final String label;
    final String link;

    Source(String label, String link) {
      this.label = label;
      this.link = link;
    }
  }

  /**
   * One case.
   *
   * @param upstream the case's name in its source's test
   * @param fixture below {@code src/test/resources}; a scenario fixture's objects, instant and
   *     stall-after are used
   * @param ours phase, with the cause when Stalled: {@code Stalled (ImagePull)}
   * @param why why we differ from a peer; null exactly when every peer agrees with us
   */
  record Case(
      Source source,
      String upstream,
      String fixture,
      String kubectl,
      String kstatus,
      String argoCd,
      String ours,
      String evidence,
      int exit,
      String why) {

    String id() {
      return fixture.substring(fixture.lastIndexOf('/') + 1, fixture.length() - ".yaml".length());
    }

    @Override
    public String toString() {
      return id();
    }
  }

  static final List<Case> CASES =
      List.of(
          new Case(
              Source.KUBECTL,
              "test1",
              "peers/kubectl-generation-zero.yaml",
              "waits: 0 of 1 updated",
              "InProgress (NoGeneration)",
              "Progressing",
              "Progressing",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KUBECTL,
              "test2",
              "peers/kubectl-one-of-two-available.yaml",
              "waits: 1 of 2 available",
              "InProgress (LessAvailable)",
              "Progressing",
              "Progressing",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KUBECTL,
              "test2",
              "peers/kubectl-one-of-two-available-with-nodes.yaml",
              "waits: 1 of 2 available",
              "InProgress (LessAvailable)",
              "Progressing",
              "Stalled (CrashLoop)",
              "Full",
              1,
              "Same .status, but with the nodes and pods stallwatch sees that the new pod on node-b"
                  + " has crash-looped for 20 minutes, longer than stall-after (5m): Stalled,"
                  + " cause CrashLoop, rolling back would help. The peers read .status only and"
                  + " keep waiting: `kubectl rollout status` until its `--timeout`, kstatus and"
                  + " Argo CD indefinitely (none has a progress deadline for DaemonSets)."),
          new Case(
              Source.KUBECTL,
              "test3",
              "peers/kubectl-rolled-out.yaml",
              "done",
              "Current",
              "Healthy",
              "Complete",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KUBECTL,
              "test4",
              "peers/kubectl-spec-not-observed.yaml",
              "waits: spec update not observed",
              "InProgress (LatestGenerationNotObserved)",
              "Progressing",
              "Progressing",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KUBECTL,
              "WithWrongUpdateStrategyType",
              "peers/kubectl-on-delete.yaml",
              "error: only for RollingUpdate",
              "InProgress (NoGeneration)",
              "Healthy",
              "OnDelete",
              "StatusOnly",
              0,
              "With OnDelete the controller replaces a pod only when someone deletes it, so there"
                  + " is no rollout to finish or to stall: stallwatch reports the phase OnDelete"
                  + " (exit 0, never Stalled). kubectl refuses the strategy (an error, exit 1),"
                  + " Argo CD calls any OnDelete DaemonSet Healthy, and kstatus, which has no"
                  + " OnDelete rule, waits for a metadata.generation this object lacks."),
          new Case(
              Source.KSTATUS,
              "dsNoStatus",
              "peers/kstatus-no-status.yaml",
              "waits: spec update not observed",
              "InProgress (NoObservedGeneration)",
              "Progressing",
              "Progressing",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KSTATUS,
              "dsBadStatus",
              "peers/kstatus-bad-status.yaml",
              "done",
              "InProgress (NoDesiredNumber)",
              "Healthy",
              "Progressing",
              "StatusOnly",
              0,
              "The DaemonSet controller always writes desiredNumberScheduled, so a status without"
                  + " it is not the controller's report. kubectl and Argo CD read the missing"
                  + " numbers as 0 of 0 and call the rollout done; stallwatch, like kstatus, takes"
                  + " the status as not reported yet (reason StatusNotReported). This comparison"
                  + " found that stallwatch, too, used to read 0 desired and say Complete."),
          new Case(
              Source.KSTATUS,
              "dsOK",
              "peers/kstatus-ok.yaml",
              "done",
              "Current",
              "Healthy",
              "Complete",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KSTATUS,
              "dsOK",
              "peers/kstatus-ok-with-nodes.yaml",
              "done",
              "Current",
              "Healthy",
              "Complete",
              "Full",
              0,
              null),
          new Case(
              Source.KSTATUS,
              "dsDifferentGeneration",
              "peers/kstatus-different-generation.yaml",
              "waits: spec update not observed",
              "InProgress (LatestGenerationNotObserved)",
              "Progressing",
              "Progressing",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.KSTATUS,
              "dsLessReady",
              "peers/kstatus-less-ready.yaml",
              "done",
              "InProgress (LessReady)",
              "Healthy",
              "Progressing",
              "StatusOnly",
              0,
              "The status contradicts itself (4 available but 2 ready, and an available pod is a"
                  + " ready one), so stallwatch does not take it as proof of completion and, like"
                  + " kstatus, says Progressing. kubectl and Argo CD never read numberReady and"
                  + " call it done. This comparison found that stallwatch used to say Complete."),
          new Case(
              Source.KSTATUS,
              "dsLessAvailable",
              "peers/kstatus-less-available.yaml",
              "waits: 2 of 4 available",
              "InProgress (LessAvailable)",
              "Progressing",
              "Progressing",
              "StatusOnly",
              0,
              null),
          new Case(
              Source.ARGO_CD,
              "TestDaemonSetOnDeleteHealth",
              "peers/argocd-on-delete.yaml",
              "error: only for RollingUpdate",
              "InProgress (NoGeneration)",
              "Healthy",
              "OnDelete",
              "StatusOnly",
              0,
              "Argo CD's Healthy comes with the message that 0 of 1 new pods are updated: the one"
                  + " node still runs the old spec. stallwatch reports OnDelete, neither complete"
                  + " nor stalled, and says .status reports 0 of 1 desired nodes updated. kubectl"
                  + " refuses OnDelete; kstatus waits for the missing metadata.generation."),
          new Case(
              Source.STALLWATCH,
              "seed-image-pull",
              "scenarios/seed-image-pull.yaml",
              "waits: 1 of 3 updated",
              "InProgress (LessUpdated)",
              "Progressing",
              "Stalled (ImagePull)",
              "Full",
              1,
              "The image-pull stall: the new image cannot be pulled on gpu-node-1 for 12 minutes."
                  + " .status only shows a rollout in progress, so every peer waits and `kubectl"
                  + " rollout status` ends at its `--timeout` with no node and no cause; stallwatch"
                  + " names the node, the cause, the revisions and that rolling back would help."),
          new Case(
              Source.STALLWATCH,
              "image-pull-not-yet-stalled",
              "scenarios/image-pull-not-yet-stalled.yaml",
              "waits: 1 of 3 updated",
              "InProgress (LessUpdated)",
              "Progressing",
              "Progressing",
              "Full",
              0,
              null),
          new Case(
              Source.STALLWATCH,
              "node-selector-narrowed",
              "scenarios/node-selector-narrowed.yaml",
              "done",
              "Current",
              "Healthy",
              "Stalled (NodeExcluded)",
              "Full",
              1,
              "The new nodeSelector drops gpu-node-3, so DESIRED shrank from 3 to 2 and .status"
                  + " says 2 of 2 updated and available: complete by every status-based rule."
                  + " stallwatch matches the old and new templates against the nodes and reports"
                  + " the node the new spec silently left (NodeExcluded), unless the DaemonSet"
                  + " allows it with the annotation stallwatch.dev/allow-node-exclusion."));

  /** A fixture: a bare object or List (peers), or a scenario with its instant and stall-after. */
  record Fixture(JsonNode objects, String now, String stallAfter) {
    static Fixture load(String path) throws IOException {
      JsonNode tree = YAML.readTree(RESOURCES.resolve(path).toFile());
      if (tree.has("objects")) {
        return new Fixture(
            tree.get("objects"), tree.get("now").asText(), tree.get("stallAfter").asText());
      }
      return new Fixture(tree, NOW, "5m");
    }

    List<JsonNode> items() {
      if (!objects.has("items")) {
        return List.of(objects);
      }
      return Stream.of(objects.get("items")).flatMap(i -> stream(i)).toList();
    }

    private static Stream<JsonNode> stream(JsonNode array) {
      Stream.Builder<JsonNode> b = Stream.builder();
      array.forEach(b::add);
      return b.build();
    }

    JsonNode daemonSet() {
      return items().stream()
          .filter(i -> i.path("kind").asText().equals("DaemonSet"))
          .findFirst()
          .orElseThrow();
    }

    long nodes() {
      return items().stream().filter(i -> i.path("kind").asText().equals("Node")).count();
    }

    long pods() {
      return items().stream().filter(i -> i.path("kind").asText().equals("Pod")).count();
    }
  }
}
