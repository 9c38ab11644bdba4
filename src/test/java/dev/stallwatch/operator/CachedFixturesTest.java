package dev.stallwatch.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.operator.cache.CachePruning;
import dev.stallwatch.operator.cache.CachedPod;
import dev.stallwatch.operator.cache.ListingClient;
import dev.stallwatch.operator.cache.NodeChange;
import dev.stallwatch.operator.cache.RolloutEventSources;
import dev.stallwatch.operator.cache.Watched;
import dev.stallwatch.testing.ScenarioFixture;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every pod and node of the test fixtures (the analyzer's scenarios, the kubectl dumps, the peer
 * cases) and a set of malformed and unbound pods, read as the informer reads them (from JSON, so
 * with their own strings): the cache's pruned copy must read exactly as the original — the same
 * view, the same index keys, the same owners. A view that later reads a field the pruning drops
 * fails here for the fixture that sets it. Each is also read as the caches' informers read it
 * ({@link ListingClient}, which skips fields no cache keeps): the same again.
 */
class CachedFixturesTest {
  private static final KubernetesSerialization JSON = new KubernetesSerialization();
  private static final KubernetesSerialization LISTED = ListingClient.serialization();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final List<Path> FIXTURES =
      List.of(
          ScenarioFixture.DIR,
          Path.of("src/test/resources/kube/dumps"),
          Path.of("src/test/resources/peers"));

  @TestFactory
  Stream<DynamicTest> aPrunedFixturePodReadsAsTheOriginal() {
    List<Named<Pod>> pods = fixtures("Pod", Pod.class);
    pods.addAll(malformedAndUnboundPods());
    assertThat(pods).hasSizeGreaterThan(150);
    return pods.stream()
        .map(p -> DynamicTest.dynamicTest(p.name(), () -> assertReadsTheSame(p.object())));
  }

  @TestFactory
  Stream<DynamicTest> aPrunedFixtureNodeReadsAsTheOriginal() {
    List<Named<Node>> nodes = fixtures("Node", Node.class);
    assertThat(nodes).hasSizeGreaterThan(150);
    return nodes.stream()
        .map(
            n ->
                DynamicTest.dynamicTest(
                    n.name(),
                    () -> {
                      Node pruned = CachePruning.node(n.object());
                      Object view = viewOrError(() -> KubeViews.node(n.object()));
                      assertThat(viewOrError(() -> KubeViews.node(pruned))).isEqualTo(view);
                      assertThat(NodeChange.matters(n.object(), pruned)).isFalse();
                      // JOSDK reads every event's object's annotations, pruned ones included.
                      assertThat(pruned.getMetadata().getAnnotations()).isNotNull();
                      Node listed = LISTED.unmarshal(JSON.asJson(n.object()), Node.class);
                      assertThat(viewOrError(() -> KubeViews.node(listed))).isEqualTo(view);
                      assertThat(viewOrError(() -> KubeViews.node(CachePruning.node(listed))))
                          .isEqualTo(view);
                      assertThat(NodeChange.matters(pruned, listed)).isFalse();
                      assertThat(NodeChange.matters(listed, pruned)).isFalse();
                    }));
  }

  @TestFactory
  Stream<DynamicTest> aPrunedFixtureRevisionReadsAsTheOriginal() {
    List<Named<ControllerRevision>> revisions =
        fixtures("ControllerRevision", ControllerRevision.class);
    assertThat(revisions).hasSizeGreaterThan(20);
    return revisions.stream()
        .map(
            r ->
                DynamicTest.dynamicTest(
                    r.name(),
                    () -> {
                      ControllerRevision original = r.object();
                      Object view = viewOrError(() -> KubeViews.revision(original));
                      ControllerRevision listed =
                          LISTED.unmarshal(JSON.asJson(original), ControllerRevision.class);
                      for (ControllerRevision read : List.of(original, listed)) {
                        ControllerRevision pruned = CachePruning.revision(read);
                        assertThat(viewOrError(() -> KubeViews.revision(pruned))).isEqualTo(view);
                        assertThat(RolloutEventSources.owners(pruned))
                            .isEqualTo(RolloutEventSources.owners(original));
                        assertThat(RolloutEventSources.owners(read))
                            .isEqualTo(RolloutEventSources.owners(original));
                        assertThat(pruned.getMetadata().getAnnotations()).isNotNull();
                      }
                    }));
  }

