package dev.stallwatch.main;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RootCommandsTest {

  @Test
  void theImageOffersTheOperatorAndTheClusterCommandsButNotTheDemo() {
    assertThat(ImageCommand.commandLine().getSubcommands().keySet())
        .containsExactly("help", "diagnose", "status", "wait", "undo", "operator");
  }

  @Test
  void theCliJarOffersEverythingTheImageDoesAndTheDemo() {
    List<String> expected = new ArrayList<>(ImageCommand.commandLine().getSubcommands().keySet());
    expected.add("demo");
    assertThat(StallwatchCommand.commandLine().getSubcommands().keySet())
        .containsExactlyElementsOf(expected);
  }

  @Test
  void bothRootsShareTheExitCodesOfEveryFace() {
    assertThat(ImageCommand.commandLine().execute("no-such-command")).isEqualTo(2);
    assertThat(StallwatchCommand.commandLine().execute("no-such-command")).isEqualTo(2);
  }
}
