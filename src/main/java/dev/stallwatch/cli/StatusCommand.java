package dev.stallwatch.cli;

import dev.stallwatch.report.JsonReport;
import dev.stallwatch.report.TableReport;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.Durations;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.rollout.RolloutSnapshot;
import dev.stallwatch.rollout.RolloutVerdict;
import dev.stallwatch.rollout.StallMemory;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code stallwatch status}: the {@code diagnose} report, read from the live cluster. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Shows DaemonSet rollouts on the live cluster: phase, cause, and which node runs which",
      "revision (the same report as 'diagnose', the same JSON schema). OpenKruise Advanced",
      "DaemonSets are listed too where the cluster serves them (daemonset.apps.kruise.io/NAME)."
    }
    // footer: the exit codes, from ExitCodes.TABLE (set by ExitCodes.configure)
    )
public final class StatusCommand implements Callable<Integer> {

  /** ANSI: cursor home, clear screen. */
  static final String CLEAR_SCREEN = "\033[H\033[2J";

  @Mixin CommandBasics basics;

  @Mixin ClusterOptions cluster;

  @Parameters(
      arity = "0..1",
      paramLabel = "DAEMONSET",
      converter = DaemonSetName.Converter.class,
      description =
          "Only this DaemonSet (NAME, ds/NAME, or daemonset.apps.kruise.io/NAME for an"
              + " OpenKruise Advanced DaemonSet).")
  DaemonSetName daemonSet;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      defaultValue = "table",
      description = "table or json (default: ${DEFAULT-VALUE}).")
  OutputFormat output;

  @Option(
      names = {"-w", "--watch"},
      description = "Refresh every --interval until interrupted (Ctrl-C).")
  boolean watch;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      converter = DurationParser.class,
      defaultValue = "2s",
      description = "Refresh interval of --watch (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Mixin StallAfterOption stallAfter;

  @Override
  public Integer call() {
    // One client for every refresh of --watch.
    try (KubernetesClient client = cluster.translating(cluster::client)) {
      return watch ? watch(client) : once(client);
    }
  }

  /** Per DaemonSet (namespace/name): what the last round of {@code -w} saw. */
  private final Map<String, StallMemory> memories = new HashMap<>();

  private int once(KubernetesClient client) {
    Report report = read(client);
    print(report, basics.out());
    return report.exitCode();
  }

  private int watch(KubernetesClient client) {
    PrintWriter out = basics.out();
    boolean tty = System.console() != null;
    for (int round = 0; ; round++) {
      String text;
      try {
        Report report = read(client);
        StringBuilder sb = new StringBuilder();
        sb.append("Every " + Durations.compact(interval) + ": stallwatch status    " + report.at());
        sb.append("\n\n").append(report.text());
        report.warnings().forEach(w -> sb.append("warning: ").append(w).append('\n'));
        report.errors().forEach(e -> sb.append("error: ").append(e).append('\n'));
        text = sb.toString();
      } catch (ExitCodes.AccessException | ExitCodes.UserException e) {
        // A watch outlives a blip of the API server: say so and try again.
        text = "error: " + e.getMessage() + "\n";
      }
      out.print(tty ? CLEAR_SCREEN : round == 0 ? "" : "\n");
      out.print(text);
      out.flush();
      try {
        Thread.sleep(interval.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ExitCodes.OK; // interrupted: the watch ends quietly
      }
    }
  }

  /** One reading of the cluster, analyzed and rendered. */
  record Report(
      Instant at,
      List<RolloutVerdict> verdicts,
      List<String> errors,
      List<String> warnings,
      String text) {
    int exitCode() {
      if (!errors.isEmpty()) {
        return ExitCodes.USAGE;
      }
      return verdicts.stream().anyMatch(RolloutVerdict::stalled) ? ExitCodes.STALLED : ExitCodes.OK;
    }
  }

  private void print(Report report, PrintWriter out) {
    PrintWriter err = basics.err();
    out.print(report.text());
    out.flush();
    report.warnings().forEach(w -> err.println("warning: " + w));
    report.errors().forEach(e -> err.println("error: " + e));
    err.flush();
  }

  private Report read(KubernetesClient client) {
    String namespace = cluster.allNamespaces() ? null : cluster.namespace();
    LiveRollouts live = new LiveRollouts(client);
    LiveRollouts.Selection selection =
        cluster.translating(
            () ->
                daemonSet == null
                    ? live.all(namespace)
                    : namespace == null
                        ? live.all(null, daemonSet)
                        : live.one(namespace, daemonSet));
    // Nodes are dated by the cluster's clock (its Date header), not this machine's.
    Instant at = ClusterClock.of(client, basics.clock()).now(basics.clock().instant());
    AnalyzerSettings settings = stallAfter.settings();
    List<RolloutVerdict> verdicts = new ArrayList<>();
    List<String> errors = new ArrayList<>(selection.errors());
    List<String> records = new ArrayList<>();
    for (RolloutSnapshot snapshot : selection.snapshots()) {
      // An apps/v1 DaemonSet and an Advanced one may share a name.
      String key =
          snapshot.daemonSet().apiVersion()
              + " "
              + snapshot.daemonSet().namespace()
              + "/"
              + snapshot.daemonSet().name();
      StallMemory memory = memories.getOrDefault(key, StallMemory.NONE);
      RolloutVerdict verdict = RolloutAnalyzer.analyze(snapshot, at, settings, memory);
      Optional<OperatorRecord> record = OperatorRecord.of(client, verdict);
      if (record.isPresent()) {
        // Date the nodes as the operator did, so this report and its RolloutStall agree.
        StallMemory merged = record.get().merged(memory);
        verdict = RolloutAnalyzer.analyze(snapshot, at, settings, merged);
        if (verdict.phase() != Phase.Stalled) {
          // The cluster's record wins: the operator, with its own stall-after, recorded the stall.
          // Judged with no longer a stall-after than the record proves, its nodes are stuck.
          Duration proven = record.get().heldFor(at);
          if (proven != null && proven.compareTo(settings.stallAfter()) < 0) {
            verdict = RolloutAnalyzer.analyze(snapshot, at, new AnalyzerSettings(proven), merged);
          }
        }
        records.add(TableReport.title(verdict) + ": " + record.get().line());
      }
      // -w keeps what it saw, as wait and the operator do: a re-created pod does not restart
      // its node's count.
      memories.put(key, StallMemory.from(verdict, at));
      verdicts.add(verdict);
    }
    if (verdicts.isEmpty() && errors.isEmpty()) {
      if (daemonSet != null) {
        throw new ExitCodes.UserException(
            live.notFound(
                daemonSet, namespace == null ? "in any namespace" : "in namespace " + namespace));
      }
      String where = namespace == null ? "any namespace" : "namespace " + namespace;
      return new Report(
          at,
          verdicts,
          errors,
          selection.warnings(),
          output == OutputFormat.json
              ? JsonReport.render(at, verdicts)
              : "No DaemonSets found in " + where + ".\n");
    }
    String text =
        output == OutputFormat.json
            ? JsonReport.render(at, verdicts)
            : TableReport.render(at, verdicts)
                + (records.isEmpty() ? "" : "\n" + String.join("\n", records) + "\n");
    return new Report(at, verdicts, errors, selection.warnings(), text);
  }
}
