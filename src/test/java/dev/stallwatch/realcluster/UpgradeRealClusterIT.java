package dev.stallwatch.realcluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stallwatch.crd.RolloutStall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An upgrade with stalls in flight, as a user runs it with the helm CLI. The release upgraded from
 * is {@link #PREVIOUS} ({@code PREVIOUS_RELEASE} in versions.env): the last commit before the
 * RolloutStall CRD gained its suspect fields, so the upgrade crosses a CRD change. Its jar, chart
 * and CRD are built from this clone's history by {@code previous-build.sh} and the helm CLI by
 * {@code helm-build.sh} (helm-java has no rollback), both cached.
 *
 * <ol>
 *   <li>{@code helm install} of the previous chart (its CRD from the chart's crds/), its operator
 *       running; two stalls recorded.
 *   <li>{@code helm upgrade} to this commit's chart: Helm never upgrades CRDs, so the old one
 *       stays. This commit's operator, started beside the old one as a Deployment's rollout would,
 *       says in one line which fields the CRD lacks and what to apply, and exits 3 before writing
 *       anything; the old operator keeps the record.
 *   <li>The CRD applied as that line says, the old operator stopped and the new one started: every
 *       stall keeps its uid, {@code stalledSince} and one Event, gains the new fields, and a stall
 *       arising now is recorded once.
 *   <li>{@code helm rollback} and the previous operator again, under the newer CRD (Helm does not
 *       roll CRDs back): no stall lost, none duplicated. (The previous release's types refuse the
 *       newer fields, so it exits at start-up; this release's ignore them.)
 *   <li>Forward again, and a rollback to this release simulated: the CRD and every stall given a
 *       status field of a later release; this operator reads past it and keeps every record.
 * </ol>
 *
 * <p>The operator runs as the release's ServiceAccount outside the cluster (kwok plays the
 * Deployment's pod): each version's jar stands for the image the Deployment rolls to.
 */
class UpgradeRealClusterIT {
  /** The release upgraded from (versions.env). */
  static final String PREVIOUS = RealCluster.pinned("PREVIOUS_RELEASE");

  private static final String RELEASE = "stallwatch";
  private static final String NAMESPACE = "stallwatch-system";

  private RealCluster cluster;
  private Path helm;
  private Path kubeconfig;
  private final List<OperatorProcess> operators = new ArrayList<>();

  @AfterEach
  void stop() {
    operators.forEach(OperatorProcess::close);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void stallsKeepTheirIdentityThroughAnUpgradeAnOldCrdAndARollback() {
    // A shallow clone lacks the commit (.ci/run deepens it first and says so when it cannot).
    org.junit.jupiter.api.Assumptions.assumeTrue(
        RealCluster.Result.run(
                    List.of(
                        "git",
                        "-C",
                        RealCluster.PROJECT.toString(),
                        "cat-file",
                        "-e",
                        PREVIOUS + "^{commit}"),
                    Map.of(),
                    Duration.ofSeconds(30))
                .code()
            == 0,
        "commit " + PREVIOUS + " is not in this clone's history: git fetch --unshallow");
    Path previous = RealCluster.builtBy("previous-build.sh", PREVIOUS);
    helm = RealCluster.builtBy("helm-build.sh");
    cluster =
        RealClusterExtension.separate(
            "upgrade",
            "it installs the previous release's RolloutStall CRD, then one with a later"
                + " release's field, which the other classes would meet");
    Scenario a = FaultBed.rolledOut(cluster, "up-a");
    Scenario b = FaultBed.rolledOut(cluster, "up-b");

    helm("install", RELEASE, previous.resolve("chart").toString(), "--create-namespace");
    kubeconfig =
        cluster.serviceAccountKubeconfig(
            NAMESPACE, RELEASE, cluster.dir().resolve("upgrade.kubeconfig"));
    OperatorProcess old = start(previous.resolve("stallwatch.jar"), "previous");
    FaultBed bedA = FaultBed.stallInProgress(cluster, a);
    FaultBed bedB = FaultBed.stallInProgress(cluster, b);

    // helm upgrade: the chart of this commit, the CRD of the previous one.
    helm("upgrade", RELEASE, ChartInstall.CHART.toString());
    assertThat(servedStatusFields()).doesNotContain("suspect");
    Instant started = Instant.now();
    OperatorProcess refused = launch(OperatorProcess.JAR, "current-old-crd");
    await("the new operator's verdict on the old CRD")
        .atMost(Duration.ofMinutes(1))
        .until(() -> !refused.alive());
    Duration toVerdict = Duration.between(started, Instant.now());
    assertThat(refused.exitCode()).as(refused.output()).isEqualTo(3);
    List<String> errors = refused.output().lines().filter(l -> l.startsWith("error:")).toList();
    assertThat(errors)
        .as(refused.output())
        .singleElement()
        .asString()
        .startsWith(
            "error: the RolloutStall CRD in the cluster (rolloutstalls.stallwatch.dev) is older"
                + " than this operator: its schema lacks spec.daemonSetAPIVersion,"
                + " spec.daemonSetKind, status.nodes[].suspect, status.rollbackWithheld,"
                + " status.suspect and 1 more,");
    assertThat(refused.output().lines())
        .noneMatch(l -> l.contains(" ERROR ") || l.startsWith("\tat "));
    assertThat(old.alive()).as("the previous operator, still running").isTrue();
    bedA.assertIntact();
    bedB.assertIntact();
    ReliabilityReport.row(
        "upgrade: helm upgrade to this chart leaves the previous CRD (Helm never upgrades CRDs)",
        "the new operator names the 6 fields the CRD lacks and the command to apply, in one line,"
            + " and exits 3 before writing; the previous operator keeps running, every stall"
            + " kept",
        ReliabilityReport.seconds(toVerdict) + " from start to exit",
        bedA.lostAndDuplicated());

    // The CRD as the line says; the Deployment's rollout replaces the old operator.
    cluster.kubectl(applyCommand(errors.get(0))).ok();
    await("the served CRD with the new fields")
        .atMost(Duration.ofSeconds(30))
        .until(() -> servedStatusFields().contains("suspect"));
    old.close();
    started = Instant.now();
    start(OperatorProcess.JAR, "current");
    await("the new operator's fields on both stalls")
        .atMost(Duration.ofMinutes(1))
        .until(() -> suspected(bedA) && suspected(bedB));
    Duration toFields = Duration.between(started, Instant.now());
    bedA.assertIntact();
    bedB.assertIntact();
    FaultBed late = FaultBed.untouched(cluster, a);
    late.breakHealthy("v2");
    late.awaitHealthyStall(Instant.now());
    late.assertHealthyStalledOnce();
    ReliabilityReport.row(
        "upgrade: the CRD applied, then the operator of this commit in place of the previous",
        "every stall keeps its uid, stalledSince and one Event and gains the new status fields;"
            + " a stall arising after the upgrade recorded once",
        ReliabilityReport.seconds(toFields) + " until both stalls carry the new fields",
        bedA.lostAndDuplicated());

    // helm rollback: the previous chart and operator, under the newer CRD. That release's types
    // refuse fields they do not know (fixed from this commit on: ForwardCompatibilityTest), so it
    // cannot start on the stalls the newer one wrote; the record must survive that.
    helm("rollback", RELEASE, "1");
    operators.get(operators.size() - 1).close();
    OperatorProcess back = launch(previous.resolve("stallwatch.jar"), "previous-again");
    await("the previous operator on the newer stalls")
        .atMost(Duration.ofMinutes(1))
        .until(() -> !back.alive() || back.ready());
    boolean previousRefused = !back.alive();
    if (previousRefused) {
      assertThat(back.output()).contains("UnrecognizedPropertyException");
    } else {
      back.close();
    }
    bedA.assertIntact();
    bedB.assertIntact();
    late.assertHealthyStalledOnce();
    assertThat(cluster.admin().resources(RolloutStall.class).inAnyNamespace().list().getItems())
        .as("Active RolloutStalls after the rollback")
        .filteredOn(s -> s.getStatus() != null && s.getStatus().active())
        .hasSize(3);
    ReliabilityReport.row(
        "upgrade: helm rollback to the previous chart and operator (the newer CRD stays)",
        (previousRefused
                ? "the previous release cannot read the newer stalls (its types refuse unknown"
                    + " fields; this release ignores them) and exits at start-up; "
                : "")
            + "every stall keeps its uid, stalledSince and one Event; none lost, none added",
        previousRefused ? "—" : "the previous operator ran",
        bedA.lostAndDuplicated());

    // This release rolled back to: forward again, then stalls and a CRD carrying a field of a
    // later release, as a rollback from that release leaves them. This operator reads past it.
    helm("upgrade", RELEASE, ChartInstall.CHART.toString());
    laterField();
    OperatorProcess forward = start(OperatorProcess.JAR, "current-under-later");
    await().pollDelay(Duration.ofSeconds(20)).atMost(Duration.ofSeconds(21)).until(() -> true);
    assertThat(forward.alive()).as(forward.output()).isTrue();
    assertThat(forward.output().lines())
        .noneMatch(l -> l.contains(" WARN ") || l.contains(" ERROR "));
    bedA.assertIntact();
    bedB.assertIntact();
    late.assertHealthyStalledOnce();
    ReliabilityReport.row(
        "upgrade: this release under the CRD and stalls of a later one (a rollback to it)",
        "a status field it does not know is read past, not refused; every stall keeps its uid,"
            + " stalledSince and one Event",
        "20 s watched",
        bedA.lostAndDuplicated());
  }

  /** A status field of a later release: in the CRD's schema and on every stall. */
  private void laterField() {
    String field = "fieldOfALaterRelease";
    crd()
        .edit(
            crd -> {
              var status =
                  crd.getSpec()
                      .getVersions()
                      .get(0)
                      .getSchema()
                      .getOpenAPIV3Schema()
                      .getProperties()
                      .get("status");
              status
                  .getProperties()
                  .put(
                      field,
                      new io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder()
                          .withType("string")
                          .build());
              return crd;
            });
    await("the CRD with the later field")
        .atMost(Duration.ofSeconds(30))
        .until(() -> servedStatusFields().contains(field));
    var stalls =
        cluster.admin().genericKubernetesResources("stallwatch.dev/v1alpha1", "RolloutStall");
    for (var stall : stalls.inAnyNamespace().list().getItems()) {
      await("the later field on " + stall.getMetadata().getName())
          .atMost(Duration.ofSeconds(30))
          .ignoreExceptions()
          .until(
              () -> {
                stalls
                    .inNamespace(stall.getMetadata().getNamespace())
                    .withName(stall.getMetadata().getName())
                    .editStatus(
                        g -> {
                          @SuppressWarnings("unchecked")
                          Map<String, Object> st =
                              (Map<String, Object>) g.getAdditionalProperties().get("status");
                          st.put(field, "a value this release has never seen");
                          return g;
                        });
                return true;
              });
    }
  }

  /** The command the start-up line names, as arguments to kubectl, on this commit's CRD file. */
  private static String[] applyCommand(String line) {
    int from = line.indexOf("`kubectl ") + "`kubectl ".length();
    String command = line.substring(from, line.indexOf('`', from));
    return command
        .replace(
            "crd/rolloutstalls.stallwatch.dev-v1.yml", ChartInstall.CRD.toAbsolutePath().toString())
        .split(" ");
  }

  /** The RolloutStall CRD in the API server. */
  private io.fabric8.kubernetes.client.dsl.Resource<
          io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition>
      crd() {
    return cluster
        .admin()
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName("rolloutstalls.stallwatch.dev");
  }

  /** The status fields of the CRD the API server holds. */
  private List<String> servedStatusFields() {
    var crd = crd().get();
    return List.copyOf(
        crd.getSpec()
            .getVersions()
            .get(0)
            .getSchema()
            .getOpenAPIV3Schema()
            .getProperties()
            .get("status")
            .getProperties()
            .keySet());
  }

  private boolean suspected(FaultBed bed) {
    List<RolloutStall> active = bed.active(FaultBed.STALLED);
    return active.size() == 1 && active.get(0).getStatus().suspect() != null;
  }

  private OperatorProcess launch(Path jar, String name) {
    try {
      Files.deleteIfExists(cluster.dir().resolve(name + ".log")); // not an earlier run's lines
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    OperatorProcess p =
        OperatorProcess.start(
            jar,
            kubeconfig,
            cluster.dir().resolve(name + ".log"),
            name,
            List.of("-Xmx256m"),
            "--stall-after=" + OperatorProcess.STALL_AFTER);
    operators.add(p);
    return p;
  }

  private OperatorProcess start(Path jar, String name) {
    OperatorProcess p = launch(jar, name);
    await("operator " + name + " ready")
        .atMost(Duration.ofMinutes(1))
        .until(() -> p.ready() || !p.alive());
    assertThat(p.alive()).as("operator %s running:%n%s", name, p.output()).isTrue();
    return p;
  }

  private void helm(String... args) {
    List<String> command = new ArrayList<>(List.of(helm.toString()));
    command.addAll(List.of(args));
    command.addAll(
        List.of("--namespace", NAMESPACE, "--kubeconfig", cluster.kubeconfig().toString()));
    RealCluster.Result.run(command, Map.of(), Duration.ofMinutes(3)).ok();
  }
}
