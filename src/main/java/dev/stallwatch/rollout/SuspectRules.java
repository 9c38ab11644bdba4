package dev.stallwatch.rollout;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Decides, for a stalled node, whether the new revision or the node is to blame — whether rolling
 * back would help — and says why in words that finish "rollback would help: yes, because …".
 */
final class SuspectRules {

  /** The verdict on one node: the suspect, and why. */
  record Suspicion(Suspect suspect, String because) {}

  /**
   * What the rules look at.
   *
   * @param node null when the input lacks the node
   * @param newPod the node's oldest new-revision pod (live or terminating), or null
   * @param surge whether a live old pod still runs beside that new pod (maxSurge)
   * @param oldTemplate the old revision's template, when a ControllerRevision stores it
   * @param nothingEarlier the DaemonSet's ControllerRevisions hold none before the new one and no
   *     pod runs another: there is nothing to roll back to
   */
  record Clues(
      String nodeName,
      Cause cause,
      String reason,
      String message,
      NodeView node,
      PodView newPod,
      boolean surge,
      PodTemplateView newTemplate,
      PodTemplateView oldTemplate,
      boolean nothingEarlier) {}

  private static final Pattern INSUFFICIENT = Pattern.compile("Insufficient ([\\w./-]*\\w)");

  private SuspectRules() {}

  /** The causes that are about the node, which a maintenance signal explains. */
  private static final Set<Cause> ABOUT_THE_NODE =
      Set.of(Cause.NodeUnavailable, Cause.FailedCreate, Cause.Unschedulable, Cause.Unknown);

  static Suspicion judge(Clues c) {
    Suspicion maintained = maintenance(c);
    if (maintained != null) {
      return maintained;
    }
    Suspicion s = blame(c);
    if (c.nothingEarlier() && s.suspect() == Suspect.NewRevision) {
      // A first revision (or one whose predecessors are all gone) has nothing to go back to.
      return new Suspicion(
          Suspect.Unknown, s.because() + "; but there is no earlier revision to roll back to");
    }
    return s;
  }

  /**
   * A node taken out of service on purpose ({@link Maintenance}) before the new pod was created
   * there (or before the rollout reached it): the node, also where it turned NotReady only after
   * the new pod was created. A failure of the pod itself keeps its suspect.
   */
  private static Suspicion maintenance(Clues c) {
    if (c.node() == null || !ABOUT_THE_NODE.contains(c.cause())) {
      return null;
    }
    Instant created = c.newPod() == null ? null : c.newPod().created();
    return Maintenance.before(c.node(), created)
        .map(
            signal ->
                new Suspicion(
                    Suspect.Node,
                    "node "
                        + c.nodeName()
                        + " is in maintenance ("
                        + signal.name()
                        + ") since before "
                        + (c.newPod() == null
                            ? "the rollout reached it"
                            : "the new pod was created there")))
        .orElse(null);
  }

  private static Suspicion blame(Clues c) {
    return switch (c.cause()) {
      case NodeExcluded ->
          new Suspicion(
              Suspect.NewRevision,
              "the new revision no longer runs on node " + c.nodeName() + " and the old one did");
      case ImagePull, CrashLoop, NotReady, Unknown -> podFails(c);
      case InsufficientResources, Unschedulable -> doesNotFit(c);
      case NodeUnavailable -> nodeUnavailable(c);
      case FailedCreate ->
          new Suspicion(
              Suspect.Unknown,
              "the controller cannot create the pod ("
                  + c.message()
                  + "): quota, admission or policy may refuse the old revision's pod too");
    };
  }

  /** The new template drops a node the old one ran on: rolling back brings it back. */
  static Suspicion excluded(String nodeName) {
    return new Suspicion(
        Suspect.NewRevision,
        "the new revision no longer runs on node " + nodeName + " and the old one did");
  }

  private static Suspicion podFails(Clues c) {
    if (c.newPod() == null) {
      return new Suspicion(
          Suspect.Unknown,
          "no pod of the new revision runs on node " + c.nodeName() + " to show what fails");
    }
    if (c.node() == null) {
      return new Suspicion(
          Suspect.Unknown,
          "the new pod fails ("
              + c.reason()
              + ") but node "
              + c.nodeName()
              + " is not in the input");
    }
    return new Suspicion(
        Suspect.NewRevision,
        "the new revision's pod fails on Ready node " + c.nodeName() + " (" + c.reason() + ")");
  }

