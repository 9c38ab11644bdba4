package dev.stallwatch.operator;

import dev.stallwatch.cli.ExitCodes;
import dev.stallwatch.crd.RolloutStall;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceAttributesBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the operator checks before JOSDK starts its informers, so that a missing CRD or a missing
 * grant is one line naming what to do (exit 3) instead of informer stack traces: the RolloutStall
 * CRD answers a list, its served schema has every field this operator writes ({@link
 * CrdSchemaCheck}: an older CRD left in place by {@code helm upgrade}), and the API server's own
 * authorizer (SelfSubjectAccessReview, which every authenticated user may ask) allows each verb on
 * each resource the operator uses, where it uses it. A server that cannot answer such a review (the
 * embedded mock) is not judged.
 */
public final class StartupCheck {
  private static final Logger log = LoggerFactory.getLogger(StartupCheck.class);
  static final String CRD = "rolloutstalls.stallwatch.dev";

  /** One verb on one resource; {@code namespaced} false: cluster-scoped. */
  public record Need(String group, String resource, String verb, boolean namespaced, String name) {
    String describe() {
      return verb
          + " "
          + resource
          + (group.isEmpty() ? "" : "." + group)
          + (name == null ? "" : " named " + name);
    }
  }

  private StartupCheck() {}

  /**
   * The grants the operator needs with {@code settings}, in the order it uses them: exactly the
   * verbs its code uses, no more (the chart grants the same; {@code HelmChartIT} compares them).
   */
  public static List<Need> needs(OperatorSettings settings) {
    List<Need> needs = new ArrayList<>();
    for (String verb : List.of("list", "watch")) {
      needs.add(new Need("", "nodes", verb, false, null));
      needs.add(new Need("apps", "daemonsets", verb, true, null));
      needs.add(new Need("apps", "controllerrevisions", verb, true, null));
      needs.add(new Need("", "pods", verb, true, null));
      needs.add(new Need("stallwatch.dev", "rolloutstalls", verb, true, null));
    }
    // RolloutStalls are created and deleted whole; only their status is rewritten (PUT /status).
    needs.add(new Need("stallwatch.dev", "rolloutstalls", "create", true, null));
    // A create or status write whose answer was lost (a GOAWAY) is read back (StallWrites).
    needs.add(new Need("stallwatch.dev", "rolloutstalls", "get", true, null));
    needs.add(new Need("stallwatch.dev", "rolloutstalls", "delete", true, null));
    needs.add(new Need("stallwatch.dev", "rolloutstalls/status", "update", true, null));
    needs.add(new Need("", "events", "create", true, null));
    // The controller's FailedCreate warnings, listed on demand (FailedCreates).
    needs.add(new Need("", "events", "list", true, null));
    if (settings.autoRollback()) {
      // RevisionRestorer reads the DaemonSet afresh and patches its template back.
      needs.add(new Need("apps", "daemonsets", "get", true, null));
      needs.add(new Need("apps", "daemonsets", "patch", true, null));
    }
    if (settings.advancedDaemonSets()) {
      // OpenKruise Advanced DaemonSets, read as DaemonSets are (AdvancedDaemonSets).
      for (String verb : List.of("list", "watch")) {
        needs.add(new Need("apps.kruise.io", "daemonsets", verb, true, null));
      }
      if (settings.autoRollback()) {
        needs.add(new Need("apps.kruise.io", "daemonsets", "get", true, null));
        needs.add(new Need("apps.kruise.io", "daemonsets", "patch", true, null));
      }
    }
    for (Need need : conditionNeeds(settings)) {
      if (!needs.contains(need)) { // auto-rollback's "get daemonsets" serves both
        needs.add(need);
      }
    }
    return needs;
  }

  /**
   * The grants of the Stalled condition ({@code --daemonset-conditions}; {@link ConditionWrites}
   * reads the DaemonSet afresh and patches its status). Without them the operator runs on without
   * the condition, after one line naming what is missing.
   */
  static List<Need> conditionNeeds(OperatorSettings settings) {
    if (!settings.daemonSetConditions()) {
      return List.of();
    }
    List<Need> needs = new ArrayList<>();
    needs.add(new Need("apps", "daemonsets", "get", true, null));
    needs.add(new Need("apps", "daemonsets/status", "patch", true, null));
    if (settings.advancedDaemonSets()) {
      needs.add(new Need("apps.kruise.io", "daemonsets", "get", true, null));
      needs.add(new Need("apps.kruise.io", "daemonsets/status", "patch", true, null));
    }
    return needs;
  }

