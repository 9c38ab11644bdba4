package dev.stallwatch.kube;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.stallwatch.rollout.AdvancedStrategy;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * OpenKruise's Advanced DaemonSet ({@code daemonsets.apps.kruise.io}, v1beta1: the version kruise
 * 1.9 stores) as the operator watches it. Its spec and status are read into fabric8's {@code
 * apps/v1} DaemonSet model, a superset of their shape but for kruise's own fields, which that model
 * keeps as additional properties ({@link AdvancedViews} reads them); {@link #toDaemonSet} hands the
 * object to everything that reads DaemonSets.
 */
@Group(AdvancedStrategy.GROUP)
@Version(AdvancedDaemonSet.VERSION)
@Kind("DaemonSet")
@Plural("daemonsets")
@Singular("daemonset")
@JsonIgnoreProperties(ignoreUnknown = true)
public class AdvancedDaemonSet extends CustomResource<DaemonSetSpec, DaemonSetStatus>
    implements Namespaced {
  private static final long serialVersionUID = 1L;

  public static final String VERSION = "v1beta1";

  /** {@code apps.kruise.io/v1beta1}. */
  public static final String API_VERSION = AdvancedStrategy.GROUP + "/" + VERSION;

  /** The resource name of the CRD that serves it. */
  public static final String CRD = "daemonsets." + AdvancedStrategy.GROUP;

  /** The same object as a DaemonSet of its own API version (not a copy of its fields' objects). */
  public DaemonSet toDaemonSet() {
    DaemonSet ds = new DaemonSet();
    ds.setApiVersion(getApiVersion() == null ? API_VERSION : getApiVersion());
    ds.setKind("DaemonSet");
    ds.setMetadata(getMetadata());
    ds.setSpec(getSpec());
    ds.setStatus(getStatus());
    return ds;
  }
}