  private static Suspicion doesNotFit(Clues c) {
    if (c.surge()) {
      return new Suspicion(
          Suspect.NewRevision,
          "the new pod is a surge pod that does not fit beside the old pod still running on node "
              + c.nodeName());
    }
    if (c.oldTemplate() == null) {
      return new Suspicion(
          Suspect.Unknown,
          "the old revision's template is not in the input to compare what each asks of node "
              + c.nodeName());
    }
    Map<String, BigDecimal> wanted = requests(c.newTemplate());
    Map<String, BigDecimal> had = requests(c.oldTemplate());
    for (String resource : named(c)) {
      BigDecimal more = wanted.getOrDefault(resource, BigDecimal.ZERO);
      BigDecimal before = had.getOrDefault(resource, BigDecimal.ZERO);
      if (more.compareTo(before) > 0) {
        return new Suspicion(
            Suspect.NewRevision,
            "the new revision asks for more "
                + resource
                + " than the old one ("
                + more.stripTrailingZeros().toPlainString()
                + " > "
                + before.stripTrailingZeros().toPlainString()
                + ")");
      }
    }
    Set<Integer> newPorts = hostPorts(c.newTemplate());
    newPorts.removeAll(hostPorts(c.oldTemplate()));
    if (!newPorts.isEmpty()) {
      return new Suspicion(
          Suspect.NewRevision,
          "the new revision adds host port " + newPorts.iterator().next() + " the old one lacked");
    }
    List<String> added = new ArrayList<>(wanted.keySet());
    added.removeAll(had.keySet());
    if (!added.isEmpty()) {
      return new Suspicion(
          Suspect.NewRevision,
          "the new revision requests " + added.get(0) + ", which the old one did not");
    }
    boolean noMore =
        wanted.entrySet().stream()
            .allMatch(
                e -> e.getValue().compareTo(had.getOrDefault(e.getKey(), BigDecimal.ZERO)) <= 0);
    if (noMore) {
      return new Suspicion(
          Suspect.Node,
          "the new revision asks no more of node "
              + c.nodeName()
              + " than the old one: the node cannot fit it");
    }
    return new Suspicion(
        Suspect.Unknown,
        "the new revision asks for more of other resources than the one node "
            + c.nodeName()
            + " lacks");
  }

  private static Suspicion nodeUnavailable(Clues c) {
    if (c.node() == null) {
      return new Suspicion(Suspect.Unknown, "node " + c.nodeName() + " is gone from the cluster");
    }
    Instant down = NodeOutage.downSince(c.node());
    if (down == null) {
      return new Suspicion(
          Suspect.Unknown, "node " + c.nodeName() + " is Ready; its pod is stuck terminating");
    }
    PodView pod = c.newPod();
    if (pod == null || pod.created() == null || !pod.created().isBefore(down)) {
      return new Suspicion(
          Suspect.Node,
          "node "
              + c.nodeName()
              + " was not Ready before "
              + (pod == null ? "the rollout reached it" : "the new pod was created there"));
    }
    if (NodeOutage.readyBefore(pod, down)) {
      return new Suspicion(
          Suspect.Node,
          "node " + c.nodeName() + " stopped being Ready after the new pod there was Ready");
    }
    return new Suspicion(
        Suspect.NewRevision,
        "node "
            + c.nodeName()
            + " stopped being Ready after the new pod was created there and before it was ever"
            + " available: the new pod may have broken the node");
  }

  /** The resources the scheduler or kubelet says are short ("Insufficient x", "OutOfx"). */
  private static Set<String> named(Clues c) {
    Set<String> out = new LinkedHashSet<>();
    Matcher m = INSUFFICIENT.matcher(c.message() == null ? "" : c.message());
    while (m.find()) {
      out.add(m.group(1));
    }
    if (c.reason() != null && c.reason().startsWith("OutOf") && c.reason().length() > 5) {
      out.add(c.reason().substring(5));
    }
    return out;
  }

  /** The template's requests summed over its main containers (what a running pod holds). */
  private static Map<String, BigDecimal> requests(PodTemplateView t) {
    Map<String, BigDecimal> sum = new TreeMap<>();
    for (PodTemplateView.Container c : t.containers()) {
      c.requests()
          .forEach((k, v) -> Quantities.parse(v).ifPresent(q -> sum.merge(k, q, BigDecimal::add)));
    }
    return sum;
  }

  private static Set<Integer> hostPorts(PodTemplateView t) {
    Set<Integer> ports = new LinkedHashSet<>();
    t.containers().forEach(c -> ports.addAll(c.hostPorts()));
    t.initContainers().forEach(c -> ports.addAll(c.hostPorts()));
    return ports;
  }
}
