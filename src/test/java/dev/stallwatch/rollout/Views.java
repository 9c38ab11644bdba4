package dev.stallwatch.rollout;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Short hand-written inputs for the table tests of the analyzer's rules: one DaemonSet "ds" in
 * namespace "ns", revisions "old" (1) and "new" (2), nodes and pods written in a line each.
 */
final class Views {
  static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");
  static final OwnerRef OWNER = new OwnerRef("DaemonSet", "ds", "uid-ds");

  private Views() {}

  static Instant ago(int minutes) {
    return NOW.minusSeconds(60L * minutes);
  }

  static PodTemplateView template(String image, Map<String, String> nodeSelector) {
    return new PodTemplateView(
        Map.of("app", "ds"),
        nodeSelector,
        null,
        List.of(),
        "",
        false,
        List.of(),
        List.of(new PodTemplateView.Container("c", image, Map.of("cpu", "100m"))),
        "{\"image\":\"" + image + "\",\"selector\":\"" + nodeSelector + "\"}");
  }

  static final PodTemplateView OLD_TEMPLATE = template("img:1", Map.of());
  static final PodTemplateView NEW_TEMPLATE = template("img:2", Map.of());

  static RevisionView revision(String hash, long number, PodTemplateView t, Instant created) {
    return new RevisionView("ds-" + hash, hash, number, created, OWNER, t);
  }

  static final RevisionView OLD = revision("old", 1, OLD_TEMPLATE, ago(60 * 24));
  static final RevisionView NEW = revision("new", 2, NEW_TEMPLATE, ago(12));

  /**
   * The DaemonSet at template generation 2 running NEW_TEMPLATE, observed, with maxUnavailable 1.
   */
  static DaemonSetView ds(PodTemplateView template, DaemonSetView.Status status) {
    return new DaemonSetView(
        new ObjectRef("ns", "ds", "uid-ds"),
        2,
        2L,
        Map.of(),
        template,
        null,
        0,
        status,
        ago(60 * 24 * 30));
  }

  static DaemonSetView ds() {
    return ds(NEW_TEMPLATE, new DaemonSetView.Status(2L, 3, 3, 2, 1, 2, 1, 0));
  }

  static NodeView node(String name) {
    return new NodeView(
        name,
        Map.of(),
        List.of(),
        false,
        new NodeView.Condition("True", "KubeletReady", "", ago(60 * 24)),
        ago(60 * 24 * 30));
  }

  static NodeView downNode(String name, Instant since) {
    return new NodeView(
        name,
        Map.of(),
        List.of(),
        false,
        new NodeView.Condition("False", "KubeletNotReady", "runtime network not ready", since),
        ago(60 * 24 * 30));
  }

  /**
   * A pod builder: {@code pod("n1", "new").created(ago(5)).waiting("ImagePullBackOff").build()}.
   */
  static Pod pod(String node, String revision) {
    return new Pod(node, revision);
  }

  static final class Pod {
    private final String node;
    private final String revision;
    private Instant created = ago(60);
    private Instant deleted;
    private String phase = "Running";
    private String reason = "";
    private String message = "";
    private final List<PodView.Condition> conditions = new ArrayList<>();
    private final List<PodView.ContainerStatus> containers = new ArrayList<>();
    private boolean bound = true;

    Pod(String node, String revision) {
      this.node = node;
      this.revision = revision;
    }

    Pod created(Instant at) {
      created = at;
      return this;
    }

    Pod deleted(Instant at) {
      deleted = at;
      return this;
    }

    /** Running, Ready since {@code at}. */
    Pod ready(Instant at) {
      conditions.add(new PodView.Condition("Ready", "True", "", "", at));
      containers.add(
          new PodView.ContainerStatus("c", "img", true, 0, null, null, true, null, null, null));
      return this;
    }

    /** Running, containers ready by the kubelet's last word, marked not Ready at {@code at}. */
    Pod markedNotReady(Instant at) {
      conditions.add(new PodView.Condition("Ready", "False", "", "", at));
      containers.add(
          new PodView.ContainerStatus("c", "img", true, 0, null, null, true, null, null, null));
      return this;
    }

    /** Running, its containers not ready since {@code at} (a probe failing, a crash). */
    Pod notReadySince(Instant at) {
      conditions.add(new PodView.Condition("Ready", "False", "ContainersNotReady", "", at));
      containers.add(
          new PodView.ContainerStatus("c", "img", false, 0, null, null, true, null, null, null));
      return this;
    }

    /** Running but never Ready. */
    Pod notReady() {
      conditions.add(new PodView.Condition("Ready", "False", "ContainersNotReady", "", created));
      containers.add(
          new PodView.ContainerStatus("c", "img", false, 0, null, null, true, null, null, null));
      return this;
    }

    Pod waiting(String why) {
      phase = "Pending";
      conditions.add(new PodView.Condition("Ready", "False", "ContainersNotReady", "", created));
      containers.add(
          new PodView.ContainerStatus(
              "c", "img", false, 0, why, why + " message", false, null, null, null));
      return this;
    }

    Pod unschedulable(String why) {
      phase = "Pending";
      bound = false;
      conditions.add(new PodView.Condition("PodScheduled", "False", "Unschedulable", why, created));
      return this;
    }

    Pod failed(String why) {
      phase = "Failed";
      reason = why;
      message = why + " message";
      return this;
    }

    PodView build() {
      Map<String, String> labels = new HashMap<>();
      labels.put(MetadataKeys.REVISION_HASH_LABEL, revision);
      labels.put(MetadataKeys.TEMPLATE_GENERATION_LABEL, revision.equals("new") ? "2" : "1");
      return new PodView(
          "ns",
          "ds-" + node + "-" + revision,
          "uid-" + node + "-" + revision,
          labels,
          OWNER,
          bound ? node : "",
          node,
          created,
          deleted,
          phase,
          reason,
          message,
          conditions,
          List.of(),
          List.of("img"),
          List.of(),
          containers);
    }
  }
}
