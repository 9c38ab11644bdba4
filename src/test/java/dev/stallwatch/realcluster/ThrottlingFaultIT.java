package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.deploy.NativeHelm;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Throttling by API Priority and Fairness. A PriorityLevelConfiguration with no share of the
 * server's concurrency ({@code nominalConcurrencyShares: 0}, nothing lent or borrowed, {@code
 * limitResponse: Reject}) executes one request at a time (the server lets a request through when
 * nothing of the level executes) and rejects every other with 429. Two FlowSchemas send requests
 * there: the operator's ServiceAccount, and a load ServiceAccount whose one request holds that seat
 * for the whole fault, waiting in a validating webhook ({@link SeatHolder}) — so every request the
 * operator makes meanwhile is refused. The healthy DaemonSet is broken as the throttling begins;
 * its stall falls due under throttling; 3 s later (once the operator has been refused) the seat is
 * let go and the FlowSchemas go. The operator must back off, catch up, and record nothing twice.
 * The 429s the operator got are read from the API server's metrics, by FlowSchema, and asserted
 * before the recovery is.
 */
@ExtendWith(RealClusterExtension.class)
@NativeHelm
class ThrottlingFaultIT {
  static final String LEVEL = "stallwatch-throttled";
  static final String OPERATOR_FLOW = "stallwatch-throttled";
  static final String LOAD_FLOW = "stallwatch-throttle-load";
  static final String LOAD_SA = "throttle-load";

  /** How long the seat stays held after the healthy DaemonSet's stall falls due. */
  static final Duration HELD_PAST_DUE = Duration.ofSeconds(3);

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
  SeatHolder seat;

  @AfterEach
  void stop() {
    try {
      if (seat != null) {
        seat.close();
      }
      if (cluster != null) {
        unthrottle();
      }
    } finally {
      if (operator != null) {
        operator.close();
      }
    }
  }

  @Test
  void throttledWith429sTheOperatorBacksOffAndCatchesUpLosingAndDuplicatingNothing(RealCluster c)
      throws IOException, InterruptedException, GeneralSecurityException {
    cluster = c;
    operator = OperatorProcess.asChartServiceAccount(cluster, "throttled-operator");
    FaultBed bed = FaultBed.stallInProgress(cluster, "throttled");
    String ns = bed.namespace();
    cluster.kubectl("create", "serviceaccount", LOAD_SA, "-n", ns).ok();
    cluster
        .kubectl(
            "create",
            "rolebinding",
            LOAD_SA + "-edit",
            "--clusterrole=edit",
            "--serviceaccount=" + ns + ":" + LOAD_SA,
            "-n",
            ns)
        .ok();
    Path loadConfig =
        cluster.serviceAccountKubeconfig(
            ns, LOAD_SA, cluster.dir().resolve("throttle-load.kubeconfig"));
    long operatorRejectedBefore = rejected(OPERATOR_FLOW);
    seat = SeatHolder.start(cluster);

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
    // The API server digests FlowSchemas asynchronously; until it has, requests keep their old
    // level. It marks each one it has digested with a Dangling condition.
    for (String flow : List.of(OPERATOR_FLOW, LOAD_FLOW)) {
      await("FlowSchema " + flow + " digested by the API server")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  cluster
                      .kubectl(
                          "get",
                          "flowschema",
                          flow,
                          "-o",
                          "jsonpath={.status.conditions[?(@.type==\"Dangling\")].status}")
                      .output()
                      .trim()
                      .equals("False"));
    }
    seat.take(loadConfig, ns);
    assertThat(executing(LOAD_FLOW))
        .as("requests of %s executing in level %s: the held one", LOAD_FLOW, LEVEL)
        .isEqualTo(1);
    Instant throttled = Instant.now();
    bed.breakHealthy("v2");
    // Held until the healthy DaemonSet's stall has been due for a while and the operator has been
    // refused at least once (its write of that stall, at the latest), within the webhook's limit.
    Instant due = bed.healthyStallDue(bed.healthyRevision);
    Instant limit = throttled.plus(SeatHolder.LONGEST).minusSeconds(2);
    await(
            "the operator refused while the stall of "
                + FaultBed.HEALTHY
                + " (due "
                + due
                + ") falls due"
                + " under throttling (from "
                + throttled
                + ", at most until "
                + limit
                + ")")
        .atMost(Duration.between(Instant.now(), limit))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                Instant.now().isAfter(due.plus(HELD_PAST_DUE))
                    && rejected(OPERATOR_FLOW) > operatorRejectedBefore);
    Duration held = Duration.between(throttled, Instant.now());
    boolean recordedUnderThrottling =
        bed.active(FaultBed.HEALTHY).stream()
            .anyMatch(x -> bed.healthyRevision.equals(x.getSpec().revision()));
    long operatorRejected = rejected(OPERATOR_FLOW) - operatorRejectedBefore;
    seat.release();
    unthrottle();
    Instant back = Instant.now();

    assertThat(seat.held()).as("requests that held the level's seat (one, all along)").isEqualTo(1);
    assertThat(operatorRejected)
        .as("requests of the operator refused 429 by APF while throttled")
        .isPositive();
    Duration recovery = bed.awaitHealthyStall(back);
    bed.assertIntact();
    bed.assertHealthyStalledOnce();
    assertThat(operator.alive()).as(operator.output()).isTrue();
    ReliabilityReport.row(
        "throttling: APF gives the operator's ServiceAccount a level of 0 shares (one request at a"
            + " time, the rest 429) whose seat another client's request holds until a stall has"
            + " been due for 3 s",
        "seat held "
            + ReliabilityReport.seconds(held)
            + "; "
            + operatorRejected
            + " operator requests refused 429 (apiserver_flowcontrol_rejected_requests_total);"
            + " the operator retries with backoff, its watches stay open; the stall that fell"
            + " due meanwhile recorded once"
            + (recordedUnderThrottling ? ", already under throttling" : " after the throttling"),
        recordedUnderThrottling
            ? "0 s: recorded while throttled"
            : ReliabilityReport.seconds(recovery) + " after the FlowSchemas are removed",
        bed.lostAndDuplicated());
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
  }

  /** Requests of {@code flowSchema} executing in {@link #LEVEL} now, from the server's metrics. */
  private long executing(String flowSchema) {
    return metric("apiserver_flowcontrol_current_executing_requests{", flowSchema);
  }

  /** Requests the API server refused for {@code flowSchema} so far, from its metrics. */
  private long rejected(String flowSchema) {
    return metric("apiserver_flowcontrol_rejected_requests_total{", flowSchema);
  }

  /** The sum of the series of {@code metric} (name and opening brace) for {@code flowSchema}. */
  private long metric(String metric, String flowSchema) {
    String metrics = cluster.kubectl("get", "--raw", "/metrics").ok().output();
    return metrics
        .lines()
        .filter(l -> l.startsWith(metric))
        .filter(l -> l.contains("flow_schema=\"" + flowSchema + "\""))
        .filter(l -> l.contains("priority_level=\"" + LEVEL + "\""))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }
}
