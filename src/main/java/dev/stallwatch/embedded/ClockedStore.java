package dev.stallwatch.embedded;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.internal.MockDispatcher;
import io.fabric8.mockwebserver.internal.SimpleRequest;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Queue;

/**
 * The object store behind the embedded API server: fabric8's CRUD dispatcher, with the queued
 * expectations of fault-injection tests answered first (as fabric8's mixed dispatcher does), and
 * {@code metadata.creationTimestamp} stamped from the cluster's clock rather than the wall clock,
 * and a DaemonSet's template generation kept in the same write, as the API server keeps it ({@link
 * TemplateGeneration}).
 *
 * <p>The simulated cluster can run faster than real time; ages measured from creation (how long a
 * pod has been pending, when a rollout began) must be on the same clock as everything else.
 */
final class ClockedStore extends Dispatcher {
  private final Map<ServerRequest, Queue<ServerResponse>> expectations;
  private final MockDispatcher expected;
  private final KubernetesCrudDispatcher crud;

  ClockedStore(Map<ServerRequest, Queue<ServerResponse>> expectations, Clock clock) {
    this.expectations = expectations;
    this.expected = new MockDispatcher(expectations);
    this.crud = new ClockedCrud(clock);
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    Queue<ServerResponse> queued =
        expectations.get(
            new SimpleRequest(HttpMethod.valueOf(request.getMethod()), request.getPath()));
    if (queued != null && !queued.isEmpty()) {
      return expected.dispatch(request);
    }
    return crud.dispatch(request);
  }

  /** Re-stamps objects as they are created; updates keep the stored stamp, as upstream does. */
  private static final class ClockedCrud extends KubernetesCrudDispatcher {
    private final Clock clock;
    private final ThreadLocal<String> adjusted = new ThreadLocal<>();

    ClockedCrud(Clock clock) {
      super(List.of());
      this.clock = clock;
    }

    @Override
    public MockResponse handleUpdate(RecordedRequest request) {
      return withStoredBody(super.handleUpdate(request));
    }

    @Override
    public MockResponse handlePatch(RecordedRequest request) {
      return withStoredBody(super.handlePatch(request));
    }

    /** Answers a successful write with the object as {@link #processEvent} stored it. */
    private MockResponse withStoredBody(MockResponse response) {
      String stored = adjusted.get();
      adjusted.remove();
      boolean written = response.code() == 200 || response.code() == 202;
      return stored != null && written ? response.setBody(stored) : response;
    }

    @Override
    public MockResponse handleCreate(RecordedRequest request) {
      MockResponse response = super.handleCreate(request);
      String stored = adjusted.get();
      adjusted.remove();
      if (response.code() != 201) {
        return response;
      }
      if (stored != null) {
        return response.setBody(stored);
      }
      GenericKubernetesResource created =
          Serialization.unmarshal(
              new String(response.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8),
              GenericKubernetesResource.class);
      created.getMetadata().setCreationTimestamp(stamp());
      return response.setBody(Serialization.asJson(created));
    }

    @Override
    public void processEvent(
        String path,
        io.fabric8.mockwebserver.crud.AttributeSet pathAttributes,
        io.fabric8.mockwebserver.crud.AttributeSet oldAttributes,
        GenericKubernetesResource resource,
        String newState) {
      if (oldAttributes == null && resource != null && newState != null) {
        resource.getMetadata().setCreationTimestamp(stamp());
        newState = Serialization.asJson(resource);
      }
      if (newState != null && TemplateGeneration.appliesTo(path)) {
        String stored = oldAttributes == null ? null : map.get(oldAttributes);
        String generationKept = TemplateGeneration.adjust(stored, newState);
        if (!generationKept.equals(newState)) {
          newState = generationKept;
          resource = null; // attributes are then read from the stored JSON
          adjusted.set(newState);
        }
      }
      super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
    }

    private String stamp() {
      return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    }
  }
}
