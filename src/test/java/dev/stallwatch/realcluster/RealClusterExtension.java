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
 * Gives a test class the one shared {@link RealCluster} of its JVM (the IT tier runs in two forks:
 * one shared cluster each, in {@code target/realcluster} and {@code target/realcluster-fork2}, a
 * folder each fork locks for itself), started on first use and stopped when the run ends. A class
 * that finds it broken — the API server not answering, a node not Ready — gets a new one, and one
 * line says which class used it last. Without built binaries the class is skipped — or fails, when
 * {@code STALLWATCH_REQUIRE_REAL_CLUSTER=true} (CI), so a missing control plane cannot pass
 * silently. Its API server keeps an audit log of one ServiceAccount's requests ({@link AuditLog}).
 */
public final class RealClusterExtension implements BeforeAllCallback, ParameterResolver {
  /** Generic nodes the cluster starts with; scenarios add nodes of their own. */
  static final int BASE_NODES = 2;

  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(RealClusterExtension.class);

  /** The test class that used the shared cluster last: named when it leaves the cluster broken. */
  private static String lastUser = "none";

  @Override
  public void beforeAll(ExtensionContext context) {
    RealCluster shared = cluster(context);
    String why = shared.brokenBecause();
    if (why != null) {
      System.err.println(
          "realcluster: the shared cluster is broken ("
              + why
              + ") after "
              + lastUser
              + "; starting a new one for "
              + context.getDisplayName());
      context.getRoot().getStore(NS).remove(RealCluster.class, RealCluster.class).close();
      cluster(context);
    }
    lastUser = context.getRequiredTestClass().getSimpleName();
  }

  static RealCluster cluster(ExtensionContext context) {
    Path bin = binariesOrSkip();
    return context
        .getRoot()
        .getStore(NS)
        .getOrComputeIfAbsent(RealCluster.class, k -> start(bin), RealCluster.class);
  }

  /** Held for this JVM's life: the lock on the shared cluster's folder it took. */
  private static java.nio.channels.FileLock folderLock;

  /**
   * The shared cluster's folder: {@code target/realcluster} for the first IT fork that asks, {@code
   * target/realcluster-fork2} for the second, and so on — each fork takes the first folder whose
   * lock no other JVM holds, and keeps it until it exits.
   */
  static synchronized String sharedFolder() {
    if (lockedFolder != null) {
      return lockedFolder;
    }
    for (int n = 1; ; n++) {
      String folder = n == 1 ? "target/realcluster" : "target/realcluster-fork" + n;
      try {
        Files.createDirectories(Path.of("target"));
        var channel =
            java.nio.channels.FileChannel.open(
                Path.of(folder + ".lock"),
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.WRITE);
        var lock = channel.tryLock();
        if (lock != null) {
          folderLock = lock;
          lockedFolder = folder;
          return folder;
        }
        channel.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static String lockedFolder;

  /**
   * A cluster of the test class's own in {@code target/realcluster-NAME}, for what the shared one
   * cannot carry (a fault that breaks the control plane itself, an API-server flag every class
   * would feel, a hundred nodes of its own); {@code reason} says which, on one line of the run's
   * output. The caller stops it.
   */
  static RealCluster separate(String name, String reason) {
    return separate(name, reason, java.util.Map.of());
  }

  /**
   * As {@link #separate(String, String)}, with {@code cluster.sh}'s environment (e.g. more
   * API-server flags).
   */
  static RealCluster separate(String name, String reason, java.util.Map<String, String> env) {
    Path bin = binariesOrSkip();
    System.err.println("realcluster: " + name + " on a cluster of its own: " + reason);
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

  /**
   * The shared cluster, its API server auditing the one ServiceAccount {@link
   * LeastPrivilegeRealClusterIT} runs the operator as (no other user's requests are logged).
   */
  private static RealCluster start(Path bin) {
    try {
      Path dir = Files.createDirectories(Path.of(sharedFolder())).toAbsolutePath();
      Path policy = dir.resolve("audit-policy.yaml");
      Files.writeString(policy, AuditLog.policyFor(LeastPrivilegeRealClusterIT.USER));
      return RealCluster.start(
          dir, bin, BASE_NODES, 0, java.util.Map.of("STALLWATCH_AUDIT_POLICY", policy.toString()));
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
