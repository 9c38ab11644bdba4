package dev.stallwatch.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The test tiers are named honestly: a class that starts a server (the embedded API server,
 * fabric8's mock server, an HTTP server) or a native tool (Helm through helm-java, promtool,
 * kubectl, any child process) is an {@code *IT} that failsafe runs, never a {@code *Test} in the
 * unit tier. Test helpers that start one (e.g. {@code TestApiServer}, {@code RenderedChart}) count
 * as starting it, transitively through other test helpers.
 */
class TestTiersTest {

  /** Types whose use means a server or a native process, by name prefix. */
  private static final List<String> STARTS_SOMETHING =
      List.of(
          "dev.stallwatch.embedded.EmbeddedApiServer",
          "dev.stallwatch.operator.HealthEndpoint",
          "io.fabric8.kubernetes.client.server.mock.",
          "io.fabric8.mockwebserver.",
          "okhttp3.mockwebserver.",
          "com.marcnuri.helm.",
          "com.sun.net.httpserver.",
          "java.net.ServerSocket",
          "java.lang.ProcessBuilder",
          "java.lang.Process",
          "java.lang.ProcessHandle");

  private static JavaClasses tests;

  @BeforeAll
  static void importClasses() {
    // Only the names of what test classes use matter: not resolving every fabric8 class they
    // reach from the class path keeps this a second instead of most of a minute.
    tests =
        ArchConfiguration.withThreadLocalScope(
            (ArchConfiguration config) -> {
              config.setResolveMissingDependenciesFromClassPath(false);
              return new ClassFileImporter().importPath(testClasses());
            });
  }

  /** The folder (or jar) the test classes were loaded from: target/test-classes. */
  private static Path testClasses() {
    try {
      return Path.of(
          TestTiersTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void noUnitTestStartsAServerOrANativeTool() {
    Set<String> helpers = helpersThatStartSomething();
    Map<String, Set<String>> offenders = new TreeMap<>();
    for (JavaClass c : tests) {
      if (!topLevel(c).getSimpleName().endsWith("Test")) {
        continue;
      }
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        String target = d.getTargetClass().getName();
        if (startsSomething(target) || helpers.contains(topLevel(d.getTargetClass()).getName())) {
          offenders
              .computeIfAbsent(topLevel(c).getName(), k -> new TreeSet<>())
              .add(topLevel(d.getTargetClass()).getName());
        }
      }
    }
    assertThat(offenders)
        .as(
            "*Test classes (the unit tier) that start a server or a native tool through these"
                + " types; rename them *IT so that failsafe runs them")
        .isEmpty();
  }

  @Test
  void theRuleSeesTheHelpersThatStartSomething() {
    // Guards the rule itself: were the names above stale, it would pass on anything.
    assertThat(helpersThatStartSomething())
        .contains(
            "dev.stallwatch.deploy.RenderedChart",
            "dev.stallwatch.testcluster.TestApiServer",
            "dev.stallwatch.sim.ControllerHarness",
            "dev.stallwatch.operator.SimulatedRun");
  }

  /** Test classes other than {@code *Test}/{@code *IT} that reach a server or a process. */
  private static Set<String> helpersThatStartSomething() {
    Set<String> found = new LinkedHashSet<>();
    boolean grew = true;
    while (grew) {
      grew = false;
      for (JavaClass c : tests) {
        String name = topLevel(c).getName();
        String simple = topLevel(c).getSimpleName();
        if (found.contains(name) || simple.endsWith("Test") || simple.endsWith("IT")) {
          continue;
        }
        boolean starts =
            c.getDirectDependenciesFromSelf().stream()
                .map(Dependency::getTargetClass)
                .anyMatch(
                    t -> startsSomething(t.getName()) || found.contains(topLevel(t).getName()));
        if (starts) {
          found.add(name);
          grew = true;
        }
      }
    }
    return found;
  }

  private static boolean startsSomething(String className) {
    return STARTS_SOMETHING.stream()
        .anyMatch(
            p ->
                p.endsWith(".")
                    ? className.startsWith(p)
                    : className.equals(p) || className.startsWith(p + "$"));
  }

  private static JavaClass topLevel(JavaClass c) {
    JavaClass top = c;
    while (top.getEnclosingClass().isPresent()) {
      top = top.getEnclosingClass().get();
    }
    return top;
  }
}
