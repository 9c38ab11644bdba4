package dev.stallwatch.operator.effects;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stallwatch.crd.RolloutStall;
import dev.stallwatch.kube.Keys;
import dev.stallwatch.operator.decision.StalledCondition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the {@link StalledCondition} onto a DaemonSet's status (opt-in, {@code
 * --daemonset-conditions}). Only when the cached DaemonSet does not carry it yet: at steady state
 * nothing is read or written. Then the DaemonSet is read afresh (with its managedFields) and one
 * JSON patch of its status subresource, under the field manager {@value
 * StalledCondition#FIELD_MANAGER}, replaces or adds that one list entry, guarded by the
 * resourceVersion it was read at: it touches no other condition, no count the DaemonSet controller
 * writes, no spec. A {@code Stalled} condition another field manager owns is left alone (counted in
 * {@code stallwatch_daemonset_conditions_foreign}, logged once per DaemonSet).
 */
public final class ConditionWrites {
  private static final Logger log = LoggerFactory.getLogger(ConditionWrites.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesClient client;
  private final StallMetrics metrics;
  private final Set<String> foreign = ConcurrentHashMap.newKeySet();

  /**
   * How long a refused write (403) holds the condition's writes off: an API server that has just
   * restarted refuses for seconds, until its authorizer has caught up; a grant taken away refuses
   * for good, and then one try per this period is all it costs.
   */
  public static final Duration REFUSED_HOLD_OFF = Duration.ofMinutes(5);

  private volatile Instant refusedUntil; // null while writes are allowed

  public ConditionWrites(KubernetesClient client, StallMetrics metrics) {
    this.client = client;
    this.metrics = metrics;
    metrics.foreignConditions(0); // the series exists (at 0) whenever the flag is on
  }

  /** What one sync did. */
  enum Outcome {
    /** Nothing to write, or written. */
    DONE,
    /** The DaemonSet changed between our read and our write: look again shortly. */
    CONFLICT
  }

  /**
   * Makes the DaemonSet {@code ds} (as cached; written at {@code apiVersion}) carry the condition
   * its RolloutStalls {@code stalls} call for, its current revision being {@code newRevision}; at
   * {@code now}, which tells whether a refused write still holds them off.
   */
  public Outcome sync(
      DaemonSet ds,
      String apiVersion,
      Collection<RolloutStall> stalls,
      String newRevision,
      Instant now) {
    var wanted = StalledCondition.of(stalls, newRevision);
    Instant heldOff = refusedUntil;
    if (wanted.isEmpty() || (heldOff != null && now.isBefore(heldOff))) {
      return Outcome.DONE;
    }
    StalledCondition condition = wanted.get();
    if (condition.isIn(conditions(ds))) {
      return Outcome.DONE;
    }
    String ns = ds.getMetadata().getNamespace();
    String name = ds.getMetadata().getName();
    var resource =
        client.genericKubernetesResources(apiVersion, "DaemonSet").inNamespace(ns).withName(name);
    try {
      GenericKubernetesResource fresh = resource.get();
      if (fresh == null) {
        return Outcome.DONE; // deleted meanwhile
      }
      List<DaemonSetCondition> current = conditions(fresh);
      if (condition.isIn(current)) {
        return Outcome.DONE;
      }
      String owner = ownerOfCondition(fresh.getMetadata().getManagedFields());
      if (StalledCondition.in(current).isPresent()
          && owner != null
          && !StalledCondition.FIELD_MANAGER.equals(owner)) {
        if (foreign.add(Keys.of(ns, name))) {
          metrics.foreignConditions(foreign.size());
          log.info(
              "DaemonSet {}/{}: its {} condition is written by {}, not by stallwatch: left alone",
              ns,
              name,
              StalledCondition.TYPE,
              owner);
        }
        return Outcome.DONE;
      }
      if (foreign.remove(Keys.of(ns, name))) {
        metrics.foreignConditions(foreign.size());
      }
      resource
          .subresource("status")
          .patch(
              new PatchContext.Builder()
                  .withPatchType(PatchType.JSON)
                  .withFieldManager(StalledCondition.FIELD_MANAGER)
                  .build(),
              patch(condition, current, fresh.getMetadata().getResourceVersion()));
      if (refusedUntil != null) {
        refusedUntil = null;
        log.info("DaemonSet conditions: written again after a refusal");
      }
      log.info(
          "DaemonSet {}/{}: condition {}={} ({}): {}",
          ns,
          name,
          StalledCondition.TYPE,
          condition.status(),
          condition.reason(),
          condition.message());
      return Outcome.DONE;
    } catch (KubernetesClientException e) {
      return failed(ns, name, e, now);
    }
  }

  private Outcome failed(String ns, String name, KubernetesClientException e, Instant now) {
    switch (e.getCode()) {
      case 404:
        return Outcome.DONE; // deleted meanwhile: nothing to mark
      case 409, 422:
        // changed since read (the patch's resourceVersion test): read again next time
        log.debug("DaemonSet {}/{}: condition write raced a change: {}", ns, name, e.getMessage());
        return Outcome.CONFLICT;
      case 403:
        if (refusedUntil == null) {
          log.warn(
              "DaemonSet conditions: forbidden to read a DaemonSet or patch its status ({}); the {}"
                  + " condition is not written for {} min, then tried again (RolloutStalls are"
                  + " written as always); grant get on daemonsets and patch on daemonsets/status"
                  + " (chart: daemonSetConditions.enabled)",
              e.getMessage(),
              StalledCondition.TYPE,
              REFUSED_HOLD_OFF.toMinutes());
        }
        refusedUntil = now.plus(REFUSED_HOLD_OFF);
        return Outcome.DONE;
      default:
        throw e; // an outage or throttling: the reconcile's own handling retries it
    }
  }

  /**
   * The JSON patch that writes {@code condition} into {@code current} (the DaemonSet's status
   * conditions at {@code resourceVersion}): replaces the {@code Stalled} entry, or adds one (or the
   * list), and fails (422) if the DaemonSet has changed since that version.
   */
  public static String patch(
      StalledCondition condition, List<DaemonSetCondition> current, String resourceVersion) {
    ArrayNode ops = JSON.createArrayNode();
    ops.addObject()
        .put("op", "test")
        .put("path", "/metadata/resourceVersion")
        .put("value", resourceVersion);
    JsonNode value = JSON.valueToTree(condition.toCondition());
    if (current == null) {
      ObjectNode op = ops.addObject().put("op", "add").put("path", "/status/conditions");
      op.putArray("value").add(value);
    } else {
      int at = -1;
      for (int i = 0; i < current.size(); i++) {
        if (current.get(i) != null && StalledCondition.TYPE.equals(current.get(i).getType())) {
          at = i;
          break;
        }
      }
      ops.addObject()
          .put("op", at < 0 ? "add" : "replace")
          .put("path", "/status/conditions/" + (at < 0 ? "-" : String.valueOf(at)))
          .set("value", value);
    }
    return ops.toString();
  }

  /**
   * The field manager that owns the {@code Stalled} condition's entry, by the object's
   * managedFields; null when none is recorded (an API server without them).
   */
  public static String ownerOfCondition(List<ManagedFieldsEntry> managed) {
    if (managed == null) {
      return null;
    }
    String key = "k:{\"type\":\"" + StalledCondition.TYPE + "\"}";
    for (ManagedFieldsEntry e : managed) {
      if (e == null || e.getFieldsV1() == null) {
        continue;
      }
      JsonNode fields = JSON.valueToTree(e.getFieldsV1().getAdditionalProperties());
      if (fields.path("f:status").path("f:conditions").has(key)) {
        return e.getManager();
      }
    }
    return null;
  }

  private static List<DaemonSetCondition> conditions(DaemonSet ds) {
    return ds.getStatus() == null ? null : ds.getStatus().getConditions();
  }

  private static List<DaemonSetCondition> conditions(GenericKubernetesResource ds) {
    Object status = ds.getAdditionalProperties().get("status");
    if (!(status instanceof java.util.Map<?, ?> map) || !map.containsKey("conditions")) {
      return null;
    }
    return JSON.convertValue(
        map.get("conditions"),
        JSON.getTypeFactory().constructCollectionType(List.class, DaemonSetCondition.class));
  }
}
