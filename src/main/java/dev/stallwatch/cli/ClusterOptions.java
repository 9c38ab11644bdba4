package dev.stallwatch.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.File;
import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/**
 * The cluster-access flags kubectl users expect ({@code --kubeconfig}, {@code --context}, {@code
 * -n}, {@code -A}), turned into a fabric8 client; access problems become one clear line and exit
 * code 3.
 */
public final class ClusterOptions {

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description = "Kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, in-cluster).")
  Path kubeconfig;

  @Option(
      names = "--context",
      paramLabel = "CONTEXT",
      description = "Kubeconfig context to use (default: the current context).")
  String context;

  @Option(
      names = {"-n", "--namespace"},
      paramLabel = "NAMESPACE",
      description = "Namespace (default: the context's namespace, else \"default\").")
  String namespace;

  @Option(
      names = {"-A", "--all-namespaces"},
      description = "All namespaces (where the command lists DaemonSets).")
  boolean allNamespaces;

  /** Server calls give up after this long, so a dead API server cannot hang a CI job. */
  static final int REQUEST_TIMEOUT_MILLIS = 15_000;

  private Config config;

  /** The resolved client configuration; reads the kubeconfig once. */
  Config config() {
    if (config == null) {
      config =
          new ConfigBuilder(baseConfig())
              .withRequestTimeout(REQUEST_TIMEOUT_MILLIS)
              .withConnectionTimeout(REQUEST_TIMEOUT_MILLIS)
              // Retries with backoff would turn "cluster unreachable" into a minute-long hang.
              .withRequestRetryBackoffLimit(1)
              .build();
    }
    return config;
  }

  private Config baseConfig() {
    if (kubeconfig != null) {
      if (!Files.isReadable(kubeconfig)) {
        throw new ExitCodes.UserException("--kubeconfig " + kubeconfig + ": no such readable file");
      }
      Config fromFile = readKubeconfig(kubeconfig.toFile());
      if (context != null && !contextExists(fromFile)) {
        throw new ExitCodes.UserException(
            "--context " + context + ": no such context in " + kubeconfig);
      }
      return fromFile;
    }
    boolean inCluster = Files.isReadable(Path.of(Config.KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH));
    boolean anyKubeconfig =
        Config.getKubeconfigFilenames().stream().anyMatch(f -> Files.isReadable(Path.of(f)));
    if (!inCluster && !anyKubeconfig && System.getenv("KUBERNETES_MASTER") == null) {
      throw new ExitCodes.AccessException(
          "no cluster configured: no kubeconfig (--kubeconfig, $KUBECONFIG, ~/.kube/config)"
              + " and not running in a pod",
          null);
    }
    Config auto = Config.autoConfigure(context);
    if (context != null && !contextExists(auto)) {
      throw new ExitCodes.UserException(
          "--context " + context + ": no such context in the kubeconfig");
    }
    return auto;
  }

  private Config readKubeconfig(File file) {
    try {
      return Config.fromKubeconfig(context, file);
    } catch (KubernetesClientException | IllegalArgumentException e) {
      throw new ExitCodes.UserException("--kubeconfig " + file + ": " + e.getMessage(), e);
    }
  }

  private boolean contextExists(Config cfg) {
    return cfg.getContexts() != null
        && cfg.getContexts().stream().anyMatch(c -> context.equals(c.getName()));
  }

  /** A new client; the caller closes it. */
  public KubernetesClient client() {
    return new KubernetesClientBuilder().withConfig(config()).build();
  }

  /** {@code -n}, else the namespace of the context, else {@code default}. */
  public String namespace() {
    if (namespace != null && !namespace.isBlank()) {
      return namespace;
    }
    String fromConfig = config().getNamespace();
    return fromConfig == null || fromConfig.isBlank() ? "default" : fromConfig;
  }

  /** True when {@code -A} was given. */
  public boolean allNamespaces() {
    return allNamespaces;
  }

  /**
   * {@code --context} and {@code --kubeconfig} as the user gave them, quoted for a POSIX shell,
   * each preceded by a space ("" when neither was given): to repeat in a command we print, so that
   * it reaches the same cluster.
   */
  public String clusterFlags() {
    StringBuilder flags = new StringBuilder();
    if (context != null) {
      flags.append(" --context ").append(shellQuote(context));
    }
    if (kubeconfig != null) {
      flags.append(" --kubeconfig ").append(shellQuote(kubeconfig.toString()));
    }
    return flags.toString();
  }

  /**
   * {@code s} as one word of a POSIX shell command line: as it is when safe, else single-quoted.
   */
  static String shellQuote(String s) {
    if (!s.isEmpty() && s.matches("[A-Za-z0-9_./:=@%+,-]+")) {
      return s;
    }
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /**
   * Runs {@code work} with a fresh client and maps client failures: unreachable server, 401 and 403
   * become {@link ExitCodes.AccessException}; other API errors a {@link ExitCodes.UserException}.
   */
  public <T> T withClient(Function<KubernetesClient, T> work) {
    try (KubernetesClient client = client()) {
      return translating(() -> work.apply(client));
    }
  }

  /** Runs {@code work} (calls on a client of ours) and maps its failures as {@link #withClient}. */
  public <T> T translating(Supplier<T> work) {
    try {
      return work.get();
    } catch (KubernetesClientException e) {
      throw translate(e, config().getMasterUrl());
    }
  }

  /**
   * The cluster problem under {@code t}, however deeply wrapped (JOSDK wraps its informers'
   * failures in an {@code OperatorException}, an {@code ExecutionException}…): a failed API call as
   * {@link #translate} words it, or a connection that could not be made as an {@link
   * ExitCodes.AccessException} naming {@code server}. Null when there is none.
   */
  public static RuntimeException clusterProblem(Throwable t, String server) {
    for (Throwable c : chain(t)) {
      if (c instanceof KubernetesClientException k) {
        return translate(k, server);
      }
    }
    if (connectFailure(t)) {
      return new ExitCodes.AccessException(
          "cannot reach the cluster at " + server + ": " + rootMessage(t), t);
    }
    return null;
  }

  /** One clear line for a failed call against {@code server}. */
  public static RuntimeException translate(KubernetesClientException e, String server) {
    int code = e.getCode();
    String detail =
        e.getStatus() != null && e.getStatus().getMessage() != null
            ? e.getStatus().getMessage()
            : firstLine(e.getMessage());
    if (code == 401) {
      return new ExitCodes.AccessException(
          "unauthorized by the cluster at " + server + " (HTTP 401): check your credentials", e);
    }
    if (code == 403) {
      return new ExitCodes.AccessException("forbidden (HTTP 403): " + detail, e);
    }
    if (unreadable(e)) {
      // An object the API server sent that this version cannot map (a field of another type).
      return new ExitCodes.AccessException(
          "cannot read what the cluster at " + server + " sent: " + rootMessage(e), e);
    }
    if (code == 0 || connectFailure(e)) {
      return new ExitCodes.AccessException(
          "cannot reach the cluster at " + server + ": " + rootMessage(e), e);
    }
    return new ExitCodes.UserException(detail + " (HTTP " + code + ")", e);
  }

  private static boolean unreadable(Throwable t) {
    return chain(t).stream()
        .anyMatch(c -> c instanceof com.fasterxml.jackson.core.JsonProcessingException);
  }

  private static boolean connectFailure(Throwable t) {
    if (unreadable(t)) {
      return false;
    }
    for (Throwable c : chain(t)) {
      if (c instanceof ConnectException
          || c instanceof UnknownHostException
          || c instanceof UnresolvedAddressException
          || c instanceof HttpTimeoutException
          || (c instanceof IOException && c != t)) {
        return true;
      }
    }
    return false;
  }

  /**
   * What went wrong underneath: the first connection failure of the chain (a JDK {@code
   * ConnectException} wraps an uninformative {@code ClosedChannelException}), else the root.
   */
  private static String rootMessage(Throwable t) {
    List<Throwable> chain = chain(t);
    Throwable root =
        chain.stream()
            .filter(
                c ->
                    c instanceof ConnectException
                        || c instanceof UnknownHostException
                        || c instanceof HttpTimeoutException)
            .findFirst()
            .orElse(chain.get(chain.size() - 1));
    String msg = root.getMessage();
    return root.getClass().getSimpleName()
        + (msg == null || msg.isBlank() ? "" : ": " + firstLine(msg));
  }

  /** {@code t} and its causes, outermost first (a cycle ends it). */
  private static List<Throwable> chain(Throwable t) {
    List<Throwable> chain = new ArrayList<>();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
      chain.add(c);
    }
    return chain;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
