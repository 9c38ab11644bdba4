package dev.stallwatch.realcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes one row per fault into the table of {@code docs/reliability.md}, between its markers: a
 * row whose fault cell is already there is replaced, a new one appended, so running one fault class
 * refreshes only its own rows.
 */
final class ReliabilityReport {
  static final Path DOC = RealCluster.PROJECT.resolve("docs/reliability.md");
  static final String BEGIN = "<!-- fault-table:begin (written by the *FaultIT tests) -->";
  static final String END = "<!-- fault-table:end -->";
  static final String HEADER =
      "| fault | what happened | recovery | stalls lost / duplicated |\n|---|---|---|---|";

  private ReliabilityReport() {}

  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  static final String HOSTILE_BEGIN =
      "<!-- hostile-table:begin (written by HostileObjectFaultIT) -->";
  static final String HOSTILE_END = "<!-- hostile-table:end -->";

  /** Rewrites the hostile-object table whole: object → what the API server and operator did. */
  static void hostile(java.util.Map<String, String> outcome) {
    StringBuilder table = new StringBuilder("| object | what happened |\n|---|---|");
    outcome.forEach((k, v) -> table.append("\n| ").append(k).append(" | ").append(v).append(" |"));
    rewrite(
        doc -> {
          int b = doc.indexOf(HOSTILE_BEGIN);
          int e = doc.indexOf(HOSTILE_END);
          if (b < 0 || e < b) {
            throw new IllegalStateException(DOC + " lacks the markers " + HOSTILE_BEGIN);
          }
          return doc.substring(0, b + HOSTILE_BEGIN.length())
              + "\n"
              + table
              + "\n"
              + doc.substring(e);
        });
  }

  /**
   * Rewrites {@link #DOC} by {@code change}, holding a file lock: the IT forks run fault classes at
   * the same time, and a row one of them writes must not be lost to the other's rewrite.
   */
  private static synchronized void rewrite(java.util.function.UnaryOperator<String> change) {
    Path lock = RealCluster.PROJECT.resolve("target/reliability-report.lock");
    try (var channel =
            java.nio.channels.FileChannel.open(
                lock,
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.WRITE);
        var held = channel.lock()) {
      Files.writeString(
          DOC, change.apply(Files.readString(DOC, StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  static void row(String fault, String happened, String recovery, String lostDup) {
    String line = "| " + fault + " | " + happened + " | " + recovery + " | " + lostDup + " |";
    rewrite(
        doc -> {
          int b = doc.indexOf(BEGIN);
          int e = doc.indexOf(END);
          if (b < 0 || e < b) {
            throw new IllegalStateException(DOC + " lacks the markers " + BEGIN + " … " + END);
          }
          List<String> rows = new ArrayList<>();
          for (String l : doc.substring(b + BEGIN.length(), e).strip().split("\n")) {
            if (l.startsWith("| ") && !l.startsWith("| fault |")) {
              rows.add(l);
            }
          }
          String key = "| " + fault + " |";
          int at = -1;
          for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).startsWith(key)) {
              at = i;
            }
          }
          if (at >= 0) {
            rows.set(at, line);
          } else {
            rows.add(line);
          }
          String table = HEADER + "\n" + String.join("\n", rows);
          return doc.substring(0, b + BEGIN.length()) + "\n" + table + "\n" + doc.substring(e);
        });
  }
}
