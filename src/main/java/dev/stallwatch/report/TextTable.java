package dev.stallwatch.report;

import java.util.ArrayList;
import java.util.List;

/**
 * A left-aligned text table that fits a width: it first narrows the gaps between columns (kubectl's
 * three spaces, then two, then one), then shortens the columns marked shrinkable, in the order of
 * their shrink rank (the widest first among equals), with an ellipsis. The last column is not
 * padded.
 */
final class TextTable {

  static final String ELLIPSIS = "…";

  /**
   * Where a too-long cell loses characters: its end, its start (image references), or — for a
   * kubectl-qualified name {@code resource.group/NAME} — the end of its qualifier first, so that
   * {@code NAME} stays whole as long as it fits (a cell without {@code /} is cut at its end).
   */
  enum Cut {
    END,
    START,
    QUALIFIER
  }

  private record Column(String header, int minWidth, Cut cut, int rank) {}

  private final List<Column> columns = new ArrayList<>();
  private final List<List<String>> rows = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  /** A column that is never shortened. */
  TextTable column(String header) {
    columns.add(new Column(header, Integer.MAX_VALUE, Cut.END, Integer.MAX_VALUE));
    return this;
  }

  /**
   * A column that may be shortened down to {@code minWidth}; columns of a lower {@code rank} are
   * shortened first.
   */
  TextTable shrinkable(String header, int minWidth, Cut cut, int rank) {
    columns.add(new Column(header, minWidth, cut, rank));
    return this;
  }

  TextTable row(String... cells) {
    List<String> row = new ArrayList<>();
    for (String cell : cells) {
      row.add(cell == null || cell.isEmpty() ? "-" : cell.replaceAll("\\s+", " "));
    }
    rows.add(row);
    notes.add(null);
    return this;
  }

  /**
   * A free line printed under the last row (a message), indented by {@code indent} more than the
   * table and cut to the width.
   */
  TextTable note(String extraIndent, String line) {
    return note(extraIndent + line.strip());
  }

  private TextTable note(String line) {
    notes.set(notes.size() - 1, line);
    return this;
  }

  /** The table's lines, each prefixed with {@code indent} and at most {@code width} long. */
  List<String> render(String indent, int width) {
    int n = columns.size();
    int[] widths = new int[n];
    for (int c = 0; c < n; c++) {
      widths[c] = columns.get(c).header().length();
      for (List<String> row : rows) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    int available = width - indent.length();
    int gap = 3;
    while (gap > 1 && total(widths, gap) > available) {
      gap--;
    }
    shrink(widths, total(widths, gap) - available);
    List<String> lines = new ArrayList<>();
    lines.add(indent + line(headerCells(), widths, gap));
    for (int r = 0; r < rows.size(); r++) {
      lines.add(indent + line(rows.get(r), widths, gap));
      if (notes.get(r) != null) {
        String note = notes.get(r);
        int lead = note.length() - note.stripLeading().length();
        lines.add(
            cut(
                indent + note.substring(0, lead) + note.strip().replaceAll("\\s*\\R\\s*|\\t", " "),
                width,
                Cut.END));
      }
    }
    return lines;
  }

  private List<String> headerCells() {
    return columns.stream().map(Column::header).toList();
  }

  private void shrink(int[] widths, int excess) {
    while (excess > 0) {
      int widest = -1;
      for (int c = 0; c < widths.length; c++) {
        Column col = columns.get(c);
        if (widths[c] <= col.minWidth()) {
          continue;
        }
        if (widest < 0
            || col.rank() < columns.get(widest).rank()
            || (col.rank() == columns.get(widest).rank() && widths[c] > widths[widest])) {
          widest = c;
        }
      }
      if (widest < 0) {
        return; // nothing left to shorten; the caller's minimum widths win over the limit
      }
      widths[widest]--;
      excess--;
    }
  }

  private String line(List<String> cells, int[] widths, int gap) {
    StringBuilder out = new StringBuilder();
    for (int c = 0; c < cells.size(); c++) {
      String cell = cut(cells.get(c), widths[c], columns.get(c).cut());
      out.append(cell);
      if (c < cells.size() - 1) {
        out.append(" ".repeat(widths[c] - cell.length() + gap));
      }
    }
    return out.toString();
  }

  private static int total(int[] widths, int gap) {
    int sum = 0;
    for (int w : widths) {
      sum += w;
    }
    return sum + gap * (widths.length - 1);
  }

  /** {@code text} shortened to {@code width} characters, an ellipsis marking the cut. */
  static String cut(String text, int width, Cut where) {
    if (text.length() <= width) {
      return text;
    }
    if (width <= 1) {
      return ELLIPSIS.substring(0, width);
    }
    if (where == Cut.QUALIFIER) {
      int slash = text.lastIndexOf('/');
      String name = slash < 0 ? "" : text.substring(slash);
      if (slash <= 0) {
        return cut(text, width, Cut.END);
      }
      // At least one character of the qualifier, the ellipsis, then "/NAME"; else "…/NAM…".
      return width >= name.length() + 2
          ? text.substring(0, width - name.length() - 1) + ELLIPSIS + name
          : ELLIPSIS + cut(name, width - 1, Cut.END);
    }
    return where == Cut.END
        ? text.substring(0, width - 1) + ELLIPSIS
        : ELLIPSIS + text.substring(text.length() - width + 1);
  }
}
