package dev.stallwatch.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/architecture.md} names only what exists: every package of the code is in it, and
 * every class it names ({@code `operator.RolloutDecider`}, or a bare {@code RolloutDecider} in the
 * observe → decide → act picture) is a production class.
 */
class ArchitectureDocTest {
  private static final Path DOC = Path.of("docs/architecture.md");

  private static final Set<String> PACKAGES =
      ProductionClasses.get().stream()
          .map(JavaClass::getPackageName)
          .filter(p -> p.startsWith("dev.stallwatch."))
          .map(p -> p.substring("dev.stallwatch.".length()).split("\\.")[0])
          .collect(Collectors.toCollection(TreeSet::new));

  private static final Set<String> CLASSES =
      ProductionClasses.get().stream()
          .filter(c -> !c.isNestedClass())
          .map(c -> c.getPackageName().replace("dev.stallwatch.", "") + "." + c.getSimpleName())
          .collect(Collectors.toCollection(TreeSet::new));

  private static final Set<String> SIMPLE_NAMES =
      CLASSES.stream()
          .map(c -> c.substring(c.lastIndexOf('.') + 1))
          .collect(Collectors.toCollection(TreeSet::new));

  @Test
  void everyPackageIsInTheDoc() throws IOException {
    String doc = Files.readString(DOC);
    assertThat(PACKAGES).hasSizeGreaterThan(10);
    assertThat(PACKAGES).allSatisfy(p -> assertThat(doc).as(p).containsPattern("\\b" + p + "\\b"));
  }

  @Test
  void everyQualifiedClassTheDocNamesExists() throws IOException {
    Matcher m =
        Pattern.compile("`([a-z]+(?:\\.[a-z]+)*)\\.([A-Z][A-Za-z]+)")
            .matcher(Files.readString(DOC));
    Set<String> named = new TreeSet<>();
    while (m.find()) {
      if (PACKAGES.contains(m.group(1).split("\\.")[0])) { // java.time.Clock and the like: not ours
        named.add(m.group(1) + "." + m.group(2));
      }
    }
    assertThat(named).hasSizeGreaterThan(15);
    assertThat(named).allSatisfy(c -> assertThat(CLASSES).as(c).contains(c));
  }

  @Test
  void everyClassOfTheOperatorsPictureExists() throws IOException {
    String doc = Files.readString(DOC);
    int start = doc.indexOf("## The operator: observe");
    String picture = doc.substring(doc.indexOf("```", start), doc.indexOf("```", start) + 1500);
    picture = picture.substring(0, picture.indexOf("```", 3));
    Matcher m = Pattern.compile("\\b([A-Z][a-z]+(?:[A-Z][a-z]+)+)\\b").matcher(picture);
    Set<String> named = new TreeSet<>();
    while (m.find()) {
      named.add(m.group(1));
    }
    named.removeAll(Set.of("DaemonSet", "ControllerRevisions", "RolloutStalls", "FailedCreate"));
    named.removeIf(n -> n.endsWith("Test")); // the tests that hold the picture
    assertThat(named).contains("RolloutDecider", "EffectRunner", "RolloutState");
    assertThat(named).allSatisfy(c -> assertThat(SIMPLE_NAMES).as(c).contains(c));
  }
}