  @Test
  void repeatedStringsAreSharedBetweenCachedPodsAndTheirNode() {
    List<Pod> pods =
        fixtures("Pod", Pod.class).stream()
            .map(Named::object)
            .filter(p -> p.getMetadata().getName() != null && p.getSpec().getNodeName() != null)
            .limit(2)
            .map(CachePruning::pod)
            .toList();
    Pod a = pods.get(0);
    Pod b = pods.get(1);
    assertThat(a.getMetadata().getNamespace()).isSameAs(b.getMetadata().getNamespace());
    String key = a.getMetadata().getLabels().keySet().iterator().next();
    assertThat(b.getMetadata().getLabels().keySet()).contains(key);
    assertThat(b.getMetadata().getLabels().keySet().stream().filter(key::equals).findFirst())
        .containsSame(key);
    assertThat(a.getStatus().getConditions().get(0).getType())
        .isSameAs(
            b.getStatus().getConditions().stream()
                .filter(c -> c.getType().equals(a.getStatus().getConditions().get(0).getType()))
                .findFirst()
                .orElseThrow()
                .getType());
    Node node =
        JSON.unmarshal(
            "{\"kind\":\"Node\",\"metadata\":{\"name\":\"" + a.getSpec().getNodeName() + "\"}}",
            Node.class);
    assertThat(CachePruning.node(node).getMetadata().getName()).isSameAs(a.getSpec().getNodeName());
  }

  private static void assertReadsTheSame(Pod original) {
    assertReadsTheSame(original, original);
    assertReadsTheSame(original, LISTED.unmarshal(JSON.asJson(original), Pod.class));
  }

  /** {@code read} ({@code original} as an informer read it) reads as the original. */
  private static void assertReadsTheSame(Pod original, Pod read) {
    Pod pruned = CachePruning.pod(read);
    Object view = viewOrError(() -> KubeViews.pod(original));
    assertThat(viewOrError(() -> KubeViews.pod(pruned))).isEqualTo(view);
    // The index keys: fabric8 adds a pod under the keys of the object it was handed and removes it
    // under those of the cached (pruned) one, so they must agree.
    assertThat(RolloutEventSources.targetNode(pruned))
        .isEqualTo(RolloutEventSources.targetNode(original));
    if (view instanceof dev.stallwatch.rollout.PodView v) {
      assertThat(RolloutEventSources.targetNode(original))
          .isEqualTo(v.targetNode().isEmpty() ? List.of() : List.of(v.targetNode()));
    }
    // What the pod cache keeps: the view made on entry, and what its other readers read.
    CachedPod cached = CachedPod.of(read);
    assertThat(viewOrError(() -> CachedPod.view(cached))).isEqualTo(view);
    assertThat(RolloutEventSources.targetNode(cached))
        .isEqualTo(RolloutEventSources.targetNode(original));
    assertThat(cached.getSpec()).isNull();
    assertThat(cached.getStatus()).isNull();
    if (original.getMetadata() != null) {
      assertThat(cached.getMetadata().getName()).isEqualTo(original.getMetadata().getName());
      assertThat(cached.getMetadata().getNamespace())
          .isEqualTo(original.getMetadata().getNamespace());
      assertThat(cached.getMetadata().getUid()).isEqualTo(original.getMetadata().getUid());
      assertThat(cached.getMetadata().getResourceVersion())
          .isEqualTo(original.getMetadata().getResourceVersion());
      assertThat(RolloutEventSources.owners(cached))
          .isEqualTo(RolloutEventSources.owners(original));
      assertThat(Mappers.fromOwnerReferences(DaemonSet.class).toPrimaryResourceIDs(cached))
          .isEqualTo(Mappers.fromOwnerReferences(DaemonSet.class).toPrimaryResourceIDs(original));
      assertThat(RolloutEventSources.owners(pruned))
          .isEqualTo(RolloutEventSources.owners(original));
      assertThat(RolloutEventSources.owningIds(cached, Watched.DAEMON_SETS.ownerApi()))
          .isEqualTo(RolloutEventSources.owningIds(original, Watched.DAEMON_SETS.ownerApi()));
      assertThat(RolloutEventSources.owningIds(read, Watched.DAEMON_SETS.ownerApi()))
          .isEqualTo(RolloutEventSources.owningIds(original, Watched.DAEMON_SETS.ownerApi()));
      assertThat(RolloutEventSources.owners(read)).isEqualTo(RolloutEventSources.owners(original));
      assertThat(RolloutEventSources.targetNode(read))
          .isEqualTo(RolloutEventSources.targetNode(original));
      assertThat(cached.getMetadata().getAnnotations()).isNotNull();
      assertThat(Mappers.fromOwnerReferences(DaemonSet.class).toPrimaryResourceIDs(pruned))
          .isEqualTo(Mappers.fromOwnerReferences(DaemonSet.class).toPrimaryResourceIDs(original));
    }
  }

  /** The view, or the message of the error that names the object and the field. */
  private static Object viewOrError(java.util.function.Supplier<?> view) {
    try {
      return view.get();
    } catch (InvalidObjectException e) {
      return "invalid: " + e.getMessage();
    }
  }

