package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.deploy.NativeHelm;
import dev.stallwatch.operator.OperatorSettings;
import dev.stallwatch.operator.StartupCheck;
import dev.stallwatch.rollout.MetadataKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Least privilege, exactly: the verbs the operator's ServiceAccount is granted (the chart's
 * ClusterRole and Roles, auto-rollback, leader election and DaemonSet conditions on) are the verbs
 * it uses, as the API server's audit log records them — and the verbs {@link StartupCheck} asks
 * for. The run walks every path that makes a request of its own: a stall (create, status update,
 * Event), the auto-rollback (get and patch of the DaemonSet), the Stalled condition (get of the
 * DaemonSet, patch of its status), the resolution and its deletion after the TTL, a DaemonSet whose
 * pod the controller cannot create (a ValidatingAdmissionPolicy refuses it; the operator lists the
 * controller's FailedCreate Events), and leader election (the Lease).
 *
 * <p>On the shared cluster, whose API server audits this release's ServiceAccount and no other user
 * ({@link RealClusterExtension}); the log is read from this test's start on.
 */
@NativeHelm
@ExtendWith(RealClusterExtension.class)
class LeastPrivilegeRealClusterIT {
  private static final String NAMESPACE = "least-privilege";
  private static final ChartInstall RELEASE =
      new ChartInstall(
          "least-privilege",
          "least-privilege-system",
          Map.of(
              "autoRollback.enabled",
              "true",
              "leaderElection.enabled",
              "true",
              "daemonSetConditions.enabled",
              "true"));

  /** The ServiceAccount the shared clusters' API servers audit. */
  static final String USER =
      "system:serviceaccount:" + RELEASE.namespace() + ":" + RELEASE.fullname();

  /**
   * Granted, and used only after a fault: a create or status write whose answer was lost (a GOAWAY,
   * the client's retry meeting 409) is read back (StallWritesTest covers that path; no run of this
   * test loses an answer).
   */
  private static final Set<String> ON_FAULT = Set.of("get rolloutstalls");

  /**
   * Requests every authenticated user may make (the default roles system:basic-user and
   * system:discovery): the access reviews of {@link StartupCheck}, the rules review JOSDK's leader
   * election makes at start, discovery and /version.
   */
  private static final Set<String> EVERYONE =
      Set.of("create selfsubjectaccessreviews", "create selfsubjectrulesreviews");

  private RealCluster cluster;
  private OperatorProcess operator;

  @AfterEach
  void stop() {
    if (operator != null) {
      operator.close();
    }
    if (cluster != null) {
      // The admission policy would refuse pods of this namespace for every later class.
      cluster
          .kubectl(
              "delete",
              "--ignore-not-found",
              "validatingadmissionpolicybinding,validatingadmissionpolicy",
              "refuse-forbidden")
          .ok();
    }
  }

  @Test
  void theServiceAccountUsesExactlyTheVerbsItIsGranted(RealCluster shared) throws IOException {
    cluster = shared;
    // The audit log's clock is this machine's; a second's margin for the timestamps' rounding.
    Instant begun = Instant.now().minusSeconds(1);
    String rendered = RELEASE.render(cluster);
    RELEASE.install(cluster);
    Path kubeconfig =
        RELEASE.serviceAccountKubeconfig(cluster, cluster.dir().resolve("least-privilege.kc"));
    operator =
        OperatorProcess.start(
            kubeconfig,
            cluster.dir().resolve("least-privilege-operator.log"),
            "least-privilege-operator",
            "--stall-after=" + OperatorProcess.STALL_AFTER,
            "--resolved-ttl=5s",
            "--auto-rollback",
            "--auto-rollback-after=5s",
            "--daemonset-conditions",
            "--leader-election",
            "--leader-election-namespace=" + RELEASE.namespace());
    await("operator ready")
        .atMost(Duration.ofMinutes(1))
        .until(() -> operator.ready() || !operator.alive());
    assertThat(operator.alive()).as("operator running:%n%s", operator.output()).isTrue();

    Scenario s = Scenario.create(cluster, NAMESPACE, 3, 0);
    s.rollOut(
        "agent",
        "example.com/agent:v1",
        b -> b.editMetadata().addToAnnotations(MetadataKeys.AUTO_ROLLBACK, "true").endMetadata());

    // A stall, rolled back by the operator, resolved, and deleted once its TTL has passed.
    FaultBed.setImage(cluster, s, "agent", Scenario.UNPULLABLE + "agent:v2");
    String stalled = s.awaitActiveStall().getMetadata().getName();
    await("the stall rolled back, resolved and deleted after its TTL")
        .atMost(Duration.ofMinutes(2))
        .until(() -> s.stalls().stream().noneMatch(x -> x.getMetadata().getName().equals(stalled)));

    // A pod the DaemonSet controller may not create: the operator reads its FailedCreate Events.
    refusePodsOf("forbidden");
    FaultBed.setImage(cluster, s, "agent", "example.com/agent:forbidden");
    await("a FailedCreate stall")
        .atMost(Duration.ofMinutes(2))
        .until(
            () ->
                s.stalls().stream()
                    .map(RolloutStall::getStatus)
                    .anyMatch(st -> st != null && "FailedCreate".equals(st.cause())));
    operator.close();
    operator = null;

    Set<String> used =
        new TreeSet<>(
            AuditLog.countsByVerb(cluster.dir().resolve("logs/audit.log"), begun, Instant.MAX)
                .keySet());
    // Non-resource requests (discovery, /version) have no resource: every user may make them.
    used.removeIf(k -> k.endsWith(" "));
    used.removeAll(EVERYONE);
    Set<String> granted = granted(rendered);
    Set<String> expected = new TreeSet<>(granted);
    expected.removeAll(ON_FAULT);
    assertThat(granted).as("granted by the chart").containsAll(ON_FAULT);
    assertThat(used).as("requests of %s in the audit log", USER).isEqualTo(expected);
    assertThat(asked()).as("what StartupCheck asks for").isEqualTo(granted);
    ReliabilityReport.row(
        "least privilege: the ServiceAccount's requests in the API server's audit log",
        "the verbs used are the verbs granted (auto-rollback, leader election and DaemonSet"
            + " conditions on), save "
            + String.join(", ", ON_FAULT)
            + " (after a lost answer only); StartupCheck asks for the same",
        used.size() + " verb/resource pairs used, " + granted.size() + " granted",
        "0 / 0");
  }

  /**
   * A ValidatingAdmissionPolicy refusing pods of {@link #NAMESPACE} whose image has {@code word}.
   */
  private void refusePodsOf(String word) {
    String policy =
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata:
          name: refuse-%1$s
        spec:
          failurePolicy: Fail
          matchConstraints:
            resourceRules:
            - apiGroups: [""]
              apiVersions: ["v1"]
              operations: ["CREATE"]
              resources: ["pods"]
          validations:
          - expression: "!object.spec.containers.exists(c, c.image.contains('%1$s'))"
            message: "images named %1$s are not admitted here"
        ---
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicyBinding
        metadata:
          name: refuse-%1$s
        spec:
          policyName: refuse-%1$s
          validationActions: [Deny]
          matchResources:
            namespaceSelector:
              matchLabels:
                kubernetes.io/metadata.name: %2$s
        """
            .formatted(word, NAMESPACE);
    cluster.kubectlWithInput(policy, "apply", "-f", "-").ok();
    // The policy takes effect a moment after it is stored: wait until a dry run is refused.
    await("the admission policy in effect")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                cluster
                        .kubectl(
                            "run",
                            "probe",
                            "-n",
                            NAMESPACE,
                            "--image=example.com/" + word,
                            "--dry-run=server")
                        .code()
                    != 0);
  }

  /** Every verb on every resource the chart's Roles and ClusterRoles grant the ServiceAccount. */
  private static Set<String> granted(String rendered) throws IOException {
    Set<String> granted = new TreeSet<>();
    var yaml =
        new com.fasterxml.jackson.databind.ObjectMapper(
            new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
    for (String doc : rendered.split("(?m)^---\\s*$")) {
      if (doc.replaceAll("(?m)^#.*$", "").isBlank()) {
        continue;
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> object = yaml.readValue(doc, Map.class);
      String kind = object == null ? null : (String) object.get("kind");
      String name =
          kind == null ? "" : (String) RenderedObjects.map(object, "metadata").get("name");
      if (!"Role".equals(kind) && !"ClusterRole".equals(kind) || name.endsWith("-view")) {
        continue; // the view role is for people, not the ServiceAccount
      }
      for (Map<String, Object> rule : RenderedObjects.list(object, "rules")) {
        for (String resource : RenderedObjects.strings(rule.get("resources"))) {
          for (String verb : RenderedObjects.strings(rule.get("verbs"))) {
            granted.add(verb + " " + resource);
          }
        }
      }
    }
    return granted;
  }

  /** What {@link StartupCheck} asks the API server for, with these settings. */
  private static Set<String> asked() {
    OperatorSettings settings =
        new OperatorSettings(
                Set.of(),
                Duration.ofSeconds(10),
                Duration.ofSeconds(5),
                8080,
                true,
                RELEASE.namespace(),
                true,
                Duration.ofSeconds(5))
            .withDaemonSetConditions(true);
    Set<String> asked = new TreeSet<>();
    List<StartupCheck.Need> needs = StartupCheck.needsWithLease(settings);
    needs.forEach(n -> asked.add(n.verb() + " " + n.resource()));
    return asked;
  }
}
