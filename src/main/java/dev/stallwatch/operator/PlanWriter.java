package dev.stallwatch.operator;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.operator.RolloutPlan.LogLine;
import dev.stallwatch.operator.RolloutPlan.Notice;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Performs a {@link RolloutPlan}, in its order: log lines, RolloutStall writes ({@link
 * StallWrites}: each write's Event and counter once it is done), Events on the DaemonSet, metrics,
 * deletion of a deleted DaemonSet's stalls. Decides nothing.
 */
final class PlanWriter {
  private static final Logger log = LoggerFactory.getLogger(DaemonSetRolloutReconciler.class);

  private final StallWrites writes;
  private final StallEvents events;
  private final StallMetrics metrics;

  PlanWriter(StallWrites writes, StallEvents events, StallMetrics metrics) {
    this.writes = writes;
    this.events = events;
    this.metrics = metrics;
  }

  void apply(DaemonSet ds, RolloutPlan plan, InformerEventSource<RolloutStall, ?> stallCache) {
    apply(ds, plan, stallCache, name -> {});
  }

  /**
   * Performs {@code plan}; {@code unannounced} hears each new stall whose write failed with its
   * outcome unknown ({@link StallWrites#apply}).
   */
  void apply(
      DaemonSet ds,
      RolloutPlan plan,
      InformerEventSource<RolloutStall, ?> stallCache,
      java.util.function.Consumer<String> unannounced) {
    for (LogLine line : plan.log()) {
      switch (line.level()) {
        case DEBUG -> log.debug(line.message());
        case INFO -> log.info(line.message());
        case WARN -> log.warn(line.message());
      }
    }
    if (!plan.stalls().changes().isEmpty()) {
      writes.apply(ds, plan.stalls(), stallCache, unannounced);
    }
    for (Notice n : plan.events()) {
      if (n.warning()) {
        events.warning(ds, n.reason(), n.message());
      } else {
        events.normal(ds, n.reason(), n.message());
      }
    }
    String ns = ds.getMetadata().getNamespace();
    String name = ds.getMetadata().getName();
    if (plan.metrics() != null) {
      var m = plan.metrics();
      metrics.observe(ns, name, m.split(), m.active(), m.routing(), m.pace(), m.paused());
    }
    if (plan.countRollback()) {
      metrics.countRollback(ns, name);
    }
    if (plan.forget()) {
      metrics.forget(ns, name);
    }
    plan.orphans().forEach(this::deleteQuietly);
  }

  private void deleteQuietly(RolloutStall stall) {
    try {
      writes.delete(stall);
    } catch (RuntimeException e) {
      log.warn(
          "could not delete RolloutStall {}/{}: {}",
          stall.getMetadata().getNamespace(),
          stall.getMetadata().getName(),
          e.getMessage());
    }
  }
}
