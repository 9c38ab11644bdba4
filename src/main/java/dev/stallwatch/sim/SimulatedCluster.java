package dev.stallwatch.sim;

import dev.stallwatch.kube.PodTemplates;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.ControllerRevision;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Scenario} running on an API server reached through {@code client}: installs the
 * scenario's objects, fires its events when their time comes, and ticks the {@link ControlPlane}.
 * Also offers the edits a user makes during a story (new image, template edit, {@code kubectl
 * rollout undo}).
 */
public final class SimulatedCluster implements ScenarioActions, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SimulatedCluster.class);

  private final KubernetesClient client;
  private final Scenario scenario;
  private final ControlPlane controlPlane;
  private final Instant start;
  private int nextEvent;

  private SimulatedCluster(KubernetesClient client, Scenario scenario, SimClock clock) {
    this.client = client;
    this.scenario = scenario;
    this.controlPlane =
        new ControlPlane(
            client, clock, scenario.kubeletScript(), scenario.seed(), scenario.updateOrder());
    this.start = clock.instant();
  }

  /** Creates the scenario's objects through {@code client}; no tick has run yet. */
  public static SimulatedCluster install(
      KubernetesClient client, Scenario scenario, SimClock clock) {
    SimulatedCluster cluster = new SimulatedCluster(client, scenario, clock);
    for (Node node : scenario.nodes()) {
      client.resource(node).create();
    }
    for (var ds : scenario.daemonSets()) {
      client.resource(ds).create();
    }
    for (var pod : scenario.pods()) {
      client.resource(pod).create();
    }
    return cluster;
  }

  public Scenario scenario() {
    return scenario;
  }

  public ControlPlane controlPlane() {
    return controlPlane;
  }

  public SimClock clock() {
    return controlPlane.clock();
  }

  public KubernetesClient client() {
    return client;
  }

  /** Simulated time since the scenario started. */
  public Duration elapsed() {
    return Duration.between(start, clock().instant());
  }

  /** Fires the events that are due, then runs one control-plane tick. */
  public synchronized SyncResult tick() {
    List<Scenario.Event> events = scenario.events();
    while (nextEvent < events.size() && events.get(nextEvent).at().compareTo(elapsed()) <= 0) {
      Scenario.Event e = events.get(nextEvent++);
      LOG.info("scenario {} at {}: {}", scenario.name(), e.at(), e.description());
      e.action().accept(this);
    }
    return controlPlane.tick();
  }

  /** On a virtual clock: ticks every {@code step} for {@code duration} of simulated time. */
  public void runFor(Duration duration, Duration step) {
    Instant end = clock().instant().plus(duration);
    tick();
    while (clock().instant().plus(step).compareTo(end) <= 0) {
      clock().advance(step);
      tick();
    }
  }

  /** On a virtual clock: ticks every {@code step} until {@code done} or {@code limit} passed. */
  public boolean runUntil(BooleanSupplier done, Duration step, Duration limit) {
    Instant end = clock().instant().plus(limit);
    while (true) {
      tick();
      if (done.getAsBoolean()) {
        return true;
      }
      if (clock().instant().plus(step).isAfter(end)) {
        return false;
      }
      clock().advance(step);
    }
  }

  /** Holds no thread or connection of its own (the client is the caller's): nothing to close. */
  @Override
  public void close() {}

  @Override
  public void setImage(String namespace, String daemonSet, String container, String image) {
    editTemplate(
        namespace,
        daemonSet,
        t -> {
          var c =
              t.getSpec().getContainers().stream()
                  .filter(x -> x.getName().equals(container))
                  .findFirst()
                  .orElseThrow(
                      () ->
                          new IllegalArgumentException(
                              "DaemonSet "
                                  + namespace
                                  + "/"
                                  + daemonSet
                                  + " has no container "
                                  + container));
          c.setImage(image);
          return t;
        });
  }

  @Override
  public void editTemplate(
      String namespace, String daemonSet, UnaryOperator<PodTemplateSpec> edit) {
    client
        .apps()
        .daemonSets()
        .inNamespace(namespace)
        .withName(daemonSet)
        .edit(
            d -> {
              d.getSpec().setTemplate(edit.apply(d.getSpec().getTemplate()));
              return d;
            });
  }

  /**
   * {@code kubectl rollout undo}: puts the template of the newest revision other than the current
   * one back into the DaemonSet; the controller then reuses that revision and bumps its number.
   */
  @Override
  public void rollback(String namespace, String daemonSet) {
    DaemonSet ds = client.apps().daemonSets().inNamespace(namespace).withName(daemonSet).get();
    if (ds == null) {
      throw new IllegalArgumentException(
          "DaemonSet " + namespace + "/" + daemonSet + " does not exist");
    }
    ControllerRevision previous =
        new ControllerRevisions(client)
            .owned(ds).stream()
                .filter(r -> !PodTemplates.matches(ds.getSpec().getTemplate(), r.getData()))
                .max(Comparator.comparing(ControllerRevision::getRevision))
                .orElseThrow(
                    () ->
                        new IllegalStateException(
                            "DaemonSet "
                                + namespace
                                + "/"
                                + daemonSet
                                + " has no previous revision"));
    PodTemplateSpec template = PodTemplates.storedTemplate(previous.getData());
    editTemplate(namespace, daemonSet, t -> template);
  }

  @Override
  public void nodeNotReady(String node) {
    controlPlane.nodes().notReady(node);
  }

  @Override
  public void nodeUnreachable(String node) {
    controlPlane.nodes().unreachable(node);
  }

  @Override
  public void nodeReady(String node) {
    controlPlane.nodes().ready(node);
  }
}
