package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code stallwatch operator} on a real API server that lacks what it needs says so in one line and
 * exits 3, with no ERROR or stack trace of JOSDK or fabric8 before it: the RolloutStall CRD not
 * installed (how to install it), then one missing grant (which verb on which resource), a token the
 * server does not know (401), a ServiceAccount without any grant (403) and a server nobody listens
 * for. A cluster of this class's own, because the shared one has the CRD from the start.
 */
@TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class StartupFailureRealClusterIT {
  static RealCluster cluster;

  @BeforeAll
  static void start() {
    cluster =
        RealClusterExtension.separate(
            "startup-failures",
            "it needs a cluster without the RolloutStall CRD, which the"
                + " shared one has from the start");
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @org.junit.jupiter.api.Order(1)
  void aMissingCrdIsOneLineSayingHowToInstallIt() throws Exception {
    String out = run(cluster.kubeconfig(), "no-crd");

    assertThat(errorLines(out))
        .containsExactly(
            "error: the RolloutStall CRD (rolloutstalls.stallwatch.dev) is not installed in the"
                + " cluster: install it with `kubectl apply -f"
                + " crd/rolloutstalls.stallwatch.dev-v1.yml` (also inside the jar) or with the Helm"
                + " chart");
    assertNoStackTrace(out);
  }

  @Test
  @org.junit.jupiter.api.Order(2)
  void aMissingGrantNamesTheVerbAndTheResource() throws Exception {
    cluster.kubectl("apply", "--server-side", "-f", ChartInstall.CRD.toString()).ok();
    cluster.kubectl("create", "namespace", "sw").ok();
    cluster.kubectl("create", "serviceaccount", "op", "-n", "sw").ok();
    // Everything the chart grants, except watch on pods.
    cluster
        .kubectl(
            "create",
            "clusterrole",
            "op-read",
            "--verb=get,list,watch",
            "--resource=nodes,daemonsets.apps,controllerrevisions.apps")
        .ok();
    cluster.kubectl("create", "clusterrole", "op-pods", "--verb=get,list", "--resource=pods").ok();
    cluster
        .kubectl(
            "create",
            "clusterrole",
            "op-stalls",
            "--verb=get,list,watch,create,update,patch,delete",
            "--resource=rolloutstalls.stallwatch.dev,rolloutstalls.stallwatch.dev/status")
        .ok();
    cluster
        .kubectl("create", "clusterrole", "op-events", "--verb=create,patch", "--resource=events")
        .ok();
    for (String role : List.of("op-read", "op-pods", "op-stalls", "op-events")) {
      cluster
          .kubectl(
              "create",
              "clusterrolebinding",
              role,
              "--clusterrole=" + role,
              "--serviceaccount=sw:op")
          .ok();
    }
    Path kubeconfig =
        cluster.serviceAccountKubeconfig("sw", "op", cluster.dir().resolve("op.kubeconfig"));

    String out = run(kubeconfig, "no-watch-on-pods");

    assertThat(errorLines(out))
        .containsExactly(
            "error: forbidden: the operator may not watch pods in all namespaces — grant it to its"
                + " ServiceAccount (the Helm chart's ClusterRole and Roles do)");
    assertNoStackTrace(out);
  }

  @Test
  @org.junit.jupiter.api.Order(3)
  void aTokenTheServerDoesNotKnowIsOneLine() throws Exception {
    Path good = cluster.dir().resolve("op.kubeconfig");
    Path stale = cluster.dir().resolve("stale-token.kubeconfig");
    Files.writeString(
        stale,
        Files.readString(good)
            .replaceAll("(?m)^(\\s*token: ).*$", "$1not-a-token-this-server-issued"));
    String server = cluster.admin().getConfiguration().getMasterUrl();

    String out = run(stale, "stale-token");

    // One line naming the server and the 401, exit 3, no stack trace. (Over HTTP/2 the API server
    // sends a GOAWAY beside its 401 to an unauthenticated client, which the JDK client reported as
    // a lost connection; the start-up check speaks HTTP/1.1 so that the 401 itself arrives.)
    assertThat(errorLines(out))
        .containsExactly(
            "error: unauthorized by the cluster at "
                + server
                + " (HTTP 401): check your credentials");
    assertNoStackTrace(out);
  }

  @Test
  @org.junit.jupiter.api.Order(4)
  void aServiceAccountWithoutAnyGrantIsOneLine() throws Exception {
    cluster.kubectl("create", "serviceaccount", "nobody", "-n", "sw").ok();
    Path kubeconfig =
        cluster.serviceAccountKubeconfig(
            "sw", "nobody", cluster.dir().resolve("nobody.kubeconfig"));

    String out = run(kubeconfig, "no-grants");

    assertThat(errorLines(out)).hasSize(1);
    assertThat(errorLines(out).get(0)).startsWith("error: forbidden");
    assertNoStackTrace(out);
  }

  @Test
  @org.junit.jupiter.api.Order(5)
  void anUnreachableServerIsOneLine() throws Exception {
    int closed;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      closed = s.getLocalPort(); // free once closed: nothing listens there
    }
    String server = cluster.admin().getConfiguration().getMasterUrl().replaceAll("/$", "");
    int port = java.net.URI.create(server).getPort();
    Path unreachable = cluster.dir().resolve("unreachable.kubeconfig");
    Files.writeString(
        unreachable,
        Files.readString(cluster.dir().resolve("op.kubeconfig"))
            .replace("127.0.0.1:" + port, "127.0.0.1:" + closed));

    String out = run(unreachable, "unreachable");

    assertThat(errorLines(out))
        .containsExactly(
            "error: cannot reach the cluster at https://127.0.0.1:"
                + closed
                + "/: ConnectException");
    assertNoStackTrace(out);
  }

  private static String run(Path kubeconfig, String name) throws Exception {
    Path log = cluster.dir().resolve(name + ".log");
    Files.deleteIfExists(log); // its lines are read back: not those of an earlier run
    OperatorProcess p = OperatorProcess.start(kubeconfig, log, name);
    try {
      assertThat(waitExit(p)).as("exit code; output:\n" + p.output()).isEqualTo(3);
      return p.output();
    } finally {
      p.close();
    }
  }

  private static int waitExit(OperatorProcess p) throws Exception {
    ProcessHandle h = ProcessHandle.of(p.pid()).orElse(null);
    if (h != null) {
      h.onExit().get(60, TimeUnit.SECONDS);
    }
    return p.exitCode();
  }

  private static List<String> errorLines(String out) {
    return out.lines().filter(l -> l.startsWith("error:")).toList();
  }

  private static void assertNoStackTrace(String out) {
    assertThat(out.lines())
        .as(out)
        .noneMatch(l -> l.contains(" ERROR "))
        .noneMatch(l -> l.startsWith("\tat ") || l.startsWith("Caused by:"));
  }
}
