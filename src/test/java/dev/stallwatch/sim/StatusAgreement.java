package dev.stallwatch.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.kube.Snapshots;
import dev.stallwatch.rollout.AnalyzerSettings;
import dev.stallwatch.rollout.RolloutAnalyzer;
import dev.stallwatch.rollout.RolloutVerdict;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;

/**
 * The check that ties the simulator to the analyzer: the {@code .status} the simulated controller
 * wrote equals the counts the analyzer recomputes from the same objects at the same instant.
 */
final class StatusAgreement {

  private StatusAgreement() {}

  /** Asserts agreement for every DaemonSet; returns how many were checked. */
  static int assertAgrees(KubernetesClient client, Instant now) {
    var nodes = client.nodes().list().getItems();
    int checked = 0;
    for (DaemonSet ds : client.apps().daemonSets().inAnyNamespace().list().getItems()) {
      String ns = ds.getMetadata().getNamespace();
      var snapshot =
          Snapshots.of(
              ds,
              client.pods().inNamespace(ns).list().getItems(),
              nodes,
              client.apps().controllerRevisions().inNamespace(ns).list().getItems());
      RolloutVerdict verdict = RolloutAnalyzer.analyze(snapshot, now, AnalyzerSettings.DEFAULTS);
      var reported = KubeViews.daemonSet(ds).status();
      assertThat(reported).as("status of " + KubeViews.describe(ds)).isNotNull();
      assertThat(reported.counts())
          .as(
              "status the simulator wrote for %s vs the analyzer's recount at %s",
              KubeViews.describe(ds), now)
          .isEqualTo(verdict.counts());
      assertThat(reported.observedGeneration()).isEqualTo(ds.getMetadata().getGeneration());
      checked++;
    }
    return checked;
  }
}