  private static List<Named<Pod>> malformedAndUnboundPods() {
    List<Named<Pod>> pods = new ArrayList<>();
    Pod base =
        JSON.unmarshal(
            """
            {"apiVersion":"v1","kind":"Pod",
             "metadata":{"name":"agent-x","namespace":"ops","uid":"u1",
               "creationTimestamp":"2026-12-02T10:00:00Z",
               "labels":{"pod-template-generation":"2","controller-revision-hash":"abc"},
               "ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"agent",
                 "uid":"ds-1","controller":true}]},
             "spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":
               {"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In",
                 "values":["node-7"]}]}]}}},
               "containers":[{"name":"agent","image":"agent:2"}]},
             "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",
               "reason":"Unschedulable","message":"0/9 nodes are available",
               "lastTransitionTime":"2026-12-02T10:00:01Z"}]}}
            """,
            Pod.class);
    pods.add(new Named<>("unbound, placed by node affinity", base));
    pods.add(
        new Named<>(
            "bound, with a stale affinity to another node",
            new PodBuilder(base).editSpec().withNodeName("node-8").endSpec().build()));
    pods.add(
        new Named<>(
            "affinity pinning no single node",
            JSON.unmarshal(
                JSON.asJson(base).replace("[\"node-7\"]", "[\"node-7\",\"node-8\"]"), Pod.class)));
    pods.add(
        new Named<>(
            "affinity value null",
            JSON.unmarshal(JSON.asJson(base).replace("[\"node-7\"]", "[null]"), Pod.class)));
    pods.add(
        new Named<>(
            "malformed creationTimestamp, placed by affinity",
            new PodBuilder(base)
                .editMetadata()
                .withCreationTimestamp("yesterday")
                .endMetadata()
                .build()));
    pods.add(
        new Named<>(
            "malformed condition time, bound",
            JSON.unmarshal(
                JSON.asJson(base)
                    .replace("2026-12-02T10:00:01Z", "soon")
                    .replace("\"spec\":{", "\"spec\":{\"nodeName\":\"node-9\","),
                Pod.class)));
    pods.add(
        new Named<>(
            "without metadata.name",
            new PodBuilder(base).editMetadata().withName(null).endMetadata().build()));
    pods.add(
        new Named<>(
            "without spec and status",
            new PodBuilder(base).withSpec(null).withStatus(null).build()));
    pods.add(
        new Named<>(
            "null list items and a terminated init container",
            JSON.unmarshal(
                """
                {"kind":"Pod","metadata":{"name":"p","namespace":"ops",
                   "ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"a"}]},
                 "spec":{"nodeName":"n1","containers":[null,{"name":"c","image":"i"}],
                   "initContainers":[{"name":"init","image":"init:1"}]},
                 "status":{"phase":"Pending","conditions":[null],
                   "initContainerStatuses":[{"name":"init","image":"init:1","restartCount":3,
                     "state":{"terminated":{"exitCode":1,"reason":"Error","message":"boom",
                       "signal":9}},"lastState":{"terminated":{"exitCode":1}}}],
                   "containerStatuses":[null,{"name":"c","state":{"waiting":
                     {"reason":"PodInitializing"}}}]}}
                """,
                Pod.class)));
    pods.add(
        new Named<>(
            "terminating and running",
            JSON.unmarshal(
                """
                {"kind":"Pod","metadata":{"name":"q","namespace":"ops",
                   "deletionTimestamp":"2026-12-02T11:00:00Z"},
                 "spec":{"nodeName":"n2","containers":[{"name":"c","image":"i"}]},
                 "status":{"phase":"Running","reason":"Evicted","message":"low on memory",
                   "hostIP":"10.0.0.1","podIPs":[{"ip":"10.1.0.1"}],"qosClass":"BestEffort",
                   "containerStatuses":[{"name":"c","image":"i","imageID":"sha","ready":true,
                     "started":true,"containerID":"containerd://x",
                     "state":{"running":{"startedAt":"2026-12-02T10:00:00Z"}}}]}}
                """,
                Pod.class)));
    return pods;
  }

  record Named<T>(String name, T object) {}

  /** Every object of {@code kind} in the fixture files, each deserialised on its own. */
  private static <T> List<Named<T>> fixtures(String kind, Class<T> type) {
    List<Named<T>> found = new ArrayList<>();
    for (Path dir : FIXTURES) {
      try (Stream<Path> files = Files.list(dir)) {
        for (Path file : files.sorted().toList()) {
          try (var docs = YAML.readerFor(JsonNode.class).<JsonNode>readValues(file.toFile())) {
            while (docs.hasNext()) {
              collect(docs.next(), kind, type, file.getFileName().toString(), found);
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return found;
  }

  private static <T> void collect(
      JsonNode node, String kind, Class<T> type, String file, List<Named<T>> found) {
    if (node == null) {
      return;
    }
    if (node.isObject() && kind.equals(node.path("kind").asText())) {
      String name = Objects.toString(node.path("metadata").path("name").asText(null), "?");
      found.add(new Named<>(file + " " + name, JSON.unmarshal(node.toString(), type)));
      return;
    }
    if (node.isContainerNode()) {
      for (JsonNode child : node) {
        collect(child, kind, type, file, found);
      }
    }
  }
}
