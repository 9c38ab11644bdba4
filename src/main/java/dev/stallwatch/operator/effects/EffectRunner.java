package dev.stallwatch.operator.effects;

import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.kube.Keys;
import dev.stallwatch.operator.decision.Effect;
import dev.stallwatch.operator.decision.Performed;
import dev.stallwatch.rollback.AutoRollback;
import dev.stallwatch.rollback.RollbackOutcome;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a decision's {@link Effect}s in their order: the one place where the operator writes
 * RolloutStalls ({@link StallWrites}), Events ({@link StallEvents}), metrics ({@link
 * StallMetrics}), the DaemonSet's condition ({@link ConditionWrites}) and its rollback ({@link
 * AutoRollback}). Decides nothing: what the effects came to goes back to the decider as a {@link
 * Performed}. A write that fails ends the run there (the effects after it, its Event among them,
 * are not run); its failure is handed back to be thrown once the outcome is settled.
 */
public final class EffectRunner {
  private static final Logger log = LoggerFactory.getLogger(EffectRunner.class);

  private final StallWrites writes;
  private final StallEvents events;
  private final StallMetrics metrics;
  private final ConditionWrites conditions; // null unless --daemonset-conditions
  private final AutoRollback rollback;

  public EffectRunner(
      StallWrites writes,
      StallEvents events,
      StallMetrics metrics,
      ConditionWrites conditions,
      AutoRollback rollback) {
    this.writes = writes;
    this.events = events;
    this.metrics = metrics;
    this.conditions = conditions;
    this.rollback = rollback;
  }

  /**
   * What the effects act on.
   *
   * @param ds the DaemonSet, as cached
   * @param apiVersion the version its status is written at
   * @param stallCache the RolloutStalls' informer, which hears of each write at once
   * @param stalls the DaemonSet's RolloutStalls as the cache shows them when asked
   * @param now the reconcile's time
   */
  public record Target(
      DaemonSet ds,
      String apiVersion,
      InformerEventSource<RolloutStall, ?> stallCache,
      Supplier<? extends Collection<RolloutStall>> stalls,
      Instant now) {}

  public Performed run(Target target, List<Effect> effects) {
    DaemonSet ds = target.ds();
    String ns = ds.getMetadata().getNamespace();
    String name = ds.getMetadata().getName();
    Set<String> unannounced = new HashSet<>();
    RollbackOutcome rolledBack = null;
    boolean conflict = false;
    Instant next = null;
    for (Effect effect : effects) {
      try {
        if (effect instanceof Effect.Log line) {
          log(line);
        } else if (effect instanceof Effect.CreateStall c) {
          writes.create(ds, c.stall(), target.stallCache());
        } else if (effect instanceof Effect.WriteStatus w) {
          writes.writeStatus(w.stall(), target.stallCache());
        } else if (effect instanceof Effect.DeleteStall d) {
          delete(d);
        } else if (effect instanceof Effect.Emit e) {
          events.emit(ds, e.reason(), e.message());
        } else if (effect instanceof Effect.CountStall c) {
          metrics.countStall(ns, name, c.cause());
        } else if (effect instanceof Effect.CountRollback) {
          metrics.countRollback(ns, name);
        } else if (effect instanceof Effect.SetSeries series) {
          metrics.observe(ns, name, series);
        } else if (effect instanceof Effect.DropSeries) {
          metrics.forget(ns, name);
        } else if (effect instanceof Effect.RollBack r) {
          rolledBack = rollback.perform(ds, r.decision(), target.now());
        } else if (effect instanceof Effect.SyncCondition c) {
          conflict |= conditionConflict(target, c.revision());
        } else if (effect instanceof Effect.LookAgain l) {
          next = next == null || l.at().isBefore(next) ? l.at() : next;
        } else {
          throw new IllegalStateException("no runner for " + effect);
        }
      } catch (RuntimeException e) {
        // A write whose answer was lost and could not be read back may have landed: a stall it
        // starts may be Active without its Event. A conflict, or a read-back without it, landed
        // nothing (the reconcile that met it may have read a stale copy of a stall already
        // written and announced).
        if (starts(effect)
            && e instanceof KubernetesClientException k
            && StallWrites.answerLost(k)) {
          unannounced.add(stallOf(effect).getMetadata().getName());
        }
        return new Performed(unannounced, rolledBack, conflict, next, e);
      }
    }
    return new Performed(unannounced, rolledBack, conflict, next, null);
  }

  private boolean conditionConflict(Target target, String revision) {
    return conditions != null
        && conditions.sync(
                target.ds(), target.apiVersion(), target.stalls().get(), revision, target.now())
            == ConditionWrites.Outcome.CONFLICT;
  }

  private static boolean starts(Effect effect) {
    return effect instanceof Effect.CreateStall
        || (effect instanceof Effect.WriteStatus w && w.starts());
  }

  private static RolloutStall stallOf(Effect effect) {
    return effect instanceof Effect.CreateStall c
        ? c.stall()
        : ((Effect.WriteStatus) effect).stall();
  }

  private void delete(Effect.DeleteStall d) {
    if (d.expired()) {
      writes.delete(d.stall());
      log.info("deleted RolloutStall {} (resolved longer than the TTL)", Keys.of(d.stall()));
      return;
    }
    try {
      writes.delete(d.stall());
    } catch (RuntimeException e) {
      log.warn("could not delete RolloutStall {}: {}", Keys.of(d.stall()), e.getMessage());
    }
  }

  private static void log(Effect.Log line) {
    switch (line.level()) {
      case DEBUG -> log.debug(line.message());
      case INFO -> log.info(line.message());
      case WARN -> log.warn(line.message());
    }
  }
}
