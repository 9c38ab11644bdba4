package dev.stallwatch.main;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.cli.ExitCodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Each command's exit codes come from one table, in its help, its handlers and the CLI reference.
 */
class ExitCodesTableTest {

  @Test
  void everyTabledCommandOfBothRootsPrintsItsRowsInItsHelp() {
    for (CommandLine root : List.of(StallwatchCommand.commandLine(), ImageCommand.commandLine())) {
      for (String command : ExitCodes.TABLE.keySet()) {
        String help = root.getSubcommands().get(command).getUsageMessage();
        assertThat(help).as(command).contains(String.join("\n", ExitCodes.footer(command)));
        for (ExitCodes.Code c : ExitCodes.TABLE.get(command)) {
          assertThat(help).as(command).contains("  " + c.code() + "  ");
        }
      }
    }
  }

  @Test
  void theHelpReadsAsBeforeWithWrappedRows() {
    assertThat(ExitCodes.footer("diagnose"))
        .containsExactly(
            "",
            "Exit codes:",
            "  0  no DaemonSet rollout is Stalled",
            "  1  at least one rollout is Stalled",
            "  2  usage or input error: a file or object could not be read (the rest is still",
            "     reported), or no DaemonSet in the input matches -n / DAEMONSET; also any",
            "     internal error, out of memory included (with a hint) - never 1");
  }

  /** What the handlers return for bad input is a row of the command's table that says so. */
  @Test
  void theCodeForInvalidInputIsTheTablesUsageRow() {
    CommandLine root = StallwatchCommand.commandLine();
    for (String command : ExitCodes.TABLE.keySet()) {
      int invalid = root.getSubcommands().get(command).getCommandSpec().exitCodeOnInvalidInput();
      assertThat(ExitCodes.TABLE.get(command))
          .as(command)
          .anySatisfy(
              c -> {
                assertThat(c.code()).isEqualTo(invalid);
                assertThat(c.when()).contains("usage");
              });
    }
    assertThat(ExitCodes.TABLE.get("wait"))
        .anySatisfy(
            c -> {
              assertThat(c.code()).isEqualTo(ExitCodes.TIMEOUT);
              assertThat(c.when()).contains("--timeout");
            });
  }

  /** The CLI reference's exit-code table has a cell for exactly the codes of each command's row. */
  @Test
  void theReferenceTableGivesEachCommandsCodes() throws Exception {
    List<String> rows =
        Files.readAllLines(Path.of("docs/reference/cli.md")).stream()
            .filter(l -> l.startsWith("| `") && l.chars().filter(c -> c == '|').count() == 6)
            .toList();
    for (String command : ExitCodes.TABLE.keySet()) {
      String row =
          rows.stream()
              .filter(r -> r.startsWith("| `" + command + "` |"))
              .findFirst()
              .orElseThrow(
                  () ->
                      new AssertionError(
                          "no exit-code row in docs/reference/cli.md for " + command));
      String[] cells = row.split("\\|");
      java.util.Set<Integer> documented = new java.util.TreeSet<>();
      for (int code = 0; code <= 3; code++) {
        if (!cells[code + 2].isBlank() && !cells[code + 2].trim().equals("—")) {
          documented.add(code);
        }
      }
      assertThat(documented)
          .as(command)
          .containsExactlyInAnyOrderElementsOf(
              ExitCodes.TABLE.get(command).stream().map(ExitCodes.Code::code).toList());
    }
  }
}