  /**
   * The Lease of leader election, in its namespace: created once, then read, renewed (update) and
   * patched (JOSDK's elector does both; the API server's audit log of a run shows each, see
   * LeastPrivilegeRealClusterIT).
   */
  static List<Need> leaseNeeds() {
    return List.of(
        new Need("coordination.k8s.io", "leases", "create", true, null),
        new Need("coordination.k8s.io", "leases", "get", true, OperatorSettings.LEASE_NAME),
        new Need("coordination.k8s.io", "leases", "update", true, OperatorSettings.LEASE_NAME),
        new Need("coordination.k8s.io", "leases", "patch", true, OperatorSettings.LEASE_NAME));
  }

  /** {@link #needs} and, with leader election, {@link #leaseNeeds}: every grant it checks. */
  public static List<Need> needsWithLease(OperatorSettings settings) {
    List<Need> all = new ArrayList<>(needs(settings));
    if (settings.leaderElection()) {
      all.addAll(leaseNeeds());
    }
    return all;
  }

  /**
   * Throws {@link ExitCodes.AccessException} with one line for the first thing missing; returns the
   * settings to run with: without the Stalled condition when its grants are missing (one line).
   */
  static OperatorSettings run(KubernetesClient client, OperatorSettings settings) {
    // what only the condition needs: without it the operator runs on
    List<Need> required = needs(settings.withDaemonSetConditions(false));
    Need missing = null;
    List<String> scopes =
        settings.allNamespaces()
            ? java.util.Collections.singletonList(null)
            : List.copyOf(settings.namespaces());
    checkCrd(client, scopes.get(0));
    CrdSchemaCheck.run(client);
    for (Need need : needs(settings)) {
      for (String namespace :
          need.namespaced() ? scopes : java.util.Collections.<String>singletonList(null)) {
        if (!allowed(client, need, namespace)) {
          if (required.contains(need)) {
            throw denied(need, namespace);
          }
          if (missing == null) {
            missing = need;
            log.warn(
                "DaemonSet conditions off: the operator may not {}{} — grant it to write the Stalled"
                    + " condition (chart: daemonSetConditions.enabled); RolloutStalls, Events and"
                    + " metrics are written as always",
                need.describe(),
                namespace == null ? " in all namespaces" : " in namespace " + namespace);
          }
        }
      }
    }
    if (settings.leaderElection()) {
      String ns = settings.leaderElectionNamespace();
      for (Need need : leaseNeeds()) {
        if (!allowed(client, need, ns)) {
          throw denied(need, ns);
        }
      }
    }
    return missing == null ? settings : settings.withDaemonSetConditions(false);
  }

  private static ExitCodes.AccessException denied(Need need, String namespace) {
    return new ExitCodes.AccessException(
        "forbidden: the operator may not "
            + need.describe()
            + (need.namespaced()
                ? namespace == null ? " in all namespaces" : " in namespace " + namespace
                : "")
            + " — grant it to its ServiceAccount (the Helm chart's ClusterRole and Roles do)",
        null);
  }

  private static void checkCrd(KubernetesClient client, String namespace) {
    try {
      var stalls = client.resources(RolloutStall.class);
      var options = new ListOptionsBuilder().withLimit(1L).build();
      if (namespace == null) {
        stalls.inAnyNamespace().list(options);
      } else {
        stalls.inNamespace(namespace).list(options);
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        throw new ExitCodes.AccessException(
            "the RolloutStall CRD ("
                + CRD
                + ") is not installed in the cluster: install it with `kubectl apply -f"
                + " crd/rolloutstalls.stallwatch.dev-v1.yml` (also inside the jar) or with the"
                + " Helm chart",
            null);
      }
      // 403 and the rest: the access review below names what is missing.
    }
  }

  /** True unless the API server says no; a server that cannot review is not judged. */
  private static boolean allowed(KubernetesClient client, Need need, String namespace) {
    SelfSubjectAccessReview review =
        new SelfSubjectAccessReviewBuilder()
            .withNewSpec()
            .withResourceAttributes(
                new ResourceAttributesBuilder()
                    .withGroup(need.group())
                    .withResource(need.resource().replaceFirst("/.*", ""))
                    .withSubresource(
                        need.resource().contains("/")
                            ? need.resource().replaceFirst(".*/", "")
                            : null)
                    .withVerb(need.verb())
                    .withNamespace(need.namespaced() ? namespace : null)
                    .withName(need.name())
                    .build())
            .endSpec()
            .build();
    try {
      SelfSubjectAccessReview answer =
          client.authorization().v1().selfSubjectAccessReview().create(review);
      return answer == null
          || answer.getStatus() == null
          || answer.getStatus().getAllowed() == null
          || answer.getStatus().getAllowed();
    } catch (KubernetesClientException e) {
      log.debug("no access review ({}): not checking grants before start", e.getMessage());
      return true;
    }
  }
}
