package dev.stallwatch.cli;

import dev.stallwatch.rollback.DaemonSetApi;
import dev.stallwatch.rollback.RevisionRestorer;
import dev.stallwatch.rollback.RollbackRefusedException;
import dev.stallwatch.rollback.RollbackResult;
import dev.stallwatch.rollback.RollbackTarget;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code stallwatch undo}: what {@code kubectl rollout undo} does for a DaemonSet — restore the pod
 * template of the previous (or the named) ControllerRevision — on an {@code apps/v1} DaemonSet or
 * an OpenKruise Advanced DaemonSet.
 */
@Command(
    name = "undo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    usageHelpWidth = 100,
    description = {
      "Rolls a DaemonSet back to the pod template of its previous ControllerRevision (or of",
      "--to-revision), like 'kubectl rollout undo', so every node converges on one spec."
    }
    // footer: the exit codes, from ExitCodes.TABLE (set by ExitCodes.configure)
    )
public final class UndoCommand implements Callable<Integer> {

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
      names = "--to-revision",
      paramLabel = "N",
      description = "Roll back to the ControllerRevision with .revision N (default: the previous).")
  Long toRevision;

  @Option(names = "--dry-run", description = "Print what would change; change nothing.")
  boolean dryRun;

  @Override
  public Integer call() {
    if (toRevision != null && toRevision <= 0) {
      throw new picocli.CommandLine.ParameterException(
          basics.commandLine(), "--to-revision must be 1 or more, got " + toRevision);
    }
    RollbackTarget target =
        toRevision == null ? RollbackTarget.previous() : RollbackTarget.revision(toRevision);
    String namespace = cluster.namespace();
    DaemonSetApi[] api = {daemonSet.api()};
    RollbackResult result;
    try {
      result =
          cluster.withClient(
              client -> {
                // A bare NAME is whichever kind exists; which one decides what is patched.
                LiveRollouts live = new LiveRollouts(client);
                api[0] =
                    live.find(namespace, daemonSet)
                        .map(DaemonSetApi::of)
                        .orElseThrow(
                            () ->
                                new ExitCodes.UserException(
                                    live.notFound(daemonSet, "in namespace " + namespace)));
                return new RevisionRestorer(client)
                    .rollback(
                        api[0],
                        namespace,
                        daemonSet.name(),
                        target,
                        dryRun,
                        "stallwatch undo",
                        basics.clock().instant());
              });
    } catch (RollbackRefusedException e) {
      throw new ExitCodes.UserException(e.getMessage(), e);
    }
    print(result, api[0].qualified(daemonSet.name()), basics.out());
    return ExitCodes.OK;
  }

  private void print(RollbackResult r, String ds, PrintWriter out) {
    switch (r.outcome()) {
      case ALREADY_MATCHES ->
          out.println(ds + " skipped rollback (current template already matches " + r.to() + ")");
      case WOULD_ROLL_BACK -> {
        out.println(ds + " rolled back (dry run)");
        out.println("  from: " + (r.from() == null ? "the current template" : r.from()));
        out.println("  to:   " + r.to());
        imageChanges(r.fromImages(), r.toImages()).forEach(line -> out.println("  " + line));
      }
      case ROLLED_BACK -> {
        out.println(ds + " rolled back");
        out.println(
            "  "
                + (r.from() == null ? "current template" : r.from())
                + " -> "
                + r.to()
                + ": "
                + String.join(", ", r.toImages()));
      }
    }
    out.flush();
  }

  /** {@code image: old -> new} per container position, or a note that images stay. */
  static List<String> imageChanges(List<String> from, List<String> to) {
    java.util.ArrayList<String> lines = new java.util.ArrayList<>();
    for (int i = 0; i < Math.max(from.size(), to.size()); i++) {
      String before = i < from.size() ? from.get(i) : "(none)";
      String after = i < to.size() ? to.get(i) : "(none)";
      if (!before.equals(after)) {
        lines.add("image: " + before + " -> " + after);
      }
    }
    if (lines.isEmpty()) {
      lines.add("images unchanged: " + String.join(", ", to) + " (other template fields differ)");
    }
    return lines;
  }
}
