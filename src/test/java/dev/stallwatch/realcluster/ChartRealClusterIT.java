package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.deploy.NativeHelm;
import dev.stallwatch.operator.decision.EventReason;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionCondition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Helm chart installed for real: every object it renders goes through a real API server (strict
 * field validation, structural CRD schema, RBAC), its Deployment's pods are created by the real
 * ReplicaSet controller in a namespace that enforces the restricted Pod Security Standard, and the
 * ServiceAccount may do exactly what the README promises — asked of the API server with {@code
 * kubectl auth can-i}, authenticated by the ServiceAccount's own token — and that is enough for the
 * operator run with the Deployment's own arguments.
 *
 * <p>Releases and namespaces of their own, so they never meet the default release {@code
 * stallwatch} in {@code stallwatch-system} that the operator ITs install.
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class ChartRealClusterIT {

  /** One install of the chart: its values, and what those values should grant. */
  record Release(
      String label,
      ChartInstall chart,
      boolean autoRollback,
      boolean leaderElection,
      int replicas) {
    @Override
    public String toString() {
      return label;
    }
  }

  static final Release DEFAULTS =
      new Release(
          "default values",
          new ChartInstall("chart-defaults", "chart-defaults", Map.of()),
          false,
          false,
          1);

  static final Release STANDBY =
      new Release(
          "autoRollback, 2 replicas, leader election",
          new ChartInstall(
              "chart-standby",
              "chart-standby",
              Map.of(
                  "autoRollback.enabled", "true",
                  "replicas", "2",
                  "leaderElection.enabled", "true",
                  // short enough for a test; neither touches RBAC
                  "operator.stallAfter", OperatorProcess.STALL_AFTER,
                  "autoRollback.after", "10s")),
          true,
          true,
          2);

  /**
   * The optional objects against prometheus-operator's real CRD schemas (installed first, from
   * {@code prometheus-operator-crds.sh}'s cache): strict field validation judges every field.
   */
  static final Release MONITORED =
      new Release(
          "ServiceMonitor, PrometheusRule, dashboard",
          new ChartInstall(
              "chart-monitored",
              "chart-monitored",
              Map.of(
                  "metrics.serviceMonitor.enabled", "true",
                  "metrics.serviceMonitor.additionalLabels.release", "kube-prometheus-stack",
                  "metrics.serviceMonitor.metricRelabelings[0].sourceLabels[0]", "__name__",
                  "metrics.serviceMonitor.metricRelabelings[0].regex", "operator_sdk_.*",
                  "metrics.serviceMonitor.metricRelabelings[0].action", "drop",
                  "prometheusRule.enabled", "true",
                  "prometheusRule.additionalRuleLabels.team", "platform",
                  "prometheusRule.customRules.StallwatchOperatorDown.severity", "critical",
                  "dashboards.enabled", "true")),
          false,
          false,
          1);

  static final String LEASE = "stallwatch-leader";

  /** A namespace other than the release's, where watched DaemonSets live. */
  static final String ELSEWHERE = "kube-system";

  static RealCluster cluster;

  /** kubectl's output of each release's install, once per test run. */
  private static final Map<Release, String> INSTALLED = new HashMap<>();

  @BeforeAll
  static void start(RealCluster c) {
    cluster = c;
  }

  static Stream<Release> releases() {
    return Stream.of(DEFAULTS, STANDBY, MONITORED);
  }

  /** Installs {@code r} on first use (kubectl apply is idempotent, so a retry is harmless). */
  private static synchronized String install(Release r) {
    if (r == MONITORED) {
      installPrometheusOperatorCrds();
    }
    return INSTALLED.computeIfAbsent(r, k -> k.chart().install(cluster));
  }

  /** prometheus-operator's ServiceMonitor and PrometheusRule CRDs, at the pinned version. */
  private static void installPrometheusOperatorCrds() {
    ToolBuilds.await("prometheus-operator-crds.sh");
    Path dir =
        RealCluster.cached(
            "prometheus-operator-crds-" + RealCluster.pinned("PROMETHEUS_OPERATOR_VERSION"));
    if (!java.nio.file.Files.isDirectory(dir)) {
      String why = dir + " missing: run src/test/realcluster/prometheus-operator-crds.sh";
      if (Boolean.parseBoolean(System.getenv(RealCluster.REQUIRE))) {
        throw new IllegalStateException(why + " (" + RealCluster.REQUIRE + "=true)");
      }
      org.junit.jupiter.api.Assumptions.abort(why);
    }
    for (String crd : List.of("servicemonitors", "prometheusrules")) {
      cluster
          .kubectl(
              "apply",
              "--server-side",
              "-f",
              dir.resolve("monitoring.coreos.com_" + crd + ".yaml").toString())
          .ok();
      cluster
          .kubectl("wait", "--for=condition=Established", "crd/" + crd + ".monitoring.coreos.com")
          .ok();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("releases")
  void theApiServerAcceptsEveryObjectTheChartRenders(Release r) {
    String applied = install(r);

    // kubectl apply validates fields strictly on the server (kubectl's default --validate=strict):
    // an unknown or misplaced field would have failed the install, a deprecated API warns here.
    assertThat(applied).doesNotContainIgnoringCase("warning");
    String rendered = r.chart().render(cluster);
    RealCluster.Result present =
        cluster.kubectlWithInput(
            rendered, "get", "-n", r.chart().namespace(), "-f", "-", "-o", "name");
    assertThat(present.code()).as(present.output()).isZero();
    List<String> names = present.output().lines().filter(l -> !l.isBlank()).toList();
    assertThat(names)
        .as("objects on the API server")
        .hasSize(documents(rendered))
        .contains(
            "deployment.apps/" + r.chart().fullname(),
            "serviceaccount/" + r.chart().fullname(),
            "clusterrole.rbac.authorization.k8s.io/" + r.chart().fullname(),
            "clusterrolebinding.rbac.authorization.k8s.io/" + r.chart().fullname(),
            "clusterrole.rbac.authorization.k8s.io/" + r.chart().fullname() + "-view",
            "service/" + r.chart().fullname() + "-metrics");
    if (r.leaderElection()) {
      assertThat(names)
          .contains(
              "role.rbac.authorization.k8s.io/" + r.chart().fullname() + "-leader-election",
              "rolebinding.rbac.authorization.k8s.io/" + r.chart().fullname() + "-leader-election");
    }
    if (r.replicas() > 1) {
      assertThat(names).contains("poddisruptionbudget.policy/" + r.chart().fullname());
    }
    if (r == MONITORED) {
      assertThat(names)
          .contains(
              "servicemonitor.monitoring.coreos.com/" + r.chart().fullname(),
              "prometheusrule.monitoring.coreos.com/" + r.chart().fullname(),
              "configmap/" + r.chart().fullname() + "-dashboard");
    }
  }

  @Test
  void theCustomResourceDefinitionIsStructuralAndEstablished() {
    install(DEFAULTS);

    CustomResourceDefinition crd =
        cluster
            .admin()
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName("rolloutstalls.stallwatch.dev")
            .get();

    Map<String, String> conditions = new HashMap<>();
    for (CustomResourceDefinitionCondition c : crd.getStatus().getConditions()) {
      conditions.put(c.getType(), c.getStatus() + ": " + c.getMessage());
    }
    assertThat(conditions).doesNotContainKey("NonStructuralSchema");
    assertThat(conditions.get("Established")).startsWith("True");
    assertThat(conditions.get("NamesAccepted")).startsWith("True");
    assertThat(crd.getStatus().getAcceptedNames().getKind()).isEqualTo("RolloutStall");
    assertThat(crd.getStatus().getStoredVersions()).containsExactly("v1alpha1");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("releases")
  void theOperatorPodsAreCreatedAndRunUnderTheRestrictedPodSecurityStandard(Release r) {
    String applied = install(r);
    String namespace = r.chart().namespace();
    // The namespace really enforces the standard: a pod without the restricted settings is refused.
    RealCluster.Result unrestricted =
        cluster.kubectl(
            "run",
            "psa-probe",
            "-n",
            namespace,
            "--image=example.com/probe:v1",
            "--restart=Never",
            "--dry-run=server");
    assertThat(unrestricted.code()).as(unrestricted.output()).isNotZero();
    assertThat(unrestricted.output()).contains("violates PodSecurity \"restricted:latest\"");
    // The namespace warns too, for pod templates: the chart's Deployment drew no warning.
    assertThat(applied).doesNotContain("would violate PodSecurity");

    List<Pod> pods =
        await("the ReplicaSet controller creates " + r.replicas() + " running operator pods")
            .atMost(Scenario.WAIT)
            .until(
                () -> operatorPods(r),
                found ->
                    found.size() == r.replicas()
                        && found.stream()
                            .allMatch(
                                p ->
                                    p.getSpec().getNodeName() != null
                                        && "Running".equals(p.getStatus().getPhase())));
    assertThat(pods)
        .allSatisfy(
            p -> {
              assertThat(p.getMetadata().getOwnerReferences().get(0).getKind())
                  .isEqualTo("ReplicaSet");
              assertThat(p.getSpec().getServiceAccountName()).isEqualTo(r.chart().fullname());
              assertThat(p.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
            });
    await("the Deployment reports " + r.replicas() + " available replicas")
        .atMost(Scenario.WAIT)
        .until(() -> available(deployment(r)) == r.replicas());

    assertThat(cluster.admin().v1().events().inNamespace(namespace).list().getItems())
        .as("events in " + namespace)
        .noneMatch(e -> "FailedCreate".equals(e.getReason()))
        .noneMatch(e -> e.getMessage() != null && e.getMessage().contains("PodSecurity"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("releases")
  void theServiceAccountMayDoExactlyWhatTheChartPromises(Release r) {
    install(r);
    Path token =
        r.chart()
            .serviceAccountKubeconfig(
                cluster, cluster.dir().resolve(r.chart().release() + "-sa.kubeconfig"));

    List<String> wrong = new ArrayList<>();
    for (Permission p : promises(r)) {
      boolean allowed = canI(token, p);
      if (p.allowed() && !allowed) {
        // RBAC answers from the API server's informer cache: a grant just applied may lag.
        allowed = eventuallyAllowed(token, p);
      }
      if (allowed != p.allowed()) {
        wrong.add(p + " -> " + (allowed ? "yes" : "no"));
      }
    }
    assertThat(wrong).as("kubectl auth can-i as the chart's ServiceAccount").isEmpty();
  }

  @Test
  void anyoneWhoMayViewANamespaceMayReadItsRolloutStallsButNotWriteThem() {
    install(DEFAULTS);
    String namespace = DEFAULTS.chart().namespace();
    cluster
        .kubectl(
            "create",
            "rolebinding",
            "jane-views",
            "-n",
            namespace,
            "--clusterrole=view",
            "--user=jane")
        .ok();

    // The controller-manager aggregates the chart's -view role into view: wait for it.
    await("view aggregates read access to rolloutstalls")
        .atMost(Scenario.WAIT)
        .until(() -> canIAs("jane", "list", "rolloutstalls.stallwatch.dev", "-n", namespace));
    assertThat(canIAs("jane", "get", "rolloutstalls.stallwatch.dev", "-n", namespace)).isTrue();
    assertThat(canIAs("jane", "create", "rolloutstalls.stallwatch.dev", "-n", namespace)).isFalse();
    assertThat(canIAs("jane", "delete", "rolloutstalls.stallwatch.dev", "-n", namespace)).isFalse();
    assertThat(canIAs("jane", "list", "rolloutstalls.stallwatch.dev", "-n", ELSEWHERE)).isFalse();
  }

  /**
   * can-i shows what the chart grants; this shows it is enough: the operator, started with the
   * arguments of the Deployment the chart created and the ServiceAccount's token alone, takes the
   * Lease, records a stall, rolls the opted-in DaemonSet back and resolves the stall.
   */
  @Test
  void theOperatorAsTheChartRunsItNeedsNoMoreThanTheChartGrants() {
    install(STANDBY);
    ChartInstall chart = STANDBY.chart();
    Path token =
        chart.serviceAccountKubeconfig(
            cluster, cluster.dir().resolve(chart.release() + "-operator.kubeconfig"));
    String pod = chart.release() + "-operator";
    List<String> args = operatorArgs(STANDBY);
    assertThat(args).contains("--auto-rollback", "--leader-election");

    try (OperatorProcess operator =
        OperatorProcess.start(
            token, cluster.dir().resolve(pod + ".log"), pod, args.toArray(String[]::new))) {
      await("operator ready")
          .atMost(Scenario.WAIT)
          .until(() -> operator.ready() || !operator.alive());
      assertThat(operator.alive()).as(operator.output()).isTrue();
      await("the operator holds the Lease " + LEASE + " in " + chart.namespace())
          .atMost(Scenario.WAIT)
          .until(() -> leaseHolder(chart.namespace()), h -> h != null && h.startsWith(pod));

      Scenario s = Scenario.create(cluster, "chart-rollback", 3, 0);
      s.rollOut(
          "agent",
          "example.com/agent:v1",
          b -> b.editMetadata().addToAnnotations(MetadataKeys.AUTO_ROLLBACK, "true").endMetadata());
      cluster
          .kubectl(
              "set",
              "image",
              "-n",
              s.namespace(),
              "daemonset/agent",
              "agent=" + Scenario.UNPULLABLE + "agent:v2")
          .ok();

      await("the operator rolls agent back")
          .atMost(Scenario.WAIT)
          .until(
              () -> s.daemonSet("agent").getMetadata().getAnnotations(),
              a -> a.containsKey(MetadataKeys.ROLLED_BACK_TO));
      assertThat(
              s.daemonSet("agent")
                  .getSpec()
                  .getTemplate()
                  .getSpec()
                  .getContainers()
                  .get(0)
                  .getImage())
          .isEqualTo("example.com/agent:v1");
      s.awaitComplete("agent");
      assertThat(s.awaitResolved()).hasSize(1);
      assertThat(s.events("agent", EventReason.STALLED.reason())).hasSize(1);
      assertThat(s.events("agent", EventReason.ROLLED_BACK.reason())).hasSize(1);
      assertThat(operator.output()).doesNotContainIgnoringCase("forbidden");
    }
  }

  /** The operator's arguments in the Deployment on the API server, but its own metrics port. */
  private static List<String> operatorArgs(Release r) {
    List<String> args =
        deployment(r).getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
    assertThat(args).first().isEqualTo("operator");
    return args.stream().skip(1).filter(a -> !a.startsWith("--metrics-port=")).toList();
  }

  private static String leaseHolder(String namespace) {
    Lease lease = cluster.admin().leases().inNamespace(namespace).withName(LEASE).get();
    return lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
  }

  /**
   * One question to {@code kubectl auth can-i} and the answer the chart promises.
   *
   * @param scope {@code -A}, {@code -n NS}, or nothing for cluster-scoped resources
   */
  record Permission(String verb, String resource, List<String> scope, boolean allowed) {
    @Override
    public String toString() {
      return "can-i "
          + verb
          + " "
          + resource
          + (scope.isEmpty() ? "" : " " + String.join(" ", scope))
          + ": expected "
          + (allowed ? "yes" : "no");
    }
  }

  /**
   * What README ("What gets created") and templates/rbac.yaml promise for {@code r}: read-only on
   * daemonsets, controllerrevisions, pods and nodes in every namespace; create/patch events; full
   * access to rolloutstalls and their status; nothing on secrets; no writes on workloads, except
   * {@code patch daemonsets} with auto-rollback; the Lease {@code stallwatch-leader} in the release
   * namespace, and only it, with leader election.
   */
  static List<Permission> promises(Release r) {
    String home = r.chart().namespace();
    List<String> all = List.of("-A");
    List<String> cluster = List.of();
    List<String> inHome = List.of("-n", home);
    List<String> elsewhere = List.of("-n", ELSEWHERE);
    List<Permission> rows = new ArrayList<>();
    for (String verb : List.of("get", "list", "watch")) {
      // Informers list and watch; only the auto-rollback reads a DaemonSet by name.
      boolean informed = !verb.equals("get");
      rows.add(new Permission(verb, "daemonsets.apps", all, informed || r.autoRollback()));
      rows.add(new Permission(verb, "controllerrevisions.apps", all, informed));
      rows.add(new Permission(verb, "pods", all, informed));
      rows.add(new Permission(verb, "nodes", cluster, informed));
      // get: a write whose answer was lost (a GOAWAY) is read back
      rows.add(new Permission(verb, "rolloutstalls.stallwatch.dev", all, true));
      rows.add(new Permission(verb, "secrets", all, false));
      rows.add(new Permission(verb, "secrets", inHome, false));
    }
    for (String verb : List.of("create", "update", "patch", "delete")) {
      // Created and deleted whole; only the status is rewritten.
      rows.add(
          new Permission(
              verb,
              "rolloutstalls.stallwatch.dev",
              elsewhere,
              verb.equals("create") || verb.equals("delete")));
      boolean rollbackPatch = verb.equals("patch") && r.autoRollback();
      rows.add(new Permission(verb, "daemonsets.apps", elsewhere, rollbackPatch));
      rows.add(new Permission(verb, "deployments.apps", elsewhere, false));
      rows.add(new Permission(verb, "deployments.apps", inHome, false));
      rows.add(new Permission(verb, "pods", elsewhere, false));
      rows.add(new Permission(verb, "pods", inHome, false));
      rows.add(new Permission(verb, "controllerrevisions.apps", elsewhere, false));
      rows.add(new Permission(verb, "nodes", cluster, false));
      rows.add(new Permission(verb, "secrets", inHome, false));
    }
    rows.add(new Permission("update", "rolloutstalls.stallwatch.dev/status", elsewhere, true));
    rows.add(new Permission("patch", "rolloutstalls.stallwatch.dev/status", elsewhere, false));
    rows.add(new Permission("create", "events", elsewhere, true));
    rows.add(new Permission("patch", "events", elsewhere, false));
    // the DaemonSet's FailedCreate Events are listed on demand, never watched
    rows.add(new Permission("list", "events", elsewhere, true));
    rows.add(new Permission("watch", "events", elsewhere, false));
    rows.add(new Permission("create", "pods/eviction", elsewhere, false));
    rows.add(new Permission("create", "pods/exec", elsewhere, false));
    rows.add(new Permission("*", "*", all, false));
    boolean le = r.leaderElection();
    rows.add(new Permission("get", "leases.coordination.k8s.io/" + LEASE, inHome, le));
    rows.add(new Permission("update", "leases.coordination.k8s.io/" + LEASE, inHome, le));
    rows.add(new Permission("patch", "leases.coordination.k8s.io/" + LEASE, inHome, le));
    // create cannot be limited by name (the Lease does not exist yet)
    rows.add(new Permission("create", "leases.coordination.k8s.io", inHome, le));
    rows.add(new Permission("delete", "leases.coordination.k8s.io/" + LEASE, inHome, false));
    rows.add(new Permission("get", "leases.coordination.k8s.io/another-lease", inHome, false));
    rows.add(new Permission("update", "leases.coordination.k8s.io/another-lease", inHome, false));
    rows.add(new Permission("list", "leases.coordination.k8s.io", inHome, false));
    rows.add(new Permission("get", "leases.coordination.k8s.io/" + LEASE, elsewhere, false));
    rows.add(new Permission("update", "leases.coordination.k8s.io/" + LEASE, elsewhere, false));
    return rows;
  }

  private static boolean canI(Path kubeconfig, Permission p) {
    List<String> args = new ArrayList<>(List.of("auth", "can-i", p.verb()));
    String resource = p.resource();
    int slash = resource.indexOf('/');
    boolean subresource = slash > 0 && !resource.startsWith("leases.");
    if (subresource) {
      args.add(resource.substring(0, slash));
      args.add("--subresource=" + resource.substring(slash + 1));
    } else {
      args.add(resource);
    }
    args.addAll(p.scope());
    return answer(cluster.kubectlAs(kubeconfig, args.toArray(String[]::new)), p.toString());
  }

  private static boolean eventuallyAllowed(Path kubeconfig, Permission p) {
    try {
      await(p.toString())
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> canI(kubeconfig, p));
      return true;
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      return false;
    }
  }

  /** {@code kubectl auth can-i} as cluster-admin impersonating {@code user}. */
  private static boolean canIAs(String user, String verb, String resource, String... scope) {
    List<String> args = new ArrayList<>(List.of("auth", "can-i", verb, resource, "--as=" + user));
    args.addAll(List.of(scope));
    return answer(cluster.kubectl(args.toArray(String[]::new)), user + " " + verb + " " + resource);
  }

  /** yes (exit 0) or no (exit 1, "no"); anything else is an error, not an answer. */
  private static boolean answer(RealCluster.Result r, String question) {
    List<String> lines = r.output().lines().map(String::strip).toList();
    String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    if (r.code() == 0 && last.equals("yes")) {
      return true;
    }
    if (r.code() == 1 && last.startsWith("no")) {
      return false;
    }
    throw new AssertionError(question + ": kubectl exit " + r.code() + ": " + r.output());
  }

  private static List<Pod> operatorPods(Release r) {
    return cluster
        .admin()
        .pods()
        .inNamespace(r.chart().namespace())
        .withLabel("app.kubernetes.io/instance", r.chart().release())
        .withLabel("app.kubernetes.io/name", "stallwatch")
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }

  private static Deployment deployment(Release r) {
    return cluster
        .admin()
        .apps()
        .deployments()
        .inNamespace(r.chart().namespace())
        .withName(r.chart().fullname())
        .get();
  }

  private static int available(Deployment d) {
    Integer n = d == null || d.getStatus() == null ? null : d.getStatus().getAvailableReplicas();
    return n == null ? 0 : n;
  }

  /** The number of YAML documents holding an object. */
  private static int documents(String manifests) {
    int n = 0;
    for (String doc : manifests.split("(?m)^---\\s*$")) {
      if (!doc.replaceAll("(?m)^#.*$", "").isBlank()) {
        n++;
      }
    }
    return n;
  }
}
