package dev.stallwatch.embedded;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The part of a real API server that a bare CRUD mock lacks, in front of it: {@code /version},
 * discovery, status writes that carry a query string, server-side Table printing, typed list kinds,
 * field selectors on lists, NotFound statuses and the answer to a SelfSubjectRulesReview (there is
 * no authorization: everyone may do everything). Everything else goes to the store unchanged, so
 * fabric8 clients, informers (WebSocket watches) and expectations keep working.
 */
final class ApiFront extends Dispatcher {

  private static final String JSON = "application/json";

  private final Dispatcher store;
  private final ResourceCatalog catalog;
  private final DiscoveryDocuments discovery;
  private final TableResponse tables;
  private final Clock clock;
  private final String versionJson;
  private final ObjectMapper mapper = Serialization.jsonMapper();

  ApiFront(
      Dispatcher store,
      ResourceCatalog catalog,
      Supplier<String> serverAddress,
      Clock clock,
      String versionJson) {
    this.store = store;
    this.catalog = catalog;
    this.discovery = new DiscoveryDocuments(catalog, serverAddress);
    this.tables = new TableResponse(mapper);
    this.clock = clock;
    this.versionJson = versionJson;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    MockResponse response = answer(request);
    // As a real API server does: its own clock in every answer. The demo's runs ahead of the wall
    // clock, and the CLI dates nodes by it (ClusterClock).
    return response == null
        ? null
        : response.setHeader(
            "Date",
            java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
                clock.instant().atZone(java.time.ZoneOffset.UTC)));
  }

  private MockResponse answer(RecordedRequest request) {
    ApiPath path = ApiPath.parse(request.getPath());
    HttpMethod method = request.method();
    if (method == HttpMethod.GET) {
      Optional<MockResponse> served = serveReadOnly(request, path);
      if (served.isPresent()) {
        return served.get();
      }
    }
    Optional<MockResponse> unsupported = refuseUnsupportedBody(request);
    if (unsupported.isPresent()) {
      return unsupported.get();
    }
    if (method == HttpMethod.POST && isRulesReview(path)) {
      return rulesReview(request);
    }
    RecordedRequest forwarded = request;
    if ((method == HttpMethod.PUT || method == HttpMethod.PATCH)
        && path.subresource().equals("status")
        && !path.query().isEmpty()) {
      // The mock recognises status writes by path.endsWith("/status"); ?fieldManager=… hides them.
      forwarded = withTarget(request, path.rawPath());
    }
    FieldSelector selector = FieldSelector.NONE;
    if (method == HttpMethod.GET && path.isCollection() && !isWatch(path)) {
      try {
        selector = FieldSelector.parse(path.param("fieldSelector").orElse(""));
      } catch (IllegalArgumentException e) {
        return status(400, "BadRequest", e.getMessage());
      }
      if (!selector.isEmpty()) {
        forwarded = withTarget(request, FieldSelector.targetWithout(path));
      }
    }
    MockResponse response;
    try {
      response = store.dispatch(forwarded);
    } catch (io.fabric8.zjsonpatch.JsonPatchException e) {
      // A JSON patch that does not apply (a failed "test" op: the object changed since it was
      // read) is 422 on the API server; the mock throws instead, and its request is never answered.
      return status(422, "Invalid", e.toString());
    }
    if (response == null) {
      return status(
          405, "MethodNotAllowed", method + " is not supported by the embedded API server");
    }
    if (method == HttpMethod.GET && response.getWebSocketListener() == null) {
      return shapeRead(request, path, response, selector);
    }
    if (response.code() == 404 && bodyOf(response).isEmpty()) {
      return notFound(path);
    }
    return withJsonType(response);
  }

  private Optional<MockResponse> serveReadOnly(RecordedRequest request, ApiPath path) {
    if (path.rawPath().equals("/version")) {
      return Optional.of(json(200, versionJson));
    }
    if (path.rawPath().equals("/") || path.rawPath().isEmpty()) {
      return Optional.of(json(200, "{\"paths\":[\"/api\",\"/api/v1\",\"/apis\",\"/version\"]}"));
    }
    if (!path.rawPath().startsWith("/api")) {
      // No OpenAPI documents, logs or metrics: say so instead of answering from the store.
      return Optional.of(
          status(404, "NotFound", "the server could not find the requested resource"));
    }
    if (path.isDiscovery()) {
      return Optional.of(
          discovery
              .forPath(path)
              .map(doc -> json(200, Serialization.asJson(doc)))
              .orElseGet(
                  () ->
                      status(404, "NotFound", "the server could not find the requested resource")));
    }
    if (isWatch(path) && !isWebSocket(request)) {
      return Optional.of(
          status(
              405,
              "MethodNotAllowed",
              "the embedded API server serves watches over WebSocket only (fabric8 informers);"
                  + " HTTP streaming watches such as kubectl get -w are not supported"));
    }
    return Optional.empty();
  }

  private MockResponse shapeRead(
      RecordedRequest request, ApiPath path, MockResponse response, FieldSelector selector) {
    String body = bodyOf(response);
    if (response.code() == 404 && body.isEmpty()) {
      return notFound(path);
    }
    Optional<ServedResource> resource = catalog.find(path);
    if (response.code() != 200 || resource.isEmpty() || body.isEmpty()) {
      return withJsonType(response);
    }
    JsonNode node;
    try {
      node = mapper.readTree(body);
    } catch (JsonProcessingException e) {
      return withJsonType(response);
    }
    if (path.isCollection() && node instanceof ObjectNode list) {
      // The mock answers every list as kind "List"; typed clients (kubectl describe) need EventList
      // etc.
      list.put("kind", resource.get().kind() + "List");
      list.put("apiVersion", resource.get().groupVersion());
      selector.filterItems(list);
    }
    if (TableResponse.isRequested(request.getHeader("Accept"))) {
      ObjectNode table =
          tables.render(
              node,
              KubectlColumns.forResource(resource.get()),
              TableResponse.IncludeObject.of(path.query().get("includeObject")),
              clock.instant());
      return json(200, table.toString());
    }
    return json(200, node.toString());
  }

  private static boolean isRulesReview(ApiPath path) {
    return path.group().equals("authorization.k8s.io")
        && path.plural().equals("selfsubjectrulesreviews")
        && path.name().isEmpty();
  }

  /**
   * A review is not stored: the API server answers it at once. With no authorization here, the
   * answer is what a cluster-admin gets: every verb on every resource. JOSDK asks this before it
   * starts leader election, to check it may get, create and update its Lease.
   */
  private MockResponse rulesReview(RecordedRequest request) {
    ObjectNode review;
    try {
      JsonNode body = mapper.readTree(request.getUtf8Body());
      if (!(body instanceof ObjectNode object)) {
        return status(400, "BadRequest", "a SelfSubjectRulesReview must be a JSON object");
      }
      review = object;
    } catch (JsonProcessingException e) {
      return status(400, "BadRequest", "cannot read the SelfSubjectRulesReview: " + e.getMessage());
    }
    review.put("apiVersion", "authorization.k8s.io/v1");
    review.put("kind", "SelfSubjectRulesReview");
    ObjectNode status = review.putObject("status");
    ObjectNode resources = status.putArray("resourceRules").addObject();
    resources.putArray("verbs").add("*");
    resources.putArray("apiGroups").add("*");
    resources.putArray("resources").add("*");
    ObjectNode urls = status.putArray("nonResourceRules").addObject();
    urls.putArray("verbs").add("*");
    urls.putArray("nonResourceURLs").add("*");
    status.put("incomplete", false);
    return json(201, review.toString());
  }

  private static Optional<MockResponse> refuseUnsupportedBody(RecordedRequest request) {
    String contentType = request.getHeader("Content-Type");
    if (contentType != null && !contentType.contains("json") && !contentType.contains("yaml")) {
      // kubectl's typed commands (create namespace, create configmap, ...) send protobuf.
      return Optional.of(
          status(
              415,
              "UnsupportedMediaType",
              "the embedded API server reads JSON bodies only, not "
                  + contentType
                  + "; use kubectl create -f or fabric8 to create objects"));
    }
    if (request.method() == HttpMethod.PATCH && !isJsonOrMergePatch(contentType)) {
      return Optional.of(
          status(
              415,
              "UnsupportedMediaType",
              "the embedded API server accepts JSON patch and JSON merge patch only"
                  + " (kubectl patch --type=merge or --type=json); got "
                  + contentType));
    }
    return Optional.empty();
  }

  private static boolean isJsonOrMergePatch(String contentType) {
    if (contentType == null) {
      return true; // the mock reads a PATCH without Content-Type as JSON patch
    }
    String type = contentType.split(";")[0].trim();
    return type.equals("application/json-patch+json")
        || type.equals("application/merge-patch+json");
  }

  private static boolean isWatch(ApiPath path) {
    String watch = path.query().getOrDefault("watch", "");
    return watch.equals("true") || watch.equals("1");
  }

  private static boolean isWebSocket(RecordedRequest request) {
    String upgrade = request.getHeader("Upgrade");
    return upgrade != null && upgrade.equalsIgnoreCase("websocket");
  }

  private static RecordedRequest withTarget(RecordedRequest request, String target) {
    return new RecordedRequest(
        request.getHttpVersion(),
        request.method(),
        target,
        request.getHeaders(),
        request.getBody());
  }

  private static String bodyOf(MockResponse response) {
    return response.getBody() == null
        ? ""
        : new String(response.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
  }

  private MockResponse notFound(ApiPath path) {
    String what = path.plural().isEmpty() ? "the requested resource" : path.plural();
    String message =
        path.name().isEmpty()
            ? "the server could not find the requested resource"
            : what + " \"" + path.name() + "\" not found";
    return status(404, "NotFound", message);
  }

  private static MockResponse status(int code, String reason, String message) {
    return json(
        code,
        Serialization.asJson(
            new StatusBuilder()
                .withStatus("Failure")
                .withCode(code)
                .withReason(reason)
                .withMessage(message)
                .build()));
  }

  private static MockResponse json(int code, String body) {
    return new MockResponse().setResponseCode(code).setHeader("Content-Type", JSON).setBody(body);
  }

  private static MockResponse withJsonType(MockResponse response) {
    if (response.getHeaders().header("Content-Type") == null && !bodyOf(response).isEmpty()) {
      response.setHeader("Content-Type", JSON);
    }
    return response;
  }
}
