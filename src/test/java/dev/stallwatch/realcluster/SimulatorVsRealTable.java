package dev.stallwatch.realcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The table of {@code docs/real-cluster.md} between {@value #BEGIN} and {@value #END}: per scenario
 * one line for the simulator and one for the real controllers, and what the comparison found.
 */
final class SimulatorVsRealTable {

  static final String BEGIN = "<!-- simulator-vs-real:begin -->";
  static final String END = "<!-- simulator-vs-real:end -->";

  /** Marks a scenario whose real end state depends on the real controller's random node order. */
  static final String ORDER_MARK = "‡";

  /** What the comparison of one scenario found. */
  enum Match {
    SAME("✓"),
    SAME_IN_REAL_ORDER("✓ " + ORDER_MARK),
    DIFFERENT("✗"),
    NOT_PLAYED("–");

    final String mark;

    Match(String mark) {
      this.mark = mark;
    }
  }

  /**
   * One scenario.
   *
   * @param real null when not played
   * @param detail shown in the match cell (e.g. the real controller's order)
   * @param notes how the real play departs from the story, or why it was not played
   */
  record Row(
      String scenario,
      PlayOutcome sim,
      PlayOutcome real,
      Match match,
      String detail,
      List<String> notes) {}

  private SimulatorVsRealTable() {}

  static String render(List<Row> rows, String versions) {
    StringBuilder sb = new StringBuilder();
    sb.append(BEGIN).append('\n');
    sb.append("<!-- written by SimulatorVsRealClusterIT; edit the test, not this table -->\n\n");
    sb.append("Real controllers: ").append(versions).append(".\n\n");
    sb.append(
        "| scenario | played by | phase | cause | stalled nodes | split | status | match |\n");
    sb.append("|---|---|---|---|---|---|---|---|\n");
    List<String> notes = new ArrayList<>();
    for (Row row : rows) {
      sb.append(line("`" + row.scenario() + "`", "simulator", row.sim(), ""));
      if (row.real() == null) {
        sb.append("| | real controllers | not played: ")
            .append(String.join("; ", row.notes()))
            .append(" | | | | | ")
            .append(row.match().mark)
            .append(" |\n");
        continue;
      }
      String match = row.match().mark + (row.detail().isEmpty() ? "" : " " + row.detail());
      sb.append(line("", "real controllers", row.real(), match));
      row.notes().forEach(n -> notes.add("`" + row.scenario() + "`: " + n + "."));
    }
    sb.append('\n');
    sb.append(
        "*status*: DESIRED/CURRENT/READY/UP-TO-DATE/AVAILABLE/MISSCHEDULED as each controller"
            + " wrote them to `.status`. *split*: the revision each node runs, by the analyzer."
            + " Real node names are the scenario's, renamed within nodes the scenario defines"
            + " alike (upstream picks which of them to update first at random). "
            + ORDER_MARK
            + " the real controller's pick order changed the end state; the simulator, replaying"
            + " that order, ends in the same state (these rows differ from run to run).\n");
    for (String note : notes) {
      sb.append("\n- ").append(note);
    }
    if (!notes.isEmpty()) {
      sb.append('\n');
    }
    sb.append(END).append('\n');
    return sb.toString();
  }

  private static String line(String scenario, String side, PlayOutcome o, String match) {
    return "| "
        + String.join(
            " | ",
            scenario,
            side,
            o.phase().name(),
            o.causeText(),
            o.stalledText(),
            o.splitText(),
            o.status().toString(),
            match)
        + " |\n";
  }

  /** The section as committed in {@code doc}, or "" when the file or the markers are missing. */
  static String committed(Path doc) {
    if (!Files.isRegularFile(doc)) {
      return "";
    }
    String text = read(doc);
    int begin = text.indexOf(BEGIN);
    int end = text.indexOf(END);
    if (begin < 0 || end < begin) {
      return "";
    }
    return text.substring(begin, end + END.length()) + "\n";
  }

  /** Writes {@code section} between the markers of {@code doc} (appended when they are missing). */
  static void write(Path doc, String section) {
    String text = Files.isRegularFile(doc) ? read(doc) : "# A real control plane\n";
    int begin = text.indexOf(BEGIN);
    int end = text.indexOf(END);
    String updated;
    if (begin < 0 || end < begin) {
      updated = text + (text.endsWith("\n") ? "\n" : "\n\n") + section;
    } else {
      String after = text.substring(end + END.length());
      updated =
          text.substring(0, begin)
              + section
              + (after.startsWith("\n") ? after.substring(1) : after);
    }
    try {
      Files.writeString(doc, updated, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Where {@code committed} and {@code produced} differ, one line each; rows marked {@value
   * #ORDER_MARK} on either side are left out, since they vary from run to run.
   */
  static List<String> differences(String committed, String produced) {
    Map<String, String> before = blocks(committed);
    Map<String, String> after = blocks(produced);
    List<String> out = new ArrayList<>();
    for (String key : union(before, after)) {
      String b = before.getOrDefault(key, "(missing)");
      String a = after.getOrDefault(key, "(missing)");
      if (b.equals(a)
          || (key.startsWith("`") && (b.contains(ORDER_MARK) || a.contains(ORDER_MARK)))) {
        continue;
      }
      out.add(key + ":\n  committed: " + b + "\n  produced:  " + a);
    }
    return out;
  }

  /** The scenario blocks (keyed by scenario) and every other line (keyed by its number). */
  private static Map<String, String> blocks(String section) {
    Map<String, String> blocks = new LinkedHashMap<>();
    String[] lines = section.split("\n", -1);
    int other = 0;
    for (int i = 0; i < lines.length; i++) {
      String l = lines[i];
      if (l.startsWith("| `")) {
        String key = l.substring(2, l.indexOf('`', 3) + 1);
        StringBuilder block = new StringBuilder(l);
        while (i + 1 < lines.length && lines[i + 1].matches("^\\|\\s*\\|.*")) {
          block.append(" / ").append(lines[++i]);
        }
        blocks.put(key, block.toString());
      } else {
        blocks.put("line " + other++, l);
      }
    }
    return blocks;
  }

  private static List<String> union(Map<String, String> a, Map<String, String> b) {
    List<String> keys = new ArrayList<>(a.keySet());
    b.keySet().stream().filter(k -> !a.containsKey(k)).forEach(keys::add);
    return keys;
  }

  private static String read(Path doc) {
    try {
      return Files.readString(doc, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
