package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.deploy.NativeHelm;
import dev.stallwatch.operator.OperatorSettings;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * From stall to page with the real components: two operator replicas (leader election, the chart's
 * ServiceAccount), scraped by a real Prometheus as the chart's ServiceMonitor declares it, which
 * evaluates the chart's PrometheusRule groups exactly as {@code helm template} renders them and
 * sends to a real Alertmanager, which routes to a webhook receiver inside this test.
 *
 * <p>The seed stall pages with its labels and annotations within scrape + evaluation + group_wait +
 * 10 s of the RolloutStall's creation (the test renders the stall alert with {@code for: 0s}
 * through {@code prometheusRule.customRules}; the shipped 2m adds to that); every query of the
 * Grafana dashboard returns a series during it; killing the leader mid-stall resolves nothing;
 * after {@code kubectl rollout undo} a resolved notification follows; killing every replica pages
 * {@code StallwatchOperatorDown} within its {@code for} + scrape + evaluation + group_wait + 10 s.
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class AlertPathRealClusterIT {
  static final String DS = "nvidia-container-toolkit";
  static final String GOOD = "nvcr.io/nvidia/k8s/container-toolkit:v1.17.0";
  static final String BROKEN = Scenario.UNPULLABLE + "nvidia/k8s/container-toolkit:v1.17.1";

  static final Duration SCRAPE = Duration.ofSeconds(1);
  static final Duration EVALUATION = Duration.ofSeconds(1);
  static final Duration GROUP_WAIT = Duration.ofSeconds(1);
  static final Duration GROUP_INTERVAL = Duration.ofSeconds(1);
  static final Duration SLACK = Duration.ofSeconds(10);

  /**
   * Longer than a failover leaves the cluster without a leader (the Lease's 15 s, then the
   * standby's next try), shorter than the stall alert's 2m bridge this test waits out anyway.
   */
  static final Duration OPERATOR_DOWN_FOR = Duration.ofSeconds(45);

  /** The stall rule's {@code last_over_time} window: how long a resolved stall keeps firing. */
  static final Duration BRIDGE = Duration.ofMinutes(2);

  /** The release whose RBAC the replicas run with (installed), and what Prometheus reads. */
  static final ChartInstall RELEASE =
      new ChartInstall(
          "alert-path",
          "alert-path",
          Map.of(
              "leaderElection.enabled", "true",
              "replicas", "2",
              "operator.labelAllowlist[0]", "team"));

  /** The owning team's label on the DaemonSet, and the receiver Alertmanager routes it to. */
  static final String TEAM = "gpu-platform";

  /** The seed story's namespace. */
  static final String NAMESPACE = "alert-seed";

  /** The same release rendered with its monitoring objects (their CRDs need not be installed). */
  static final ChartInstall MONITORED =
      new ChartInstall(
          RELEASE.release(),
          RELEASE.namespace(),
          Map.ofEntries(
              Map.entry("leaderElection.enabled", "true"),
              Map.entry("replicas", "2"),
              Map.entry("operator.labelAllowlist[0]", "team"),
              Map.entry("metrics.serviceMonitor.enabled", "true"),
              Map.entry("metrics.serviceMonitor.interval", SCRAPE.toSeconds() + "s"),
              // a cardinality cut a user might make: JOSDK's own series dropped at the scrape
              Map.entry("metrics.serviceMonitor.metricRelabelings[0].sourceLabels[0]", "__name__"),
              Map.entry("metrics.serviceMonitor.metricRelabelings[0].regex", "operator_sdk_.*"),
              Map.entry("metrics.serviceMonitor.metricRelabelings[0].action", "drop"),
              Map.entry("prometheusRule.enabled", "true"),
              Map.entry("prometheusRule.customRules.DaemonSetRolloutStalled.for", "0s"),
              Map.entry(
                  "prometheusRule.customRules.StallwatchOperatorDown.for",
                  OPERATOR_DOWN_FOR.toSeconds() + "s"),
              Map.entry("dashboards.enabled", "true")));

  static RealCluster cluster;
  static final List<AutoCloseable> started = new ArrayList<>();
  static final Map<String, OperatorProcess> replicas = new LinkedHashMap<>();
  static PromServer prometheus;
  static PromServer alertmanager;
  static WebhookReceiver receiver;
  static Map<String, Map<String, Object>> rendered;

  @BeforeAll
  static void start(RealCluster c) throws IOException {
    PromServer.Tools tools = PromServer.Tools.orSkip();
    cluster = c;
    // Fresh each run: Alertmanager's notification log would otherwise take a page of this run
    // for one it already sent in the last (same group, same receiver) and never send it.
    Path dir = MonitoringStack.emptied(cluster.dir().resolve("alert-path"));
    RELEASE.install(cluster);
    rendered = RenderedObjects.byKind(MONITORED.render(cluster));

    Path kubeconfig = RELEASE.serviceAccountKubeconfig(cluster, dir.resolve("operator.kubeconfig"));
    List<ServiceMonitorScrape.Target> targets = new ArrayList<>();
    for (String pod : List.of("alert-path-a", "alert-path-b")) {
      OperatorProcess p =
          OperatorProcess.start(
              kubeconfig,
              dir.resolve(pod + ".log"),
              pod,
              "--stall-after=" + OperatorProcess.STALL_AFTER,
              "--leader-election",
              "--leader-election-namespace=" + RELEASE.namespace(),
              "--label-allowlist=team");
      started.add(p);
      replicas.put(pod, p);
      targets.add(new ServiceMonitorScrape.Target("127.0.0.1:" + p.metricsPort(), pod));
    }

    MonitoringStack stack =
        MonitoringStack.start(
            tools,
            dir,
            EVALUATION,
            AlertPathRealClusterIT::amConfig,
            List.of(
                MonitoringStack.ruleFile(
                    dir.resolve("rules.yml"),
                    RenderedObjects.spec(rendered.get("PrometheusRule")).get("groups"))),
            List.of(
                ServiceMonitorScrape.job(
                    rendered.get("ServiceMonitor"), rendered.get("Service"), targets)));
    started.add(stack);
    receiver = stack.receiver;
    alertmanager = stack.alertmanager;
    prometheus = stack.prometheus;
    await("Prometheus scrapes both replicas, one leading")
        .atMost(Scenario.WAIT)
        .until(
            () ->
                prometheus.query("up == 1").size() == 2
                    && prometheus.query("stallwatch_leader == 1").size() == 1);
  }

  @AfterAll
  static void stop() throws Exception {
    for (int i = started.size() - 1; i >= 0; i--) {
      started.get(i).close();
    }
  }

  @Test
  void theSeedStallPagesSurvivesAFailoverResolvesAndAWatcherlessClusterPagesToo() {
    // What Prometheus scrapes is what the chart declares: its ServiceMonitor's named port leads
    // through the Service to the container port the operator serves /metrics on.
    assertThat(
            ServiceMonitorScrape.containerPort(
                rendered.get("ServiceMonitor"),
                rendered.get("Service"),
                rendered.get("Deployment")))
        .isEqualTo(8080);
    assertThat(operatorArgs()).contains("--metrics-port=8080", "--label-allowlist=team");
    assertThat(prometheus.query("{__name__=~\"operator_sdk_.*\"}"))
        .as("the ServiceMonitor's metricRelabelings applied")
        .isEmpty();

    Scenario seed = Scenario.create(cluster, NAMESPACE, 3, 4);
    seed.rollOut(DS, GOOD, b -> b.editMetadata().addToLabels("team", TEAM).endMetadata());
    cluster.kubectl("set", "image", "-n", NAMESPACE, "daemonset/" + DS, DS + "=" + BROKEN).ok();
    RolloutStall stall = seed.awaitActiveStall();
    Instant created = Instant.parse(stall.getMetadata().getCreationTimestamp());

    // 1. The page.
    Duration pageBound = SCRAPE.plus(EVALUATION).plus(GROUP_WAIT).plus(SLACK);
    WebhookReceiver.Notified page =
        awaitNotified("DaemonSetRolloutStalled", true, pageBound.plusSeconds(30));
    Duration toPage = Duration.between(created, page.received());
    System.out.printf(
        "alert path: RolloutStall created %s, DaemonSetRolloutStalled notified %s: %.1f s"
            + " (bound %d s)%n",
        created, page.received(), toPage.toMillis() / 1000.0, pageBound.toSeconds());
    assertThat(toPage).as("RolloutStall creation → notification").isLessThanOrEqualTo(pageBound);
    // Routed by the DaemonSet's own label, copied by --label-allowlist=team.
    assertThat(page.receiver()).isEqualTo(TEAM);
    assertThat(page.labels()).containsEntry("label_team", TEAM);
    assertThat(stall.getMetadata().getLabels()).containsEntry("team", TEAM);
    assertThat(page.labels())
        .containsEntry("namespace", "alert-seed")
        .containsEntry("daemonset", DS)
        .containsEntry("cause", stall.getStatus().cause())
        .containsEntry("cause", "ImagePull")
        .containsEntry("suspect", "NewRevision")
        .containsEntry("severity", "warning");
    assertThat(page.annotations().get("summary")).isEqualTo("DaemonSet rollout stalled.");
    assertThat(page.annotations().get("description"))
        .contains("DaemonSet alert-seed/" + DS, "cause ImagePull", "suspect NewRevision")
        .contains("kubectl rollout undo daemonset/" + DS + " -n alert-seed");
    String runbook = page.annotations().get("runbook_url");
    assertThat(runbook).startsWith("https://github.com/stallwatch/stallwatch/blob/main/");
    assertThat(RealCluster.PROJECT.resolve(runbook.substring(runbook.indexOf("/blob/main/") + 11)))
        .as("the runbook the page links to")
        .isRegularFile();

    // 2. The dashboard's queries, during the stall.
    assertEveryDashboardQueryAnswers(NAMESPACE, DS);

    // 3. The leader dies mid-stall: the standby takes the Lease and the same stall is exported
    // from its pod; the page is neither resolved nor sent again as new.
    String leader = holderPod();
    String standby =
        replicas.keySet().stream().filter(p -> !p.equals(leader)).findFirst().orElseThrow();
    replicas.get(leader).kill();
    await("the standby " + standby + " exports the stall, and Prometheus has it")
        .atMost(Scenario.WAIT)
        .until(
            () ->
                prometheus
                        .query(
                            "stallwatch_rollout_stalled{namespace=\""
                                + NAMESPACE
                                + "\",daemonset=\""
                                + DS
                                + "\",pod=\""
                                + standby
                                + "\"} == 1")
                        .size()
                    == 1);
    // a few more evaluations and group intervals for a resolve to show, were there one
    awaitQuiet(EVALUATION.plus(GROUP_INTERVAL).plusSeconds(3));
    assertThat(notified("DaemonSetRolloutStalled", false))
        .as("resolved during the failover")
        .isEmpty();

    // 4. Rolled back: the stall resolves, and so does the page (after the rule's 2m bridge).
    cluster.kubectl("rollout", "undo", "-n", NAMESPACE, "daemonset/" + DS).ok();
    List<RolloutStall> resolved = seed.awaitResolved();
    assertThat(resolved).hasSize(1);
    Instant resolvedAt = Instant.now();

    // 5. Meanwhile every replica dies: the watcher's own alert pages.
    replicas.get(standby).kill();
    Instant allDead = Instant.now();
    Duration downBound =
        OPERATOR_DOWN_FOR.plus(SCRAPE).plus(EVALUATION).plus(GROUP_WAIT).plus(SLACK);
    assertThat(notified("StallwatchOperatorDown", true))
        .as("StallwatchOperatorDown while a replica was leading or a failover ran")
        .isEmpty();
    WebhookReceiver.Notified down =
        awaitNotified("StallwatchOperatorDown", true, downBound.plusSeconds(30));
    Duration toDown = Duration.between(allDead, down.received());
    System.out.printf(
        "alert path: every replica killed %s, StallwatchOperatorDown notified %s: %.1f s (bound %d s)%n",
        allDead, down.received(), toDown.toMillis() / 1000.0, downBound.toSeconds());
    assertThat(toDown).isLessThanOrEqualTo(downBound);
    assertThat(down.annotations().get("runbook_url"))
        .endsWith("/docs/runbooks/StallwatchOperatorDown.md");

    Duration resolveBound = BRIDGE.plus(SCRAPE).plus(EVALUATION).plus(GROUP_INTERVAL).plus(SLACK);
    WebhookReceiver.Notified ok =
        awaitNotified("DaemonSetRolloutStalled", false, resolveBound.plusSeconds(30));
    Duration toResolved = Duration.between(resolvedAt, ok.received());
    System.out.printf(
        "alert path: RolloutStall resolved by %s, resolved notification %s: %.1f s (bound %d s)%n",
        resolvedAt, ok.received(), toResolved.toMillis() / 1000.0, resolveBound.toSeconds());
    assertThat(toResolved).isLessThanOrEqualTo(resolveBound);
    assertThat(ok.labels()).containsEntry("daemonset", DS).containsEntry("cause", "ImagePull");
    assertThat(notified("DaemonSetRolloutStalled", true))
        .as("one page for the one stall, failover included")
        .hasSize(1);
  }

  /**
   * Every panel target of the dashboard the chart ships — template variables replaced by the
   * stall's namespace and DaemonSet, {@code $__rate_interval} by 1m — returns a series, and every
   * metric it names is one Prometheus has from the operator (a query ending in {@code or vector(0)}
   * answers even without its metric).
   */
  /**
   * Series that exist only in a state this test's cluster is not in: the time left only while a
   * rollout progresses and its pace is known (absent during a stall), the paused flag only while an
   * Advanced DaemonSet's rollout is paused (this cluster has none; AdvancedDaemonSetOperatorIT
   * reads it).
   */
  static final Set<String> CONDITIONAL =
      Set.of("stallwatch_rollout_eta_seconds", "stallwatch_rollout_paused");

  static void assertEveryDashboardQueryAnswers(String namespace, String daemonSet) {
    JsonNode dashboard = dashboard();
    Map<String, String> vars =
        Map.of("$namespace", namespace, "$daemonset", daemonSet, "$__rate_interval", "1m");
    List<String> empty = new ArrayList<>();
    Set<String> metrics = new TreeSet<>();
    Pattern metric = Pattern.compile("\\bstallwatch_[a-z_]+");
    int targets = 0;
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        String expr = substitute(target.path("expr").asText(), vars);
        targets++;
        // Evaluated all the same (a query Prometheus refuses fails here), but a series that
        // exists only while a rollout progresses has none during the stall.
        boolean conditional = CONDITIONAL.stream().anyMatch(expr::contains);
        if (prometheus.query(expr).isEmpty() && !conditional) {
          empty.add(panel.path("title").asText() + ": " + expr);
        }
        Matcher m = metric.matcher(expr);
        while (m.find() && !conditional) {
          metrics.add(m.group());
        }
      }
    }
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      if (!"query".equals(variable.path("type").asText())) {
        continue;
      }
      // label_values(SELECTOR, LABEL): the series API with SELECTOR as match[]
      Matcher lv =
          Pattern.compile("label_values\\((.+),\\s*(\\w+)\\)")
              .matcher(substitute(variable.path("definition").asText(), vars));
      assertThat(lv.matches()).as(variable.toString()).isTrue();
      JsonNode values =
          prometheus
              .get(
                  "/api/v1/label/"
                      + lv.group(2)
                      + "/values?match[]="
                      + URLEncoder.encode(lv.group(1), StandardCharsets.UTF_8))
              .path("data");
      List<String> found = new ArrayList<>();
      values.forEach(v -> found.add(v.asText()));
      assertThat(found)
          .as("variable %s", variable.path("name").asText())
          .contains(lv.group(2).equals("namespace") ? namespace : daemonSet);
    }
    assertThat(targets).isGreaterThan(0);
    assertThat(empty).as("dashboard queries that returned no series").isEmpty();
    for (String name : metrics) {
      assertThat(prometheus.query("count({__name__=\"" + name + "\"})"))
          .as("the dashboard names %s: exported by the operator and scraped", name)
          .isNotEmpty();
    }
  }

  static String substitute(String expr, Map<String, String> vars) {
    String out = expr;
    // longest first: $__rate_interval before any shorter name it contains
    for (String name : vars.keySet().stream().sorted((a, b) -> b.length() - a.length()).toList()) {
      out = out.replace(name, vars.get(name));
    }
    assertThat(out).as("every template variable replaced").doesNotContain("$");
    return out;
  }

  /** The dashboard from the ConfigMap the chart renders (the same file as deploy/grafana/). */
  static JsonNode dashboard() {
    @SuppressWarnings("unchecked")
    Map<String, String> data = (Map<String, String>) rendered.get("ConfigMap").get("data");
    try {
      return new ObjectMapper().readTree(data.values().iterator().next());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String amConfig(WebhookReceiver receiver) {
    return """
        route:
          receiver: default
          group_by: [alertname, namespace, daemonset]
          group_wait: %ds
          group_interval: %ds
          repeat_interval: 1h
          routes:
            - receiver: %s
              matchers: ['label_team="%s"']
        receivers:
          - name: default
            webhook_configs:
              - url: %s
                send_resolved: true
          - name: %s
            webhook_configs:
              - url: %s
                send_resolved: true
        """
        .formatted(
            GROUP_WAIT.toSeconds(),
            GROUP_INTERVAL.toSeconds(),
            TEAM,
            TEAM,
            receiver.url("default"),
            TEAM,
            receiver.url(TEAM));
  }

  static WebhookReceiver.Notified awaitNotified(String alert, boolean firing, Duration atMost) {
    try {
      return await(alert + (firing ? " firing" : " resolved") + " at the webhook receiver")
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> notified(alert, firing), n -> !n.isEmpty())
          .get(0);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(
          e.getMessage()
              + "\nnotified so far: "
              + receiver.notified()
              + "\nPrometheus' alerts: "
              + prometheus.get("/api/v1/alerts").path("data")
              + "\nAlertmanager's alerts: "
              + alertmanager.get("/api/v2/alerts"),
          e);
    }
  }

  /**
   * The notifications of {@code alert}; for the stall alert only this test's namespace (the
   * replicas watch every namespace of the shared cluster, where other tests leave stalls).
   */
  static List<WebhookReceiver.Notified> notified(String alert, boolean firing) {
    return receiver.notified().stream()
        .filter(n -> alert.equals(n.alertname()) && n.firing() == firing)
        .filter(
            n ->
                !alert.equals("DaemonSetRolloutStalled")
                    || NAMESPACE.equals(n.labels().get("namespace")))
        .toList();
  }

  /** Lets {@code d} pass (no condition to wait for: nothing should happen meanwhile). */
  static void awaitQuiet(Duration d) {
    Instant until = Instant.now().plus(d);
    await().atMost(d.plusSeconds(1)).until(() -> !Instant.now().isBefore(until));
  }

  static String holderPod() {
    Lease lease =
        cluster
            .admin()
            .leases()
            .inNamespace(RELEASE.namespace())
            .withName(OperatorSettings.LEASE_NAME)
            .get();
    String holder = lease.getSpec().getHolderIdentity();
    return holder.substring(0, holder.lastIndexOf('_'));
  }

  @SuppressWarnings("unchecked")
  static List<String> operatorArgs() {
    Map<String, Object> podSpec =
        RenderedObjects.map(
            RenderedObjects.map(
                RenderedObjects.map(rendered.get("Deployment"), "spec"), "template"),
            "spec");
    return (List<String>) RenderedObjects.list(podSpec, "containers").get(0).get("args");
  }
}
