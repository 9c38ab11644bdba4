package dev.stallwatch.operator.cache;

import dev.stallwatch.kube.InvalidObjectException;
import dev.stallwatch.kube.Keys;
import dev.stallwatch.kube.KubeViews;
import dev.stallwatch.rollout.EventView;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DaemonSet controller's FailedCreate warnings, read on demand: the operator never watches
 * Events (a busy cluster writes thousands a minute). A reconcile lists one DaemonSet's Events only
 * when {@link RolloutState#failedCreatesDue} says so: while a node of it without any pod has
 * crossed stall-after with no other explanation, once per {@link RolloutDecider#EVENTS_REFRESH}.
 */
public final class FailedCreates {
  private static final Logger log = LoggerFactory.getLogger(FailedCreates.class);

  private final KubernetesClient client;

  public FailedCreates(KubernetesClient client) {
    this.client = client;
  }

  /** The FailedCreate warnings about {@code ds}, listed now (none when they cannot be listed). */
  public List<EventView> list(DaemonSet ds) {
    String ns = ds.getMetadata().getNamespace();
    String name = ds.getMetadata().getName();
    String key = Keys.of(ds);
    List<EventView> events = new ArrayList<>();
    try {
      for (Event e :
          client
              .v1()
              .events()
              .inNamespace(ns)
              .withField("involvedObject.kind", "DaemonSet")
              .withField("involvedObject.name", name)
              .list()
              .getItems()) {
        try {
          EventView view = KubeViews.event(e);
          if (view.failedCreate()) {
            events.add(view);
          }
        } catch (InvalidObjectException bad) {
          log.debug("{}: skipping an unreadable Event: {}", key, bad.getMessage());
        }
      }
    } catch (KubernetesClientException e) {
      // Not allowed to list events (an older chart), or the API server away: the node stays
      // Unknown, as before; try again after REFRESH.
      log.warn(
          "{}: cannot list its Events to explain a node without a pod: {}", key, e.getMessage());
    }
    return List.copyOf(events);
  }
}
