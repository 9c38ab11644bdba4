package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.deploy.NativeHelm;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Throttling by API Priority and Fairness. A PriorityLevelConfiguration with no share of the
 * server's concurrency ({@code nominalConcurrencyShares: 0}, nothing lent or borrowed, {@code
 * limitResponse: Reject}) executes one request at a time (the server lets a request through when
 * nothing of the level executes) and rejects every other with 429. Two FlowSchemas send requests
 * there: the operator's ServiceAccount, and a load ServiceAccount whose clients keep that one seat
 * busy — so the operator's requests find it taken and are refused. The healthy DaemonSet is broken
 * as the throttling begins; its stall falls due under throttling; after 20 s the FlowSchemas go.
 * The operator must back off, catch up, and record nothing twice. The 429s the operator got are
 * read from the API server's metrics, by FlowSchema.
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class ThrottlingFaultIT {
  static final String LEVEL = "stallwatch-throttled";
  static final String OPERATOR_FLOW = "stallwatch-throttled";
  static final String LOAD_FLOW = "stallwatch-throttle-load";
  static final String LOAD_SA = "throttle-load";
  static final Duration FAULT = Duration.ofSeconds(20);
  static final int LOAD_CLIENTS = 6;

  static final String LEVEL_YAML =
      """
      apiVersion: flowcontrol.apiserver.k8s.io/v1
      kind: PriorityLevelConfiguration
      metadata:
        name: %s
      spec:
        type: Limited
        limited:
          nominalConcurrencyShares: 0
          lendablePercent: 0
          borrowingLimitPercent: 0
          limitResponse:
            type: Reject
      """
          .formatted(LEVEL);

  static String flow(String name, String serviceAccount, String namespace) {
    return """
        ---
        apiVersion: flowcontrol.apiserver.k8s.io/v1
        kind: FlowSchema
        metadata:
          name: %s
        spec:
          priorityLevelConfiguration:
            name: %s
          matchingPrecedence: 50
          distinguisherMethod:
            type: ByUser
          rules:
            - subjects:
                - kind: ServiceAccount
                  serviceAccount:
                    name: %s
                    namespace: %s
              resourceRules:
                - verbs: ["*"]
                  apiGroups: ["*"]
                  resources: ["*"]
                  clusterScope: true
                  namespaces: ["*"]
              nonResourceRules:
                - verbs: ["*"]
                  nonResourceURLs: ["*"]
        """
        .formatted(name, LEVEL, serviceAccount, namespace);
  }

  RealCluster cluster;
  OperatorProcess operator;
  final AtomicBoolean loading = new AtomicBoolean();
  final List<Thread> load = new ArrayList<>();

  @AfterEach
  void stop() throws InterruptedException {
    stopLoad();
    if (cluster != null) {
      unthrottle();
    }
    if (operator != null) {
      operator.close();
    }
  }

  @Test
  void throttledWith429sTheOperatorBacksOffAndCatchesUpLosingAndDuplicatingNothing(RealCluster c)
      throws IOException, InterruptedException {
    cluster = c;
    operator = OperatorProcess.asChartServiceAccount(cluster, "throttled-operator");
    FaultBed bed = FaultBed.stallInProgress(cluster, "throttled");
    String ns = bed.namespace();
    cluster.kubectl("create", "serviceaccount", LOAD_SA, "-n", ns).ok();
    cluster
        .kubectl(
            "create",
            "clusterrolebinding",
            LOAD_SA + "-view",
            "--clusterrole=view",
            "--serviceaccount=" + ns + ":" + LOAD_SA)
        .ok();
    Path loadConfig =
        cluster.serviceAccountKubeconfig(
            ns, LOAD_SA, cluster.dir().resolve("throttle-load.kubeconfig"));
    long operatorRejectedBefore = rejected(OPERATOR_FLOW);

    cluster
        .kubectlWithInput(
            LEVEL_YAML
                + flow(
                    OPERATOR_FLOW,
                    OperatorProcess.DEFAULT_RELEASE.fullname(),
                    OperatorProcess.DEFAULT_RELEASE.namespace())
                + flow(LOAD_FLOW, LOAD_SA, ns),
            "apply",
            "-f",
            "-")
        .ok();
    Instant throttled = Instant.now();
    AtomicLong loadRequests = startLoad(loadConfig);
    bed.breakHealthy("v2");
    long left = FAULT.toMillis() - Duration.between(throttled, Instant.now()).toMillis();
    if (left > 0) {
      await("the throttling lasts " + FAULT)
          .atMost(FAULT.plusSeconds(5))
          .pollDelay(Duration.ofMillis(left))
          .until(() -> true);
    }
    boolean recordedUnderThrottling =
        bed.active(FaultBed.HEALTHY).stream()
            .anyMatch(x -> bed.healthyRevision.equals(x.getSpec().revision()));
    long operatorRejected = rejected(OPERATOR_FLOW) - operatorRejectedBefore;
    long loadRejected = rejected(LOAD_FLOW);
    stopLoad();
    unthrottle();
    Instant back = Instant.now();

    assertThat(operatorRejected)
        .as("requests of the operator refused 429 by APF while throttled")
        .isPositive();
    Duration recovery = bed.awaitHealthyStall(back);
    bed.assertIntact();
    bed.assertHealthyStalledOnce();
    assertThat(operator.alive()).as(operator.output()).isTrue();
    ReliabilityReport.row(
        "throttling: APF gives the operator's ServiceAccount a level of 0 shares (one request at a"
            + " time, the rest 429), kept busy by another client, for 20 s",
        operatorRejected
            + " operator requests refused 429 (apiserver_flowcontrol_rejected_requests_total; the"
            + " load client "
            + loadRejected
            + " of "
            + loadRequests.get()
            + "); the operator retries with backoff, its watches stay open; the stall that fell"
            + " due meanwhile recorded once"
            + (recordedUnderThrottling ? ", already under throttling" : " after the throttling"),
        recordedUnderThrottling
            ? "0 s: recorded while throttled"
            : ReliabilityReport.seconds(recovery) + " after the FlowSchemas are removed",
        bed.lostAndDuplicated());
  }

  /** Clients of the load ServiceAccount listing pods without pause (no retries: 429 is fine). */
  private AtomicLong startLoad(Path kubeconfig) throws IOException {
    Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
    config.setRequestRetryBackoffLimit(0);
    AtomicLong requests = new AtomicLong();
    loading.set(true);
    for (int i = 0; i < LOAD_CLIENTS; i++) {
      Thread t =
          new Thread(
              () -> {
                try (KubernetesClient client =
                    new KubernetesClientBuilder().withConfig(config).build()) {
                  while (loading.get()) {
                    requests.incrementAndGet();
                    try {
                      client.pods().inAnyNamespace().list();
                    } catch (RuntimeException refused) {
                      // 429: the seat was taken, which is the point
                    }
                  }
                }
              },
              "throttle-load-" + i);
      t.setDaemon(true);
      t.start();
      load.add(t);
    }
    return requests;
  }

  private void stopLoad() throws InterruptedException {
    loading.set(false);
    for (Thread t : load) {
      t.join(10_000);
    }
    load.clear();
  }

  private void unthrottle() {
    cluster
        .kubectl(
            "delete",
            "--ignore-not-found",
            "flowschema/" + OPERATOR_FLOW,
            "flowschema/" + LOAD_FLOW,
            "prioritylevelconfiguration/" + LEVEL)
        .ok();
    cluster.kubectl("delete", "--ignore-not-found", "clusterrolebinding/" + LOAD_SA + "-view").ok();
  }

  /** Requests the API server refused for {@code flowSchema} so far, from its metrics. */
  private long rejected(String flowSchema) {
    String metrics = cluster.kubectl("get", "--raw", "/metrics").ok().output();
    return metrics
        .lines()
        .filter(l -> l.startsWith("apiserver_flowcontrol_rejected_requests_total{"))
        .filter(l -> l.contains("flow_schema=\"" + flowSchema + "\""))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }
}
