package dev.stallwatch.cli;

import dev.stallwatch.report.TableReport;
import dev.stallwatch.rollback.DaemonSetApi;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.Durations;
import dev.stallwatch.rollout.NodeRow;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.PodTemplateView;
import dev.stallwatch.rollout.RevisionSummary;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.rollout.RolloutSnapshot;
import dev.stallwatch.rollout.RolloutVerdict;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code stallwatch wait}: the CI gate in place of {@code kubectl rollout status}. It ends with a
 * verdict — Complete, Stalled (with where, why and how to undo) or timed out — and never hangs.
 */
@Command(
    name = "wait",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    usageHelpWidth = 100,
    exitCodeOnInvalidInput = ExitCodes.ACCESS,
    description = {
      "Waits for a DaemonSet rollout to complete, printing progress as nodes move. Unlike",
      "'kubectl rollout status' it stops as soon as the rollout is Stalled, and at --timeout."
    }
    // footer: the exit codes, from ExitCodes.TABLE (set by ExitCodes.configure)
    )
public final class WaitCommand implements Callable<Integer> {

  @Mixin CommandBasics basics;

  @Mixin ClusterOptions cluster;

  @Parameters(
      index = "0",
      paramLabel = "ds/NAME",
      converter = DaemonSetName.Converter.class,
      description =
          "The DaemonSet (ds/NAME, NAME, or daemonset.apps.kruise.io/NAME for an OpenKruise"
              + " Advanced DaemonSet).")
  DaemonSetName daemonSet;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      converter = DurationParser.class,
      defaultValue = "10m",
      description = "Give up after this long, exit 2 (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Mixin StallAfterOption stallAfter;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      converter = DurationParser.class,
      defaultValue = "2s",
      description = "How often to look (default: ${DEFAULT-VALUE}).")
  Duration interval;

  /** The cluster's clock against the command's clock, read once the cluster is reached. */
  private ClusterClock clusterClock = ClusterClock.SAME;

  RolloutWait.Sleeper sleeper = d -> Thread.sleep(d.toMillis());

  @Override
  public Integer call() throws InterruptedException {
    if (timeout.isZero()) {
      throw new picocli.CommandLine.ParameterException(
          basics.commandLine(), "--timeout must be longer than 0");
    }
    if (interval.isZero()) {
      throw new picocli.CommandLine.ParameterException(
          basics.commandLine(), "--interval must be longer than 0");
    }
    PrintWriter out = basics.out();
    PrintWriter err = basics.err();
    String namespace = cluster.namespace();
    String name = daemonSet.name();
    AnalyzerSettings settings = stallAfter.settings();
    // One client for the whole wait: a new one per read would redo the config and TLS work.
    try (KubernetesClient client = cluster.translating(cluster::client)) {
      return waitWith(client, namespace, name, settings, out, err);
    }
  }

  private int waitWith(
      KubernetesClient client,
      String namespace,
      String name,
      AnalyzerSettings settings,
      PrintWriter out,
      PrintWriter err)
      throws InterruptedException {
    String[] lastLine = {null};
    long startNanos = System.nanoTime();
    // Nodes are dated by the cluster's clock, not this machine's (the deadline stays local).
    clusterClock = ClusterClock.of(client, basics.clock());
    LiveRollouts live = new LiveRollouts(client);
    // A bare NAME is either kind until the first read finds it; then it is that one.
    AtomicReference<DaemonSetName> target = new AtomicReference<>(daemonSet);
    boolean[] announced = {false};
    if (daemonSet.api() != null) {
      announce(out, daemonSet.qualified(), namespace);
      announced[0] = true;
    }
    RolloutWait wait =
        new RolloutWait(
            (local, memory) -> {
              Instant now = clusterClock.now(local);
              RolloutSnapshot snapshot =
                  cluster.translating(() -> read(live, namespace, target.get()));
              target.set(
                  new DaemonSetName(name, DaemonSetApi.of(snapshot.daemonSet().apiVersion())));
              RolloutVerdict own = RolloutAnalyzer.analyze(snapshot, now, settings, memory);
              // The operator's record of this revision dates the nodes as the cluster does.
              OperatorRecord record =
                  cluster.translating(() -> OperatorRecord.of(client, own)).orElse(null);
              RolloutVerdict verdict =
                  record == null
                      ? own
                      : RolloutAnalyzer.analyze(snapshot, now, settings, record.merged(memory));
              return new RolloutWait.Reading(verdict, templateRecorded(snapshot, verdict), record);
            },
            basics.clock(),
            sleeper,
            interval,
            timeout,
            reading -> {
              if (!announced[0]) {
                announce(out, qualified(reading.verdict()), namespace);
                announced[0] = true;
              }
              String line = ProgressLine.of(reading);
              if (!line.equals(lastLine[0])) {
                lastLine[0] = line;
                long seconds = (System.nanoTime() - startNanos) / 1_000_000_000L;
                // The pace moves with every look; a line is printed when the nodes moved.
                out.printf("[%4ds] %s%s%n", seconds, line, ProgressLine.pace(reading));
                out.flush();
              }
            },
            message -> {
              err.println("warning: " + message + " (still waiting)");
              err.flush();
            });
    RolloutWait.Outcome outcome = wait.run();
    return switch (outcome.end()) {
      case COMPLETE -> complete(out, outcome.last());
      case STALLED -> stalled(out, outcome);
      case TIMEOUT -> timedOut(out, outcome);
    };
  }

  private void announce(PrintWriter out, String qualified, String namespace) {
    out.println(
        "Waiting for "
            + qualified
            + " in namespace "
            + namespace
            + " (timeout "
            + Durations.compact(timeout)
            + ", stall after "
            + Durations.compact(stallAfter.duration())
            + ")");
    out.flush();
  }

  /** kubectl's name of the verdict's DaemonSet: {@code daemonset.apps/NAME} or the kruise one. */
  static String qualified(RolloutVerdict v) {
    return DaemonSetApi.of(v.apiVersion()).qualified(v.daemonSet().name());
  }

  private static RolloutSnapshot read(LiveRollouts live, String namespace, DaemonSetName name) {
    LiveRollouts.Selection selection = live.one(namespace, name);
    if (!selection.errors().isEmpty()) {
      throw new ExitCodes.UserException(selection.errors().get(0));
    }
    if (selection.snapshots().isEmpty()) {
      throw new ExitCodes.UserException(live.notFound(name, "in namespace " + namespace));
    }
    return selection.snapshots().get(0);
  }

  /**
   * False when the DaemonSet owns ControllerRevisions but none stores its current template (the
   * controller has not taken in the last edit yet): the analyzer then falls back to the highest
   * revision as the new one, which is not what the DaemonSet now asks for.
   */
  static boolean templateRecorded(RolloutSnapshot snapshot, RolloutVerdict verdict) {
    RevisionSummary picked = verdict.newRevision();
    if (picked == null || picked.revision() == null) {
      return true; // no ControllerRevisions: pods are matched by template generation, as upstream
    }
    PodTemplateView template = snapshot.daemonSet().template();
    if (template == null || template.canonical() == null) {
      return true; // nothing to compare: trust the analyzer's pick
    }
    return snapshot.revisions().stream()
        .anyMatch(
            r ->
                r.hash().equals(picked.hash())
                    && r.revision() == picked.revision()
                    && r.stores(template));
  }

  private int complete(PrintWriter out, RolloutVerdict v) {
    long held = ProgressLine.held(v);
    out.println(
        qualified(v)
            + " rollout Complete: "
            + (held == 0 ? "" : (v.counts().desired() - held) + " of ")
            + v.counts().desired()
            + " nodes run revision "
            + revision(v.newRevision())
            + (held == 0 ? "" : "; " + heldBy(v, held)));
    out.flush();
    return ExitCodes.OK;
  }

  /**
   * {@code 2 nodes held by partition 2}: the clause of a Complete Advanced DaemonSet's message that
   * says what holds its nodes, or the count alone.
   */
  static String heldBy(RolloutVerdict v, long held) {
    String message = v.message() == null ? "" : v.message();
    int by = message.indexOf(" held by ");
    if (by >= 0) {
      int start = message.lastIndexOf("; ", by);
      int end = message.indexOf("; ", by);
      return message.substring(start < 0 ? 0 : start + 2, end < 0 ? message.length() : end);
    }
    return held + (held == 1 ? " node" : " nodes") + " held on the old revision";
  }

  private int stalled(PrintWriter out, RolloutWait.Outcome outcome) {
    RolloutVerdict v = outcome.last();
    OperatorRecord record = outcome.lastReading().record();
    if (record != null && v.phase() != Phase.Stalled) {
      return recorded(out, v, record);
    }
    String ns = v.daemonSet().namespace();
    String name = v.daemonSet().name();
    NodeRow first =
        v.nodes().stream()
            .filter(r -> !v.stalledNodes().isEmpty() && r.node().equals(v.stalledNodes().get(0)))
            .findFirst()
            .orElse(null);
    out.println();
    out.println(qualified(v) + " rollout Stalled");
    out.println(
        "  node:     "
            + nodes(record == null ? v.stalledNodes() : record.withNodes(v.stalledNodes())));
    out.println("  cause:    " + v.cause());
    out.println(
        "  reason:   " + (first != null && first.reason() != null ? first.reason() : v.reason()));
    out.println(
        "  message:  "
            + (first != null && first.message() != null ? first.message() : v.message()));
    out.println("  since:    " + v.stalledSince());
    if (record != null) {
      out.println("  " + record.line());
    }
    if (v.suspect() != null) {
      out.println(
          "  suspect:  "
              + v.suspect()
              + " (rollback would help: "
              + v.suspect().rollbackHelps()
              + ", because "
              + v.suspectReason()
              + ")");
    }
    out.println("  old:      " + revision(v.oldRevision()));
    out.println("  new:      " + revision(v.newRevision()));
    out.println();
    out.println("Roll back to converge every node on the previous spec, then debug:");
    // The same cluster as this wait: repeat --context and --kubeconfig when they were given.
    String flags = cluster.clusterFlags();
    out.println("  stallwatch undo " + undoName(v) + " -n " + ns + flags);
    if (DaemonSetApi.of(v.apiVersion()) == DaemonSetApi.APPS_V1) {
      // kubectl rollout undo knows no Advanced DaemonSet
      out.println("  (or: kubectl rollout undo daemonset/" + name + " -n " + ns + flags + ")");
    }
    out.println();
    out.print(TableReport.render(clusterClock.now(basics.clock().instant()), List.of(v)));
    out.flush();
    return ExitCodes.STALLED;
  }

  /**
   * Stalled by the cluster's record, though this machine's own reading (its clock minutes off, or
   * the nodes not yet past its own stall-after) does not say so yet: the record's words.
   */
  private int recorded(PrintWriter out, RolloutVerdict v, OperatorRecord record) {
    String ns = v.daemonSet().namespace();
    out.println();
    out.println(qualified(v) + " rollout Stalled (recorded by the operator)");
    out.println("  node:     " + nodes(record.withNodes(v.stalledNodes())));
    out.println("  cause:    " + record.cause());
    out.println("  suspect:  " + record.suspect());
    out.println("  since:    " + record.since());
    out.println("  " + record.line());
    out.println("  new:      " + revision(v.newRevision()));
    out.println();
    String flags = cluster.clusterFlags();
    out.println("Roll back to converge every node on the previous spec, then debug:");
    out.println("  stallwatch undo " + undoName(v) + " -n " + ns + flags);
    out.println();
    out.print(TableReport.render(clusterClock.now(basics.clock().instant()), List.of(v)));
    out.flush();
    return ExitCodes.STALLED;
  }

  /** {@code ds/NAME}, or {@code daemonset.apps.kruise.io/NAME} for an Advanced DaemonSet. */
  private static String undoName(RolloutVerdict v) {
    return DaemonSetApi.of(v.apiVersion()) == DaemonSetApi.APPS_V1
        ? "ds/" + v.daemonSet().name()
        : qualified(v);
  }

  private int timedOut(PrintWriter out, RolloutWait.Outcome outcome) {
    RolloutVerdict v = outcome.last();
    out.println();
    String where;
    if (v == null) {
      where = " before the rollout could be read";
    } else if (v.phase() == Phase.Stalled && !outcome.lastReading().settled()) {
      // The stall is of the revision before the last edit, not a verdict on this rollout.
      where = ": " + ProgressLine.of(outcome.lastReading());
    } else {
      // Slow but moving, or stopped short of stall-after: the pace and time left say which.
      where =
          ": rollout "
              + v.phase()
              + ", "
              + ProgressLine.of(outcome.lastReading())
              + ProgressLine.pace(outcome.lastReading());
    }
    out.println("timed out after " + Durations.compact(timeout) + where);
    if (v != null) {
      out.println();
      out.print(TableReport.render(clusterClock.now(basics.clock().instant()), List.of(v)));
    }
    out.flush();
    return ExitCodes.TIMEOUT;
  }

  private static String nodes(List<String> nodes) {
    if (nodes.size() <= 1) {
      return nodes.isEmpty() ? "-" : nodes.get(0);
    }
    return nodes.get(0) + " (and " + String.join(", ", nodes.subList(1, nodes.size())) + ")";
  }

  static String revision(RevisionSummary r) {
    if (r == null) {
      return "-";
    }
    return r.describe() + (r.images().isEmpty() ? "" : " " + String.join(", ", r.images()));
  }
}
