package dev.stallwatch.realcluster;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A real control plane on loopback — etcd, kube-apiserver, kube-controller-manager, kube-scheduler
 * and kwok — started by {@code src/test/realcluster/cluster.sh} with this JVM as its owner: the
 * script's supervisor stops every process it started when {@link #close()} runs, and also when this
 * JVM dies without running it.
 */
public final class RealCluster
    implements AutoCloseable,
        org.junit.jupiter.api.extension.ExtensionContext.Store.CloseableResource {
  static final Path PROJECT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
  static final Path SCRIPTS = PROJECT.resolve("src/test/realcluster");

  /** Set to {@code true} (CI) to fail instead of skipping when the control plane is not built. */
  static final String REQUIRE = "STALLWATCH_REQUIRE_REAL_CLUSTER";

  private final Path dir;
  private final Path bin;
  private final KubernetesClient admin;

  private RealCluster(Path dir, Path bin) {
    this.dir = dir;
    this.bin = bin;
    this.admin =
        new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(read(kubeconfig()))).build();
  }

  /**
   * The folder of the built binaries: {@code STALLWATCH_REALCLUSTER_BIN}, else the build script's
   * cache folder for the pinned versions; null when they are not all there.
   */
  static Path binaries() {
    String given = System.getenv("STALLWATCH_REALCLUSTER_BIN");
    Path bin;
    if (given != null && !given.isBlank()) {
      bin = Path.of(given);
    } else {
      ToolBuilds.await("build.sh");
      bin =
          cached(
                  "k8s-%s_etcd-%s_kwok-%s"
                      .formatted(
                          pinned("KUBERNETES_VERSION"),
                          pinned("ETCD_VERSION"),
                          pinned("KWOK_VERSION")))
              .resolve("bin");
    }
    for (String b :
        List.of("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl")) {
      if (!Files.isExecutable(bin.resolve(b))) {
        return null;
      }
    }
    return Files.isExecutable(bin.resolve("kwok")) ? bin : null;
  }

  /** A version pinned in {@code versions.env}. */
  static String pinned(String key) {
    Properties versions = new Properties();
    try (var in = Files.newBufferedReader(SCRIPTS.resolve("versions.env"))) {
      versions.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String version = versions.getProperty(key);
    if (version == null) {
      throw new IllegalStateException(key + " is not pinned in versions.env");
    }
    return version;
  }

  /**
   * {@code folder} in the build scripts' cache: {@code STALLWATCH_REALCLUSTER_CACHE}, else {@code
   * ~/.cache/stallwatch/realcluster}.
   */
  static Path cached(String folder) {
    String cache = System.getenv("STALLWATCH_REALCLUSTER_CACHE");
    Path root =
        cache != null && !cache.isBlank()
            ? Path.of(cache)
            : Path.of(System.getProperty("user.home"), ".cache/stallwatch/realcluster");
    return root.resolve(folder);
  }

  /**
   * Runs the build script {@code script} of {@link #SCRIPTS} (a tool built from Go modules, cached
   * by version: a second run only checks it) and returns the path it prints on its last line.
   */
  static Path builtBy(String script, String... args) {
    ToolBuilds.await(script);
    List<String> command = new ArrayList<>(List.of("bash", SCRIPTS.resolve(script).toString()));
    command.addAll(List.of(args));
    String output = Result.run(command, Map.of(), Duration.ofMinutes(20)).ok().output();
    List<String> lines = output.strip().lines().toList();
    Path last = Path.of(lines.get(lines.size() - 1));
    if (!Files.exists(last)) {
      throw new IllegalStateException(script + " printed no path it built:\n" + output);
    }
    return last;
  }

  /**
   * How long cluster.sh may take to have every node Ready: its 300 s default up to 1,000 nodes,
   * then 0.2 s more per node (1,100 s at 5,000 nodes).
   */
  static Duration startTimeout(int nodes) {
    return Duration.ofSeconds(Math.max(300, 100 + nodes / 5));
  }

  /** Starts a cluster in {@code dir} with {@code nodes} fake nodes, {@code gpuNodes} with GPUs. */
  static RealCluster start(Path dir, Path bin, int nodes, int gpuNodes) {
    return start(dir, bin, nodes, gpuNodes, Map.of());
  }

  /**
   * As {@link #start(Path, Path, int, int)} with {@code env} for cluster.sh (e.g. the audit log).
   */
  static RealCluster start(Path dir, Path bin, int nodes, int gpuNodes, Map<String, String> env) {
    List<String> command =
        List.of(
            "bash",
            SCRIPTS.resolve("cluster.sh").toString(),
            "start",
            "--dir",
            dir.toString(),
            "--bin",
            bin.toString(),
            "--nodes",
            String.valueOf(nodes),
            "--gpu-nodes",
            String.valueOf(gpuNodes),
            "--owner-pid",
            String.valueOf(ProcessHandle.current().pid()),
            "--timeout",
            String.valueOf(startTimeout(nodes).toSeconds()));
    // cluster.sh gives up by itself after --timeout; this is a backstop.
    Result started = Result.run(command, env, startTimeout(nodes).plusMinutes(2));
    if (started.code() != 0) {
      throw new IllegalStateException("real cluster did not start: " + started.output().strip());
    }
    return new RealCluster(dir, bin);
  }

  public Path dir() {
    return dir;
  }

  public Path kubeconfig() {
    return dir.resolve("kubeconfig");
  }

  public Path logs() {
    return dir.resolve("logs");
  }

  /** A client with cluster-admin rights (the test's own hands, not the operator's). */
  public KubernetesClient admin() {
    return admin;
  }

  public Path kubectlBinary() {
    return bin.resolve("kubectl");
  }

  /** The API server's version without the leading v, e.g. {@code 1.36.3}. */
  public String serverVersion() {
    var v = admin.getKubernetesVersion();
    return v.getGitVersion().replaceFirst("^v", "");
  }

  /** Runs the cluster's own kubectl as cluster-admin; never throws on a non-zero exit. */
  public Result kubectl(String... args) {
    return kubectlAs(kubeconfig(), args);
  }

  /** Runs kubectl with the given kubeconfig, e.g. one holding a ServiceAccount's token. */
  public Result kubectlAs(Path kubeconfig, String... args) {
    List<String> command = new ArrayList<>();
    command.add(kubectlBinary().toString());
    command.add("--kubeconfig=" + kubeconfig);
    command.addAll(List.of(args));
    return Result.run(command, Map.of(), Duration.ofMinutes(2));
  }

  /** Like {@link #kubectl} with {@code stdin} piped in (e.g. {@code apply -f -}). */
  public Result kubectlWithInput(String stdin, String... args) {
    List<String> command = new ArrayList<>();
    command.add(kubectlBinary().toString());
    command.add("--kubeconfig=" + kubeconfig());
    command.addAll(List.of(args));
    return Result.run(command, Map.of(), Duration.ofMinutes(2), stdin);
  }

  /**
   * A kubeconfig for the ServiceAccount {@code namespace/name}: a token from the TokenRequest API
   * (as a pod's projected token would be), the cluster's CA, nothing else.
   */
  /** A TokenRequest's token for ServiceAccount {@code namespace/name}, valid 24 h. */
  public String serviceAccountToken(String namespace, String name) {
    Result token = kubectl("create", "token", name, "-n", namespace, "--duration=24h");
    if (token.code() != 0) {
      throw new IllegalStateException("kubectl create token " + name + ": " + token.output());
    }
    return token.output().strip();
  }

  /** The cluster's CA certificate (it signed the API server's serving certificate). */
  public Path caCertificate() {
    return dir.resolve("pki/ca.crt");
  }

  /** The API server's URL on loopback. */
  public java.net.URI apiServer() {
    return java.net.URI.create(admin.getConfiguration().getMasterUrl());
  }

  public Path serviceAccountKubeconfig(String namespace, String name, Path target) {
    String token = serviceAccountToken(namespace, name);
    String cluster = admin.getConfiguration().getMasterUrl();
    String yaml =
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: realcluster
          cluster:
            server: %s
            certificate-authority: %s
        users:
        - name: %s
          user:
            token: %s
        contexts:
        - name: sa
          context: {cluster: realcluster, user: %s, namespace: %s}
        current-context: sa
        """
            .formatted(cluster.replaceAll("/$", ""), caCertificate(), name, token, name, namespace);
    try {
      Files.writeString(target, yaml, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return target;
  }

  /**
   * Stops one component ({@code kill}: SIGKILL, else SIGTERM), keeps it down for {@code down} and
   * has the supervisor start it again with the same flags and data; returns once it is healthy.
   */
  public void restart(String component, boolean kill, Duration down) {
    List<String> command =
        new ArrayList<>(
            List.of(
                "bash",
                SCRIPTS.resolve("cluster.sh").toString(),
                "restart",
                component,
                "--dir",
                dir.toString(),
                "--down",
                String.valueOf(down.toSeconds())));
    if (kill) {
      command.add("--kill");
    }
    Result r = Result.run(command, Map.of(), Duration.ofMinutes(3));
    if (r.code() != 0) {
      throw new IllegalStateException("restart " + component + ": " + r.output().strip());
    }
  }

  /**
   * Compacts etcd's history up to its current revision (the v3 JSON gateway: etcdctl is not built),
   * so a watch that resumes from an older resourceVersion gets 410 Gone; returns that revision.
   */
  public long compactEtcd() {
    Properties env = new Properties();
    try (var in = Files.newBufferedReader(dir.resolve("env"))) {
      env.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String etcd = "http://127.0.0.1:" + env.getProperty("ETCD_PORT");
    Result range =
        Result.run(
            List.of(
                "curl",
                "-sf",
                "-X",
                "POST",
                etcd + "/v3/kv/range",
                "-d",
                "{\"key\":\"AA==\",\"limit\":1}"),
            Map.of(),
            Duration.ofSeconds(20));
    var m = java.util.regex.Pattern.compile("\"revision\":\\s*\"(\\d+)\"").matcher(range.output());
    if (range.code() != 0 || !m.find()) {
      throw new IllegalStateException("etcd range: " + range.output());
    }
    long revision = Long.parseLong(m.group(1));
    Result compact =
        Result.run(
            List.of(
                "curl",
                "-sf",
                "-X",
                "POST",
                etcd + "/v3/kv/compaction",
                "-d",
                "{\"revision\":\"" + revision + "\",\"physical\":true}"),
            Map.of(),
            Duration.ofSeconds(20));
    if (compact.code() != 0) {
      throw new IllegalStateException("etcd compaction at " + revision + ": " + compact.output());
    }
    return revision;
  }

  /** The tail of a component's log, for assertion messages. */
  public String logTail(String component, int lines) {
    try {
      List<String> all = Files.readAllLines(logs().resolve(component + ".log"));
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /**
   * Why this cluster cannot serve the next test, or null when it can: its supervisor reported a
   * component dead, or the API server does not answer {@code /readyz} (a restart a test started has
   * 30 s to finish).
   */
  String brokenBecause() {
    Path failed = dir.resolve("failed");
    if (Files.exists(failed)) {
      return read(failed).strip();
    }
    Result ready = null;
    for (int i = 0; i < 30; i++) {
      ready =
          Result.run(
              List.of(
                  kubectlBinary().toString(),
                  "--kubeconfig=" + kubeconfig(),
                  "--request-timeout=5s",
                  "get",
                  "--raw",
                  "/readyz"),
              Map.of(),
              Duration.ofSeconds(10));
      if (ready.code() == 0) {
        return null;
      }
      try {
        Thread.sleep(1000); // a wait on the API server itself: no condition to poll but this
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return "kube-apiserver /readyz: " + ready.output().strip();
  }

  private boolean closed;

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    admin.close();
    Result.run(
        List.of("bash", SCRIPTS.resolve("cluster.sh").toString(), "stop", "--dir", dir.toString()),
        Map.of(),
        Duration.ofSeconds(40));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The exit code and the merged output of a finished process. */
  public record Result(int code, String output) {

    static Result run(List<String> command, Map<String, String> env, Duration timeout) {
      return run(command, env, timeout, null);
    }

    static Result run(
        List<String> command, Map<String, String> env, Duration timeout, String stdin) {
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
      pb.environment().putAll(env);
      Path out = null;
      Process p = null;
      try {
        out = Files.createTempFile("realcluster-", ".out");
        pb.redirectOutput(out.toFile());
        if (stdin == null) {
          pb.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        }
        p = pb.start();
        if (stdin != null) {
          try (var in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
          }
        }
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly().waitFor();
          return new Result(
              124, "timed out after " + timeout + ": " + command + "\n" + Files.readString(out));
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        if (p != null) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
        }
        throw new IllegalStateException("interrupted: " + command, e);
      } finally {
        if (out != null) {
          try {
            Files.deleteIfExists(out);
          } catch (IOException ignored) {
            // a temp file left behind is harmless
          }
        }
      }
    }

    /** Fails with the command's output unless it exited 0. */
    public Result ok() {
      if (code != 0) {
        throw new AssertionError("exit " + code + ": " + output);
      }
      return this;
    }
  }
}
