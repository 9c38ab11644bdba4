package dev.stallwatch.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.stallwatch.rollout.MetadataKeys;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One stalled rollout: a DaemonSet whose rollout to one new revision stopped on a node. The
 * operator creates it when the analyzer says {@code Stalled}, keeps it current while the stall
 * lasts, marks it {@code Resolved} when the rollout moves on, and deletes it after a TTL.
 *
 * <p>Short names {@code rstall} and {@code rollstall}: {@code rs} is ReplicaSet.
 */
@Group(RolloutStall.GROUP)
@Version(RolloutStall.VERSION)
@Kind("RolloutStall")
@Plural("rolloutstalls")
@Singular("rolloutstall")
@ShortNames({"rstall", "rollstall"})
@Categories("stallwatch")
@AdditionalPrinterColumn(name = "DaemonSet", jsonPath = ".spec.daemonSet", type = Type.STRING)
@AdditionalPrinterColumn(name = "API", jsonPath = ".spec.daemonSetAPIVersion", type = Type.STRING)
@AdditionalPrinterColumn(name = "Node", jsonPath = ".status.node", type = Type.STRING)
@AdditionalPrinterColumn(name = "Cause", jsonPath = ".status.cause", type = Type.STRING)
@AdditionalPrinterColumn(name = "Old", jsonPath = ".status.oldRevision.hash", type = Type.STRING)
@AdditionalPrinterColumn(name = "New", jsonPath = ".status.newRevision.hash", type = Type.STRING)
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.ready", type = Type.STRING)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = Type.DATE)
@AdditionalPrinterColumn(
    name = "Stalled-Nodes",
    jsonPath = ".status.stalledNodeCount",
    type = Type.INTEGER,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Split",
    jsonPath = ".status.split.summary",
    type = Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Suspect",
    jsonPath = ".status.suspect",
    type = Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Reason",
    jsonPath = ".status.reason",
    type = Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Old-Image",
    jsonPath = ".status.oldRevision.image",
    type = Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "New-Image",
    jsonPath = ".status.newRevision.image",
    type = Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Stalled-Since",
    jsonPath = ".status.stalledSince",
    type = Type.DATE,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Rolled-Back",
    jsonPath = ".status.rollback.at",
    type = Type.DATE,
    priority = 1)
@JsonIgnoreProperties(ignoreUnknown = true)
public class RolloutStall extends CustomResource<RolloutStallSpec, RolloutStallStatus>
    implements Namespaced {

  public static final String GROUP = "stallwatch.dev";
  public static final String VERSION = "v1alpha1";

  /** Classpath location of the generated CRD, packaged into the jar. */
  public static final String CRD_RESOURCE = "crd/rolloutstalls.stallwatch.dev-v1.yml";

  // Spec and status are records; the API, not a default constructor, fills them in.
  @Override
  protected RolloutStallSpec initSpec() {
    return null;
  }

  @Override
  protected RolloutStallStatus initStatus() {
    return null;
  }

  /** True when someone set {@value MetadataKeys#ACKNOWLEDGED} to {@code "true"} on this stall. */
  public boolean acknowledged() {
    var annotations = getMetadata() == null ? null : getMetadata().getAnnotations();
    return annotations != null
        && "true".equalsIgnoreCase(annotations.getOrDefault(MetadataKeys.ACKNOWLEDGED, "").trim());
  }
}
