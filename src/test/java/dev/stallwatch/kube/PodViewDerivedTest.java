package dev.stallwatch.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stallwatch.kube.dump.TreeViews;
import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.rollout.PodView;
import dev.stallwatch.testing.ScenarioFixture;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link PodView.Derived} — what the analyzer asks of every pod, decided once when the view is made
 * — agrees with the predicates it replaced (the first Ready condition looked up per question, the
 * revision labels read from the label map, the phase compared) over every pod of every scenario
 * fixture, whichever way the view is made (from the fabric8 model or from a dump's tree).
 */
class PodViewDerivedTest {
  private static final KubernetesSerialization KUBE = new KubernetesSerialization();

  /** Every Pod object of every scenario fixture. */
  private static List<JsonNode> fixturePods() {
    List<JsonNode> pods = new ArrayList<>();
    for (ScenarioFixture fixture : ScenarioFixture.all()) {
      collect(fixture.objects(), pods);
    }
    return pods;
  }

  private static void collect(JsonNode node, List<JsonNode> pods) {
    if (node == null) {
      return;
    }
    if (node.isArray()) {
      node.forEach(n -> collect(n, pods));
    } else if (node.has("items")) {
      collect(node.get("items"), pods);
    } else if ("Pod".equals(node.path("kind").asText())) {
      pods.add(node);
    }
  }

  @Test
  void derivedFactsAgreeWithThePredicatesTheyReplaceOverEveryFixturePod() throws IOException {
    List<JsonNode> pods = fixturePods();
    assertThat(pods).hasSizeGreaterThan(100);
    int ready = 0;
    int hashed = 0;
    for (JsonNode json : pods) {
      PodView fromModel = KubeViews.pod(KUBE.convertValue(json, Pod.class));
      PodView fromTree = TreeViews.pod(json);
      for (PodView pod : List.of(fromModel, fromTree)) {
        PodView.Derived d = pod.derived();
        Optional<PodView.Condition> readyCondition = pod.condition("Ready");
        boolean isReady = readyCondition.map(c -> "True".equals(c.status())).orElse(false);
        assertThat(d.ready()).as("ready of %s", pod.name()).isEqualTo(isReady);
        Instant since = isReady ? readyCondition.get().lastTransition() : null;
        assertThat(d.readySince()).as("readySince of %s", pod.name()).isEqualTo(since);
        assertThat(d.terminal())
            .as("terminal of %s", pod.name())
            .isEqualTo("Failed".equals(pod.phase()) || "Succeeded".equals(pod.phase()));
        assertThat(d.revisionHash())
            .as("hash of %s", pod.name())
            .isEqualTo(pod.labels().get(MetadataKeys.REVISION_HASH_LABEL));
        assertThat(d.templateGeneration())
            .as("generation of %s", pod.name())
            .isEqualTo(pod.labels().get(MetadataKeys.TEMPLATE_GENERATION_LABEL));
        assertThat(d.targetNodeHash()).isEqualTo(pod.targetNode().hashCode());
      }
      assertThat(fromTree.derived()).isEqualTo(fromModel.derived());
      ready += fromModel.derived().ready() ? 1 : 0;
      hashed += fromModel.derived().revisionHash() != null ? 1 : 0;
    }
    // The fixtures cover both sides of each fact.
    assertThat(ready).isBetween(1, pods.size() - 1);
    assertThat(hashed).isBetween(1, pods.size());
  }

  @Test
  void theFirstReadyConditionCountsAsUpstreamReadsIt() {
    Instant t = Instant.parse("2026-12-03T10:00:00Z");
    PodView pod =
        pod(
            Map.of(),
            "Running",
            List.of(
                new PodView.Condition("Ready", "True", null, null, t),
                new PodView.Condition("Ready", "False", null, null, t.plusSeconds(5))));
    assertThat(pod.derived())
        .isEqualTo(new PodView.Derived(true, t, false, null, null, "n".hashCode()));
    PodView notReady =
        pod(Map.of(), "Succeeded", List.of(new PodView.Condition("Ready", "False", null, null, t)));
    assertThat(notReady.derived())
        .isEqualTo(new PodView.Derived(false, null, true, null, null, "n".hashCode()));
  }

  @Test
  void revisionLabelsAndNodeNamesAreSharedInstances() {
    String hash = new String("6f7d8c9b2".toCharArray());
    String node = new String("node-00001".toCharArray());
    PodView a =
        pod(Map.of(MetadataKeys.REVISION_HASH_LABEL, hash), "Running", List.of(), node, node);
    PodView b =
        pod(
            Map.of(MetadataKeys.REVISION_HASH_LABEL, new String(hash.toCharArray())),
            "Running",
            List.of(),
            new String(node.toCharArray()),
            new String(node.toCharArray()));
    assertThat(a.derived().revisionHash()).isSameAs(b.derived().revisionHash());
    assertThat(a.targetNode()).isSameAs(b.targetNode());
    assertThat(a.nodeName()).isSameAs(b.nodeName());
  }

  @Test
  void givenFactsMustBeTheDerivedOnes() {
    PodView pod = pod(Map.of(), "Running", List.of());
    PodView same = withDerived(pod, pod.derived());
    assertThat(same).isEqualTo(pod);
    assertThatThrownBy(
            () ->
                withDerived(
                    pod, new PodView.Derived(true, null, false, null, null, "n".hashCode())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pod ns/p")
        .hasMessageContaining("derived facts");
  }

  private static PodView pod(
      Map<String, String> labels, String phase, List<PodView.Condition> conditions) {
    return pod(labels, phase, conditions, "n", "n");
  }

  private static PodView pod(
      Map<String, String> labels,
      String phase,
      List<PodView.Condition> conditions,
      String nodeName,
      String targetNode) {
    return new PodView(
        "ns",
        "p",
        null,
        labels,
        null,
        nodeName,
        targetNode,
        null,
        null,
        phase,
        null,
        null,
        conditions,
        null,
        null,
        null,
        null);
  }

  private static PodView withDerived(PodView p, PodView.Derived derived) {
    return new PodView(
        p.namespace(),
        p.name(),
        p.uid(),
        p.labels(),
        p.owner(),
        p.nodeName(),
        p.targetNode(),
        p.created(),
        p.deletionTimestamp(),
        p.phase(),
        p.reason(),
        p.message(),
        p.conditions(),
        p.initContainerNames(),
        p.images(),
        p.initContainerStatuses(),
        p.containerStatuses(),
        derived);
  }
}
