package dev.stallwatch.report;

import dev.stallwatch.rollout.AdvancedStrategy;
import dev.stallwatch.rollout.Counts;
import dev.stallwatch.rollout.Durations;
import dev.stallwatch.rollout.Evidence;
import dev.stallwatch.rollout.NodeRow;
import dev.stallwatch.rollout.Phase;
import dev.stallwatch.rollout.RevisionSummary;
import dev.stallwatch.rollout.RolloutVerdict;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The human report: one kubectl-like line per DaemonSet (counts recomputed, plus PHASE and CAUSE),
 * then for every rollout that is not Complete — or whose {@code .status} disagrees with the
 * recomputed counts — the generation split node by node. An OpenKruise Advanced DaemonSet is named
 * {@code daemonset.apps.kruise.io/NAME}, as kubectl names it beside an {@code apps/v1} one. Every
 * line fits {@value #WIDTH} columns.
 */
public final class TableReport {

  /** The widest line the report prints. */
  public static final int WIDTH = 100;

  private static final String INDENT = "  ";

  /** The verdict's message gets at most this many lines; the JSON report has all of it. */
  private static final int MESSAGE_LINES = 3;

  private TableReport() {}

  /** The report as text, one line per {@code \n}, ending with a newline. */
  public static String render(Instant evaluatedAt, List<RolloutVerdict> verdicts) {
    return String.join("\n", lines(evaluatedAt, verdicts)) + "\n";
  }

  /** The report's lines. */
  public static List<String> lines(Instant evaluatedAt, List<RolloutVerdict> verdicts) {
    List<String> out = new ArrayList<>(summary(verdicts).render("", WIDTH));
    for (RolloutVerdict v : verdicts) {
      if (v.phase() != Phase.Complete || statusDiffers(v) || v.evidence() != Evidence.Full) {
        out.add("");
        out.addAll(details(evaluatedAt, v));
      }
    }
    return out;
  }

  /**
   * The DaemonSet's name as the summary's NAME column shows it: {@code NAME} for an {@code apps/v1}
   * DaemonSet, kubectl's {@code daemonset.apps.kruise.io/NAME} for an OpenKruise Advanced one, so
   * that the two kinds are told apart where both have the name.
   */
  public static String name(RolloutVerdict v) {
    return advanced(v)
        ? "daemonset." + AdvancedStrategy.GROUP + "/" + v.daemonSet().name()
        : v.daemonSet().name();
  }

  /**
   * The DaemonSet as a detail section names it: {@code NAMESPACE/NAME}, with {@code
   * (daemonset.apps.kruise.io)} after an Advanced DaemonSet's.
   */
  public static String title(RolloutVerdict v) {
    return v.daemonSet() + (advanced(v) ? " (daemonset." + AdvancedStrategy.GROUP + ")" : "");
  }

  private static boolean advanced(RolloutVerdict v) {
    return AdvancedStrategy.isAdvanced(v.apiVersion());
  }

  private static TextTable summary(List<RolloutVerdict> verdicts) {
    TextTable table =
        new TextTable()
            // The name identifies the DaemonSet; its namespace is repeated in the details below.
            .shrinkable("NAMESPACE", 9, TextTable.Cut.END, 1)
            // An Advanced DaemonSet's name is kubectl's daemonset.apps.kruise.io/NAME; when the
            // column is cut, its qualifier loses characters before its name does.
            .shrinkable("NAME", 12, TextTable.Cut.QUALIFIER, 2)
            .column("DESIRED")
            .column("CURRENT")
            .column("READY")
            .column("UP-TO-DATE")
            .column("AVAILABLE")
            .column("PHASE")
            .column("CAUSE");
    for (RolloutVerdict v : verdicts) {
      // With no node to recount, .status's numbers are all there is; a row of zeros would lie.
      Counts c = statusOnly(v) ? v.reported() : v.counts();
      table.row(
          v.daemonSet().namespace(),
          name(v),
          Integer.toString(c.desired()),
          Integer.toString(c.current()),
          Integer.toString(c.ready()),
          Integer.toString(c.upToDate()),
          Integer.toString(c.available()),
          v.phase().name(),
          v.cause() == null ? "-" : v.cause().name());
    }
    return table;
  }

  private static List<String> details(Instant now, RolloutVerdict v) {
    List<String> out = new ArrayList<>();
    String head = title(v) + ": " + v.phase().name();
    if (v.cause() != null) {
      head += " (" + v.cause().name() + ")";
    }
    out.add(TextTable.cut(head, WIDTH, TextTable.Cut.END));
    if (v.stalledSince() != null) {
      out.add(
          TextTable.cut(
              INDENT
                  + "since "
                  + v.stalledSince()
                  + " ("
                  + age(now, v.stalledSince())
                  + " ago) on "
                  + String.join(", ", v.stalledNodes()),
              WIDTH,
              TextTable.Cut.END));
    }
    if (v.message() != null && !v.message().isBlank()) {
      out.addAll(wrap(v.message(), INDENT, WIDTH, MESSAGE_LINES));
    }
    if (v.suspect() != null) {
      out.addAll(
          wrap(
              "rollback would help: "
                  + v.suspect().rollbackHelps()
                  + ", because "
                  + v.suspectReason(),
              INDENT,
              WIDTH,
              MESSAGE_LINES));
    }
    if (v.evidence() != Evidence.Full) {
      out.addAll(
          wrap(
              "evidence: " + v.evidence() + " — " + String.join("; ", v.missing()),
              INDENT,
              WIDTH,
              MESSAGE_LINES));
    }
    if (v.phase() == dev.stallwatch.rollout.Phase.Progressing) {
      out.add(TextTable.cut(INDENT + "pace: " + v.pace().describe(), WIDTH, TextTable.Cut.END));
    }
    out.add(revisionLine("old", v.oldRevision()));
    out.add(revisionLine("new", v.newRevision()));
    if (v.newRevision() != null && v.newRevision().revision() == null) {
      out.add(
          INDENT
              + "(no ControllerRevision in the input: revisions told apart by the pods' labels)");
    }
    out.add(
        TextTable.cut(
            INDENT
                + "budget: maxUnavailable "
                + v.maxUnavailable()
                + ", maxSurge "
                + v.maxSurge()
                + generationNote(v),
            WIDTH,
            TextTable.Cut.END));
    for (String status : statusLines(v)) {
      out.add(TextTable.cut(status, WIDTH, TextTable.Cut.END));
    }
    if (!v.nodes().isEmpty()) {
      out.add("");
      out.addAll(nodeTable(now, v).render(INDENT, WIDTH));
    } else if (v.evidence() == Evidence.StatusOnly) {
      out.add(INDENT + "no node and no pod of this DaemonSet in the input");
    } else {
      out.add(INDENT + "no node should run this DaemonSet and none holds one of its pods");
    }
    return out;
  }

  private static TextTable nodeTable(Instant now, RolloutVerdict v) {
    TextTable table =
        new TextTable()
            .shrinkable("NODE", 16, TextTable.Cut.END, 3)
            .column("REVISION")
            .shrinkable("IMAGE", 16, TextTable.Cut.START, 1)
            .shrinkable("STATE", 12, TextTable.Cut.END, 2)
            .column("STANDING")
            .column("CAUSE")
            .column("SINCE");
    for (NodeRow row : v.nodes()) {
      table.row(
          row.node(),
          row.revision().label(),
          String.join(",", row.images()),
          row.state(),
          standing(row.standing()),
          row.cause() == null ? "-" : row.cause().name(),
          row.since() == null ? "-" : age(now, row.since()));
      String why = reasonAndMessage(row);
      if (row.cause() != null && (why != null || row.pod() != null)) {
        // kubectl's pod/NAME form, so the next step is one copy away: kubectl describe pod/…
        String pod = row.pod() == null ? "" : "pod/" + row.pod() + "  ";
        table.note(INDENT, pod + (why == null ? "" : why));
      }
    }
    return table;
  }

  /** {@code STUCK} and {@code EXCLUDED} shout: those are the nodes to look at. */
  static String standing(NodeRow.Standing s) {
    return switch (s) {
      case STUCK, EXCLUDED -> s.name();
      case NOT_DESIRED -> "-";
      default -> s.name().toLowerCase(Locale.ROOT);
    };
  }

  private static String reasonAndMessage(NodeRow row) {
    boolean hasReason = row.reason() != null && !row.reason().isBlank();
    boolean hasMessage = row.message() != null && !row.message().isBlank();
    if (!hasReason && !hasMessage) {
      return null;
    }
    if (hasReason && hasMessage) {
      return row.reason() + ": " + row.message();
    }
    return hasReason ? row.reason() : row.message();
  }

  private static String revisionLine(String which, RevisionSummary r) {
    String start = INDENT + which + " revision  ";
    if (r == null) {
      return start + "-";
    }
    // Without its ControllerRevision, the pods' labels name the revision: hash and generation.
    String number =
        r.revision() != null
            ? " #" + r.revision()
            : r.templateGeneration() != null ? " generation " + r.templateGeneration() : "";
    String hash = r.hash().isEmpty() && number.isEmpty() ? "unknown" : r.hash();
    start += (hash + number).strip();
    String images = r.images().isEmpty() ? "-" : String.join(", ", r.images());
    int room = Math.max(10, WIDTH - start.length() - 2);
    return start + "  " + TextTable.cut(images, room, TextTable.Cut.START);
  }

  private static String generationNote(RolloutVerdict v) {
    Long observed = v.observedGeneration();
    if (observed == null) {
      return "; the controller has not observed generation " + v.generation() + " yet";
    }
    if (observed < v.generation()) {
      return "; observedGeneration " + observed + " < generation " + v.generation();
    }
    return "";
  }

  static boolean statusDiffers(RolloutVerdict v) {
    return v.reported() != null && !v.reported().equals(v.counts());
  }

  private static boolean statusOnly(RolloutVerdict v) {
    return v.evidence() == Evidence.StatusOnly && v.reported() != null;
  }

  /** What {@code .status} says, with the recomputed value of each number it gets wrong. */
  private static List<String> statusLines(RolloutVerdict v) {
    if (v.reported() == null) {
      return List.of(INDENT + ".status is absent: the DaemonSet controller has not reported yet");
    }
    if (!statusDiffers(v)) {
      return List.of();
    }
    if (statusOnly(v)) {
      Map<String, int[]> reported = numbers(v.reported(), v.reported());
      StringBuilder says = new StringBuilder(INDENT + ".status says");
      reported.forEach((name, pair) -> says.append(' ').append(name).append(' ').append(pair[0]));
      return List.of(says.append(" (not recounted)").toString());
    }
    Map<String, int[]> numbers = numbers(v.reported(), v.counts());
    StringBuilder says = new StringBuilder(INDENT + ".status says");
    List<String> fixes = new ArrayList<>();
    numbers.forEach(
        (name, pair) -> {
          says.append(' ').append(name).append(' ').append(pair[0]);
          if (pair[0] != pair[1]) {
            fixes.add(name + " " + pair[1]);
          }
        });
    return List.of(says.toString(), INDENT + "recomputed differs: " + String.join(" ", fixes));
  }

  private static Map<String, int[]> numbers(Counts reported, Counts recomputed) {
    Map<String, int[]> m = new LinkedHashMap<>();
    m.put("DESIRED", new int[] {reported.desired(), recomputed.desired()});
    m.put("CURRENT", new int[] {reported.current(), recomputed.current()});
    m.put("READY", new int[] {reported.ready(), recomputed.ready()});
    m.put("UP-TO-DATE", new int[] {reported.upToDate(), recomputed.upToDate()});
    m.put("AVAILABLE", new int[] {reported.available(), recomputed.available()});
    if (reported.unavailable() != recomputed.unavailable()) {
      m.put("UNAVAILABLE", new int[] {reported.unavailable(), recomputed.unavailable()});
    }
    if (reported.misscheduled() != recomputed.misscheduled()) {
      m.put("MISSCHEDULED", new int[] {reported.misscheduled(), recomputed.misscheduled()});
    }
    return m;
  }

  /**
   * Words of {@code text} on lines of at most {@code width}, each starting with {@code indent}, at
   * most {@code maxLines} of them (an ellipsis marks the cut).
   */
  static List<String> wrap(String text, String indent, int width, int maxLines) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder(indent);
    for (String word : text.trim().split("\\s+")) {
      if (line.length() > indent.length() && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line = new StringBuilder(indent);
      }
      if (line.length() > indent.length()) {
        line.append(' ');
      }
      line.append(TextTable.cut(word, width - indent.length(), TextTable.Cut.END));
    }
    if (line.length() > indent.length()) {
      lines.add(line.toString());
    }
    if (lines.size() > maxLines) {
      List<String> kept = new ArrayList<>(lines.subList(0, maxLines));
      String last = kept.get(maxLines - 1);
      kept.set(
          maxLines - 1,
          last.length() < width
              ? last + TextTable.ELLIPSIS
              : TextTable.cut(last, width, TextTable.Cut.END));
      return kept;
    }
    return lines;
  }

  /** A kubectl-style age ({@link Durations#age}); a time ahead of {@code now} is {@code 0s}. */
  static String age(Instant now, Instant since) {
    Duration d = Duration.between(since, now);
    return Durations.age(d.isNegative() ? Duration.ZERO : d);
  }
}
