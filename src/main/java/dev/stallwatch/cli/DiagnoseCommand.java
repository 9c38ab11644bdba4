package dev.stallwatch.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.kube.dump.Dump;
import dev.stallwatch.kube.dump.DumpReader;
import dev.stallwatch.kube.dump.DumpSnapshots;
import dev.stallwatch.report.JsonReport;
import dev.stallwatch.report.TableReport;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.rollout.RolloutSnapshot;
import dev.stallwatch.rollout.RolloutVerdict;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code stallwatch diagnose}: the rollout verdicts of a saved kubectl dump, without a cluster. */
@Command(
    name = "diagnose",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Diagnoses DaemonSet rollouts from a saved dump, no cluster needed. Make the dump with:",
      "  kubectl get daemonsets,pods,nodes,controllerrevisions,events -A -o json > dump.json",
      "(-o yaml, multi-document YAML and single objects work too; other kinds are skipped.)"
    }
    // footer: the exit codes, from ExitCodes.TABLE (set by ExitCodes.configure)
    )
public final class DiagnoseCommand implements Callable<Integer> {

  @Mixin CommandBasics basics;

  @Option(
      names = {"-f", "--filename"},
      required = true,
      paramLabel = "FILE",
      description = "A dump to read (JSON or YAML); '-' reads standard input. Repeatable.")
  List<String> files;

  @Option(
      names = "--now",
      paramLabel = "TIME",
      converter = TimeParser.class,
      description = "Evaluate as of this RFC 3339 time (default: the current time).")
  Instant now;

