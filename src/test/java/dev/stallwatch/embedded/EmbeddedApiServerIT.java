package dev.stallwatch.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedApiServerIT {

  private static final String TABLE =
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
  private static final ObjectMapper JSON = new ObjectMapper();

  // The cluster's own clock: it stamps creation times and ages in tables are measured on it.
  private static final dev.stallwatch.sim.SimClock CLOCK =
      dev.stallwatch.sim.SimClock.virtual(java.time.Instant.parse("2026-12-02T10:00:00Z"));

  private static EmbeddedApiServer api;
  private static KubernetesClient client;
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    api = new EmbeddedApiServer(CLOCK, Path.of("target/no-crd-directory")).start();
    client = api.client();
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  private static MixedOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      widgets() {
    return client.genericKubernetesResources("example.dev/v1", "Widget");
  }

  private static GenericKubernetesResource widget(String name, int size) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion("example.dev/v1")
        .withKind("Widget")
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .endMetadata()
        .addToAdditionalProperties("spec", Map.of("size", size, "color", "red"))
        .build();
  }

  private static HttpResponse<String> send(
      String method, String target, String accept, String contentType, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(api.url() + target));
    if (accept != null) {
      request.header("Accept", accept);
    }
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode get(String target) throws IOException, InterruptedException {
    HttpResponse<String> response = send("GET", target, null, null, null);
    assertThat(response.statusCode()).as("GET %s: %s", target, response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private static JsonNode table(String target) throws IOException, InterruptedException {
    HttpResponse<String> response = send("GET", target, TABLE, null, null);
    assertThat(response.statusCode()).as("GET %s: %s", target, response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private static List<String> texts(JsonNode array, String field) {
    List<String> values = new ArrayList<>();
    array.forEach(n -> values.add(field == null ? n.asText() : n.path(field).asText()));
    return values;
  }

  private static JsonNode resourceNamed(JsonNode resourceList, String name) {
    for (JsonNode r : resourceList.path("resources")) {
      if (r.path("name").asText().equals(name)) {
        return r;
      }
    }
    throw new AssertionError("no resource " + name + " in " + resourceList);
  }

  @Test
  void versionReportsKubernetes132EvenWithATimeoutQuery() throws Exception {
    JsonNode version = get("/version?timeout=32s");

    assertThat(version.path("major").asText()).isEqualTo("1");
    assertThat(version.path("minor").asText()).isEqualTo("32");
    assertThat(version.path("gitVersion").asText()).startsWith("v1.32.0");
    assertThat(client.getKubernetesVersion().getMinor()).isEqualTo("32");
  }

  @Test
  void coreDiscoveryAnnouncesPodsNodesAndEventsWithShortNamesAndStatus() throws Exception {
    assertThat(texts(get("/api?timeout=32s").path("versions"), null)).containsExactly("v1");

    JsonNode v1 = get("/api/v1?timeout=32s");

    assertThat(v1.path("kind").asText()).isEqualTo("APIResourceList");
    JsonNode pods = resourceNamed(v1, "pods");
    assertThat(pods.path("kind").asText()).isEqualTo("Pod");
    assertThat(pods.path("namespaced").asBoolean()).isTrue();
    assertThat(texts(pods.path("shortNames"), null)).containsExactly("po");
    assertThat(texts(pods.path("verbs"), null)).contains("get", "list", "watch", "patch", "delete");
    assertThat(texts(pods.path("categories"), null)).containsExactly("all");
    assertThat(resourceNamed(v1, "pods/status").path("verbs").toString()).contains("patch");
    assertThat(resourceNamed(v1, "nodes").path("namespaced").asBoolean()).isFalse();
    assertThat(resourceNamed(v1, "events").path("kind").asText()).isEqualTo("Event");
  }

  @Test
  void groupDiscoveryListsAppsCoordinationEventsAndTheCrdGroupFromTheClasspath() throws Exception {
    JsonNode groups = get("/apis?timeout=32s");

    assertThat(texts(groups.path("groups"), "name"))
        .contains(
            "apps", "coordination.k8s.io", "events.k8s.io", "apiextensions.k8s.io", "example.dev");
    assertThat(resourceNamed(get("/apis/apps/v1"), "daemonsets").path("shortNames").toString())
        .contains("ds");
    assertThat(resourceNamed(get("/apis/coordination.k8s.io/v1"), "leases").path("kind").asText())
        .isEqualTo("Lease");
    assertThat(get("/apis/example.dev").path("preferredVersion").path("groupVersion").asText())
        .isEqualTo("example.dev/v1");
  }

  @Test
  void crdResourcesCarryShortNamesCategoriesAndTheirStatusSubresource() throws Exception {
    JsonNode list = get("/apis/example.dev/v1?timeout=32s");

    JsonNode widgets = resourceNamed(list, "widgets");
    assertThat(widgets.path("kind").asText()).isEqualTo("Widget");
    assertThat(widgets.path("singularName").asText()).isEqualTo("widget");
    assertThat(texts(widgets.path("shortNames"), null)).containsExactly("wdg");
    assertThat(texts(widgets.path("categories"), null)).containsExactly("gadgets");
    assertThat(resourceNamed(list, "widgets/status").path("kind").asText()).isEqualTo("Widget");
  }

  @Test
  void aCrdCreatedAtRuntimeIsDiscoveredAndDisappearsWhenDeleted() throws Exception {
    CustomResourceDefinition gizmos =
        new CustomResourceDefinitionBuilder()
            .withNewMetadata()
            .withName("gizmos.example.org")
            .endMetadata()
            .withNewSpec()
            .withGroup("example.org")
            .withScope("Cluster")
            .withNewNames()
            .withKind("Gizmo")
            .withPlural("gizmos")
            .withSingular("gizmo")
            .endNames()
            .addNewVersion()
            .withName("v2")
            .withServed(true)
            .withStorage(true)
            .endVersion()
            .endSpec()
            .build();

    api.loadCrd(gizmos);

    assertThat(resourceNamed(get("/apis/example.org/v2"), "gizmos").path("namespaced").asBoolean())
        .isFalse();
    client.apiextensions().v1().customResourceDefinitions().withName("gizmos.example.org").delete();
    assertThat(send("GET", "/apis/example.org/v2", null, null, null).statusCode()).isEqualTo(404);
    assertThat(texts(get("/apis").path("groups"), "name")).doesNotContain("example.org");
  }

  @Test
  void anUnknownGroupVersionIsNotFound() throws Exception {
    HttpResponse<String> response = send("GET", "/apis/nothing.example/v9", null, null, null);

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(response.body()).path("kind").asText()).isEqualTo("Status");
  }

  @Test
  void statusWritesWithAFieldManagerQueryReachTheStatusSubresource() throws Exception {
    widgets().inNamespace("default").resource(widget("status-w", 1)).create();
    String path = "/apis/example.dev/v1/namespaces/default/widgets/status-w";

    HttpResponse<String> patched =
        send(
            "PATCH",
            path + "/status?fieldManager=stallwatch",
            null,
            "application/merge-patch+json",
            "{\"status\":{\"phase\":\"Spinning\"}}");
    HttpResponse<String> ignored =
        send(
            "PATCH",
            path + "?fieldManager=stallwatch",
            null,
            "application/merge-patch+json",
            "{\"spec\":{\"size\":2},\"status\":{\"phase\":\"NotThroughMainResource\"}}");

    assertThat(patched.statusCode()).isBetween(200, 202);
    assertThat(ignored.statusCode()).isBetween(200, 202);
    JsonNode stored = get(path);
    assertThat(stored.path("status").path("phase").asText()).isEqualTo("Spinning");
    assertThat(stored.path("spec").path("size").asInt()).isEqualTo(2);

    JsonNode current = get(path);
    ((com.fasterxml.jackson.databind.node.ObjectNode) current.path("status"))
        .put("phase", "Stopped");
    HttpResponse<String> put =
        send(
            "PUT",
            path + "/status?fieldManager=stallwatch",
            null,
            "application/json",
            current.toString());
    assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
    assertThat(get(path).path("status").path("phase").asText()).isEqualTo("Stopped");
  }

  @Test
  void daemonSetTablesHaveKubectlColumnsAndPartialObjectMetadataRows() throws Exception {
    client
        .apps()
        .daemonSets()
        .inNamespace("default")
        .resource(
            new DaemonSetBuilder()
                .withNewMetadata()
                .withName("agent")
                .endMetadata()
                .withNewSpec()
                .withNewTemplate()
                .withNewSpec()
                .addToNodeSelector("disk", "ssd")
                .addNewContainer()
                .withName("agent")
                .withImage("agent:2")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .withNewStatus()
                .withDesiredNumberScheduled(3)
                .withCurrentNumberScheduled(3)
                .withNumberReady(2)
                .withUpdatedNumberScheduled(1)
                .withNumberAvailable(2)
                .endStatus()
                .build())
        .create();

    assertThat(
            client
                .apps()
                .daemonSets()
                .inNamespace("default")
                .withName("agent")
                .get()
                .getMetadata()
                .getCreationTimestamp())
        .as("stamped by the cluster's clock, not the wall clock")
        .isEqualTo(CLOCK.instant().toString());
    CLOCK.advance(Duration.ofHours(3));

    JsonNode table = table("/apis/apps/v1/namespaces/default/daemonsets?limit=500");

    assertThat(table.path("kind").asText()).isEqualTo("Table");
    assertThat(table.path("apiVersion").asText()).isEqualTo("meta.k8s.io/v1");
    assertThat(texts(table.path("columnDefinitions"), "name"))
        .startsWith(
            "Name",
            "Desired",
            "Current",
            "Ready",
            "Up-to-date",
            "Available",
            "Node Selector",
            "Age");
    JsonNode row = table.path("rows").get(0);
    assertThat(texts(row.path("cells"), null).subList(0, 8))
        .containsExactly("agent", "3", "3", "2", "1", "2", "disk=ssd", "3h");
    assertThat(row.path("object").path("kind").asText()).isEqualTo("PartialObjectMetadata");
    assertThat(row.path("object").path("metadata").path("namespace").asText()).isEqualTo("default");
    assertThat(row.path("object").has("spec")).isFalse();
  }

  @Test
  void customResourceTablesUsePrinterColumnsAndCanIncludeTheWholeObject() throws Exception {
    widgets().inNamespace("default").resource(widget("table-w", 7)).create();
    send(
        "PATCH",
        "/apis/example.dev/v1/namespaces/default/widgets/table-w/status",
        null,
        "application/merge-patch+json",
        "{\"status\":{\"conditions\":[{\"type\":\"Other\",\"status\":\"False\"},"
            + "{\"type\":\"Ready\",\"status\":\"True\"}]}}");

    CLOCK.advance(Duration.ofHours(3));

    JsonNode table =
        table("/apis/example.dev/v1/namespaces/default/widgets/table-w?includeObject=Object");

    assertThat(texts(table.path("columnDefinitions"), "name"))
        .containsExactly("Name", "Size", "Phase", "Ready", "Color", "Age");
    assertThat(table.path("columnDefinitions").get(4).path("priority").asInt()).isEqualTo(1);
    JsonNode cells = table.path("rows").get(0).path("cells");
    assertThat(cells.get(0).asText()).isEqualTo("table-w");
    assertThat(cells.get(1).asLong()).isEqualTo(7);
    assertThat(cells.get(2).isNull()).as("no phase yet").isTrue();
    assertThat(cells.get(3).asText()).isEqualTo("True");
    assertThat(cells.get(5).asText()).isEqualTo("3h");
    JsonNode object = table.path("rows").get(0).path("object");
    assertThat(object.path("kind").asText()).isEqualTo("Widget");
    assertThat(object.path("spec").path("color").asText()).isEqualTo("red");
  }

  @Test
  void listsAreTypedAndFilteredByAnyFieldSelector() throws Exception {
    for (String pod : List.of("p1", "p2")) {
      client
          .v1()
          .events()
          .inNamespace("default")
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withName(pod + ".event")
                  .endMetadata()
                  .withNewInvolvedObject()
                  .withKind("Pod")
                  .withName(pod)
                  .withNamespace("default")
                  .endInvolvedObject()
                  .withReason("Scheduled")
                  .build())
          .create();
    }

    JsonNode events =
        get(
            "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dp2%2CinvolvedObject.kind%3DPod");

    assertThat(events.path("kind").asText()).isEqualTo("EventList");
    assertThat(texts(events.path("items"), "reason")).containsExactly("Scheduled");
    assertThat(events.path("items").get(0).path("involvedObject").path("name").asText())
        .isEqualTo("p2");
    assertThat(
            client
                .v1()
                .events()
                .inNamespace("default")
                .withField("involvedObject.name", "p1")
                .list()
                .getItems())
        .extracting(e -> e.getMetadata().getName())
        .containsExactly("p1.event");
    assertThat(send("GET", "/api/v1/events?fieldSelector=nonsense", null, null, null).statusCode())
        .isEqualTo(400);
  }

  @Test
  void strategicMergeAndServerSideApplyAreRejectedWithAClearMessage() throws Exception {
    widgets().inNamespace("default").resource(widget("smp-w", 1)).create();

    HttpResponse<String> response =
        send(
            "PATCH",
            "/apis/example.dev/v1/namespaces/default/widgets/smp-w",
            null,
            "application/strategic-merge-patch+json",
            "{\"spec\":{\"size\":9}}");

    assertThat(response.statusCode()).isEqualTo(415);
    assertThat(JSON.readTree(response.body()).path("message").asText()).contains("--type=merge");
  }

  @Test
  void aJsonPatchWhoseTestFailsIsUnprocessableAndChangesNothing() throws Exception {
    var created = widgets().inNamespace("default").resource(widget("test-op-w", 1)).create();
    String stale = created.getMetadata().getResourceVersion();
    widgets()
        .inNamespace("default")
        .withName("test-op-w")
        .edit(
            w -> {
              w.setAdditionalProperty("spec", Map.of("size", 2, "color", "red"));
              return w;
            });
    String patch =
        "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\""
            + stale
            + "\"},{\"op\":\"replace\",\"path\":\"/spec/size\",\"value\":9}]";

    HttpResponse<String> response =
        send(
            "PATCH",
            "/apis/example.dev/v1/namespaces/default/widgets/test-op-w",
            null,
            "application/json-patch+json",
            patch);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(422);
    JsonNode status = JSON.readTree(response.body());
    assertThat(status.path("reason").asText()).isEqualTo("Invalid");
    assertThat(status.path("message").asText()).contains("/metadata/resourceVersion");
    assertThat(
            widgets()
                .inNamespace("default")
                .withName("test-op-w")
                .get()
                .get("spec", "size")
                .toString())
        .isEqualTo("2");
    // The client sees the same answer at once (no retry until a timeout).
    assertThatThrownBy(
            () ->
                widgets()
                    .inNamespace("default")
                    .withName("test-op-w")
                    .patch(
                        io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                            io.fabric8.kubernetes.client.dsl.base.PatchType.JSON),
                        patch))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(422));
  }

  @Test
  void httpStreamingWatchesAreRefusedInsteadOfHanging() throws Exception {
    HttpResponse<String> response = send("GET", "/api/v1/pods?watch=true", null, null, null);

    assertThat(response.statusCode()).isEqualTo(405);
    assertThat(response.body()).contains("WebSocket");
  }

  @Test
  void aMissingObjectIsANotFoundStatusNamingIt() throws Exception {
    HttpResponse<String> response =
        send("GET", "/api/v1/namespaces/default/pods/ghost", null, null, null);

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(response.body()).path("message").asText())
        .isEqualTo("pods \"ghost\" not found");
  }

  @Test
  void aSelfSubjectRulesReviewIsAnsweredWithEveryVerbOnEveryResourceAndNotStored() {
    SelfSubjectRulesReview review =
        client
            .resource(
                new SelfSubjectRulesReviewBuilder()
                    .withNewSpec()
                    .withNamespace("stallwatch-system")
                    .endSpec()
                    .build())
            .create();

    assertThat(review.getSpec().getNamespace()).isEqualTo("stallwatch-system");
    assertThat(review.getStatus().getIncomplete()).isFalse();
    assertThat(review.getStatus().getResourceRules())
        .singleElement()
        .satisfies(
            rule -> {
              assertThat(rule.getVerbs()).containsExactly("*");
              assertThat(rule.getApiGroups()).containsExactly("*");
              assertThat(rule.getResources()).containsExactly("*");
              assertThat(rule.getResourceNames()).isEmpty();
            });
    assertThat(
            client
                .genericKubernetesResources("authorization.k8s.io/v1", "SelfSubjectRulesReview")
                .list()
                .getItems())
        .isEmpty();
  }

  @Test
  void leasesAreWrittenWithOptimisticLockingAsLeaderElectionNeeds() {
    LeaseLock first = new LeaseLock("lease-test", "leader", "first");
    LeaseLock second = new LeaseLock("lease-test", "leader", "second");
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);

    assertThat(second.get(client)).isNull();
    first.create(client, new LeaderElectionRecord("first", Duration.ofSeconds(15), now, now, 0));
    assertThat(second.get(client).getHolderIdentity()).isEqualTo("first");
    // The holder renews: its JSON merge patch carries the resourceVersion it last read.
    first.get(client);
    first.update(
        client,
        new LeaderElectionRecord("first", Duration.ofSeconds(15), now, now.plusSeconds(2), 0));

    // The other candidate's view is now stale: its write is refused, as on a real API server.
    assertThatThrownBy(
            () ->
                second.update(
                    client,
                    new LeaderElectionRecord(
                        "second", Duration.ofSeconds(15), now, now.plusSeconds(3), 1)))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
    assertThatThrownBy(
            () ->
                first.create(
                    client, new LeaderElectionRecord("first", Duration.ofSeconds(15), now, now, 0)))
        .isInstanceOfSatisfying(
            KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));

    Lease lease = client.leases().inNamespace("lease-test").withName("leader").get();
    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("first");
    assertThat(lease.getSpec().getLeaseDurationSeconds()).isEqualTo(15);
    assertThat(lease.getSpec().getRenewTime().toInstant())
        .isEqualTo(now.plusSeconds(2).toInstant().truncatedTo(ChronoUnit.MICROS));
    // Read afresh, the same write goes through.
    second.get(client);
    second.update(
        client,
        new LeaderElectionRecord("second", Duration.ofSeconds(15), now, now.plusSeconds(3), 1));
    assertThat(client.leases().inNamespace("lease-test").withName("leader").get().getSpec())
        .satisfies(
            spec -> {
              assertThat(spec.getHolderIdentity()).isEqualTo("second");
              assertThat(spec.getLeaseTransitions()).isEqualTo(1);
            });
  }

  @Test
  void informersThroughTheFrontSeeAddUpdateAndDelete() {
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    SharedIndexInformer<GenericKubernetesResource> informer =
        widgets()
            .inNamespace("informed")
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(GenericKubernetesResource w) {
                    seen.add("ADD " + w.getMetadata().getName());
                  }

                  @Override
                  public void onUpdate(GenericKubernetesResource old, GenericKubernetesResource w) {
                    seen.add("UPDATE " + w.getMetadata().getName());
                  }

                  @Override
                  public void onDelete(GenericKubernetesResource w, boolean unknownFinalState) {
                    seen.add("DELETE " + w.getMetadata().getName());
                  }
                });
    try {
      GenericKubernetesResource w = widget("watched", 1);
      w.getMetadata().setNamespace("informed");
      widgets().inNamespace("informed").resource(w).create();
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("ADD watched"));

      widgets()
          .inNamespace("informed")
          .withName("watched")
          .edit(
              x -> {
                x.getAdditionalProperties().put("spec", Map.of("size", 2));
                return x;
              });
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("UPDATE watched"));

      widgets().inNamespace("informed").withName("watched").delete();
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("DELETE watched"));
    } finally {
      informer.close();
    }
    assertThat(seen).containsExactly("ADD watched", "UPDATE watched", "DELETE watched");
  }

  @Test
  void theKubeconfigPointsFabric8AtThisServer(@TempDir Path dir) throws Exception {
    Path file = api.writeKubeconfig(dir.resolve("nested/kubeconfig"));

    Config config = Config.fromKubeconfig(Files.readString(file));

    assertThat(config.getMasterUrl()).startsWith(api.url());
    assertThat(config.getNamespace()).isEqualTo("default");
    assertThat(config.getCurrentContext().getName()).isEqualTo("stallwatch-embedded");
  }

  @Test
  void aPortInUseIsReportedNamingThePort() {
    try (EmbeddedApiServer second = new EmbeddedApiServer()) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> second.start(api.port()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("127.0.0.1:" + api.port());
    }
  }

  @Test
  void startingTwiceIsRefusedNamingTheUrl() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> api.start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(api.url());
  }
}
