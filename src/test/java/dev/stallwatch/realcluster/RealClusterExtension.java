package dev.stallwatch.realcluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test class the one {@link RealCluster} of this test run, started on first use and stopped
 * when the run ends. Without built binaries the class is skipped — or fails, when {@code
 * STALLWATCH_REQUIRE_REAL_CLUSTER=true} (CI), so a missing control plane cannot pass silently.
 */
public final class RealClusterExtension implements BeforeAllCallback, ParameterResolver {
  /** Generic nodes the cluster starts with; scenarios add nodes of their own. */
  static final int BASE_NODES = 2;

  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(RealClusterExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster(context);
  }

  static RealCluster cluster(ExtensionContext context) {
    Path bin = binariesOrSkip();
    return context
        .getRoot()
        .getStore(NS)
        .getOrComputeIfAbsent(RealCluster.class, k -> start(bin), RealCluster.class);
  }

  /**
   * A cluster of the test class's own in {@code target/realcluster-NAME}, for faults that break the
   * control plane itself (the shared one stays whole for the other tests); the caller stops it.
   */
  static RealCluster separate(String name) {
    return separate(name, java.util.Map.of());
  }

  /**
   * As {@link #separate(String)}, with {@code cluster.sh}'s environment (e.g. more API-server
   * flags).
   */
  static RealCluster separate(String name, java.util.Map<String, String> env) {
    Path bin = binariesOrSkip();
    try {
      Path dir = Files.createDirectories(Path.of("target/realcluster-" + name)).toAbsolutePath();
      return RealCluster.start(dir, bin, 0, 0, env);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path binariesOrSkip() {
    Path bin = RealCluster.binaries();
    if (bin == null) {
      String why =
          "the real control plane is not built: run src/test/realcluster/build.sh"
              + " (Go 1.26 and the Go module proxy needed)";
      if (Boolean.parseBoolean(System.getenv(RealCluster.REQUIRE))) {
        throw new IllegalStateException(why + "; " + RealCluster.REQUIRE + "=true");
      }
      Assumptions.abort(why);
    }
    return bin;
  }

  private static RealCluster start(Path bin) {
    try {
      Path dir = Files.createDirectories(Path.of("target/realcluster")).toAbsolutePath();
      return RealCluster.start(dir, bin, BASE_NODES, 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == RealCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return cluster(context);
  }
}