  @Mixin StallAfterOption stallAfter;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      defaultValue = "table",
      description = "table or json (default: ${DEFAULT-VALUE}).")
  OutputFormat output;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NAMESPACE",
      description = "Only DaemonSets of this namespace.")
  String namespace;

  @Parameters(
      arity = "0..1",
      paramLabel = "DAEMONSET",
      description = "Only the DaemonSet of this name.")
  String daemonSet;

  /** Said with any unexpected failure, so that nobody reads exit 2 as a verdict. */
  static final String BUG_HINT =
      "hint: diagnose could not finish, so this says nothing about your rollouts; it is a"
          + " stallwatch bug: please report it with the command and, if you can, the input";

  @Override
  public Integer call() {
    try {
      return diagnose();
    } catch (ExitCodes.UserException e) {
      throw e;
    } catch (RuntimeException e) {
      PrintWriter err = basics.err();
      err.println("error: unexpected " + e.getClass().getSimpleName() + ": " + e.getMessage());
      err.println(BUG_HINT);
      err.flush();
      return ExitCodes.USAGE;
    }
  }

  private int diagnose() {
    PrintWriter out = basics.out();
    PrintWriter err = basics.err();
    Instant at = now == null ? basics.clock().instant() : now;
    AnalyzerSettings settings = stallAfter.settings();

    Dump dump = selectUnsupported(new DumpReader(System.in).read(files));
    DumpSnapshots.Grouped grouped = DumpSnapshots.group(dump);
    List<String> errors = new ArrayList<>(dump.errors());
    errors.addAll(grouped.errors());

    List<RolloutSnapshot> selected =
        grouped.snapshots().stream()
            .filter(s -> namespace == null || namespace.equals(s.daemonSet().namespace()))
            .filter(s -> daemonSet == null || daemonSet.equals(s.daemonSet().name()))
            .sorted(
                Comparator.comparing((RolloutSnapshot s) -> s.daemonSet().namespace())
                    .thenComparing(s -> s.daemonSet().name()))
            .toList();
    if (selected.isEmpty()) {
      if (output == OutputFormat.json) {
        // Scripts parse stdout: still JSON, with nothing judged and what was not.
        out.print(JsonReport.render(report(at, List.of(), dump)));
      } else {
        InputSummary.unsupportedLine(dump).ifPresent(out::println);
      }
      out.flush();
      errors.forEach(e -> err.println("error: " + e));
      err.println("error: " + nothingSelected(grouped.snapshots(), dump));
      err.flush();
      return ExitCodes.USAGE;
    }
    warnAboutMissingKinds(dump, err);

    List<RolloutVerdict> verdicts = new ArrayList<>();
    boolean analysisFailed = false;
    for (RolloutSnapshot snapshot : selected) {
      try {
        verdicts.add(RolloutAnalyzer.analyze(snapshot, at, settings));
      } catch (RuntimeException e) {
        // A defect in the analysis of one DaemonSet must not hide the verdicts of the others.
        analysisFailed = true;
        errors.add(
            "DaemonSet "
                + snapshot.daemonSet().ref()
                + ": could not be analyzed: "
                + e.getClass().getSimpleName()
                + ": "
                + e.getMessage());
      }
    }
    if (output == OutputFormat.json) {
      out.print(JsonReport.render(report(at, verdicts, dump)));
    } else {
      out.print(TableReport.render(at, verdicts));
      InputSummary.unsupportedLine(dump).ifPresent(line -> out.println("\n" + line));
      InputSummary.line(dump).ifPresent(line -> out.println("\n" + line));
    }
    out.flush();
    errors.forEach(e -> err.println("error: " + e));
    if (analysisFailed) {
      err.println(BUG_HINT);
    }
    err.flush();
    if (!errors.isEmpty()) {
      return ExitCodes.USAGE;
    }
    return verdicts.stream().anyMatch(RolloutVerdict::stalled) ? ExitCodes.STALLED : ExitCodes.OK;
  }

  private static ObjectNode report(Instant at, List<RolloutVerdict> verdicts, Dump dump) {
    ObjectNode tree = JsonReport.tree(at, verdicts);
    tree.set("unsupported", InputSummary.unsupportedJson(dump));
    tree.set("input", InputSummary.json(dump));
    return tree;
  }

  /** The dump with only the unsupported objects that -n and DAEMONSET select. */
  private Dump selectUnsupported(Dump dump) {
    List<Dump.Unsupported> kept =
        dump.unsupported().stream()
            .filter(u -> namespace == null || namespace.equals(u.namespace()))
            .filter(u -> daemonSet == null || daemonSet.equals(u.name()))
            .toList();
    return dump.withUnsupported(kept);
  }

  private String nothingSelected(List<RolloutSnapshot> all, Dump dump) {
    if (all.isEmpty() && !dump.unsupported().isEmpty() && dump.daemonSets().isEmpty()) {
      return "no DaemonSet stallwatch judges in the input (" + InputSummary.counts(dump) + ")";
    }
    if (all.isEmpty()) {
      return dump.daemonSets().isEmpty()
          ? "no DaemonSet in the input (" + InputSummary.counts(dump) + ")"
          : "no DaemonSet in the input could be read";
    }
    String wanted =
        (daemonSet == null ? "no DaemonSet" : "no DaemonSet named \"" + daemonSet + "\"")
            + (namespace == null ? "" : " in namespace \"" + namespace + "\"");
    List<String> names = all.stream().map(s -> s.daemonSet().ref().toString()).sorted().toList();
    String known =
        names.size() <= 8
            ? String.join(", ", names)
            : String.join(", ", names.subList(0, 8)) + ", … (" + names.size() + " in all)";
    return wanted + " in the input; it holds: " + known;
  }

  /** Without nodes (or pods) the recomputed counts would be silently wrong: say so. */
  private static void warnAboutMissingKinds(Dump dump, PrintWriter err) {
    if (dump.nodesRead() == 0) {
      err.println(
          "warning: the input holds no Node objects, so nothing can be recounted and verdicts"
              + " follow .status (evidence StatusOnly); dump them too:"
              + " kubectl get daemonsets,pods,nodes,controllerrevisions,events -A -o json");
    } else if (dump.podsRead() == 0) {
      err.println(
          "warning: the input holds no Pod objects, so verdicts follow .status (evidence"
              + " Partial)");
    }
    if (dump.revisions().isEmpty()) {
      err.println(
          "warning: the input holds no ControllerRevision objects;"
              + " revisions are told apart by pod-template-generation only");
    }
  }
}
