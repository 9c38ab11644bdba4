package dev.stallwatch.realcluster;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The objects of a scale run in namespace {@value #NAMESPACE}: {@code daemonSets} DaemonSets on
 * every node ({@code maxUnavailable: 10%}), a Deployment of ordinary pods (which the operator must
 * not cache), and one-node "probe" DaemonSets, each pinned to a node, whose image is broken to
 * inject a stall at that node.
 */
final class ScaleWorkload {
  static final String NAMESPACE = "scale";
  static final String GOOD_IMAGE = "example.com/agent:1.0";
  static final String NEXT_IMAGE = "example.com/agent:2.0";

  /** kwok's pull-failure cue: an image under the reserved registry.invalid never pulls. */
  static final String BROKEN_IMAGE = "registry.invalid/probe:broken";

  private final KubernetesClient admin;

  ScaleWorkload(KubernetesClient admin) {
    this.admin = admin;
  }

  static String daemonSet(int i) {
    return "agent-%02d".formatted(i);
  }

  static String probe(int i) {
    return "probe-%02d".formatted(i);
  }

  /** Creates everything; the probes on the given nodes. */
  void create(int daemonSets, int ordinaryPods, List<String> probeNodes) {
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .serverSideApply();
    for (int i = 0; i < daemonSets; i++) {
      admin
          .apps()
          .daemonSets()
          .inNamespace(NAMESPACE)
          .resource(ds(daemonSet(i), "10%", null))
          .create();
    }
    for (int i = 0; i < probeNodes.size(); i++) {
      admin
          .apps()
          .daemonSets()
          .inNamespace(NAMESPACE)
          .resource(ds(probe(i), "1", Map.of("kubernetes.io/hostname", probeNodes.get(i))))
          .create();
    }
    admin
        .apps()
        .deployments()
        .inNamespace(NAMESPACE)
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName("web")
                .endMetadata()
                .withNewSpec()
                .withReplicas(ordinaryPods)
                .withNewSelector()
                .addToMatchLabels("app", "web")
                .endSelector()
                .withTemplate(template("web", "example.com/web:1.0", null))
                .endSpec()
                .build())
        .create();
  }

  private static DaemonSet ds(String name, String maxUnavailable, Map<String, String> selector) {
    return new DaemonSetBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNewSelector()
        .addToMatchLabels("app", name)
        .endSelector()
        .withNewUpdateStrategy()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        .withMaxUnavailable(
            maxUnavailable.endsWith("%")
                ? new IntOrString(maxUnavailable)
                : new IntOrString(Integer.parseInt(maxUnavailable)))
        .endRollingUpdate()
        .endUpdateStrategy()
        .withTemplate(template(name, GOOD_IMAGE, selector))
        .endSpec()
        .build();
  }

  private static PodTemplateSpec template(String app, String image, Map<String, String> selector) {
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .addToLabels("app", app)
        .endMetadata()
        .withNewSpec()
        .withNodeSelector(selector)
        .addNewContainer()
        .withName("main")
        .withImage(image)
        .endContainer()
        .endSpec()
        .build();
  }

  /** Every DaemonSet rolled out and available, and the Deployment's pods available. */
  boolean settled() {
    for (DaemonSet ds : admin.apps().daemonSets().inNamespace(NAMESPACE).list().getItems()) {
      if (!rolledOut(ds)) {
        return false;
      }
    }
    var web = admin.apps().deployments().inNamespace(NAMESPACE).withName("web").get();
    return web != null
        && web.getStatus() != null
        && java.util.Objects.equals(
            web.getStatus().getAvailableReplicas(), web.getSpec().getReplicas());
  }

  /** The DaemonSet's controller has put its current template on every node and it is available. */
  static boolean rolledOut(DaemonSet ds) {
    DaemonSetStatus s = ds.getStatus();
    if (s == null || s.getObservedGeneration() == null) {
      return false;
    }
    int desired = s.getDesiredNumberScheduled();
    return s.getObservedGeneration() >= ds.getMetadata().getGeneration()
        && desired > 0
        && n(s.getUpdatedNumberScheduled()) == desired
        && n(s.getNumberAvailable()) == desired
        && n(s.getCurrentNumberScheduled()) == desired;
  }

  boolean rolledOut(String name) {
    DaemonSet ds = admin.apps().daemonSets().inNamespace(NAMESPACE).withName(name).get();
    return ds != null && rolledOut(ds);
  }

  private static int n(Integer i) {
    return i == null ? 0 : i;
  }

  /** Changes a DaemonSet's image: a rollout (or, with {@link #BROKEN_IMAGE}, a stall). */
  void setImage(String daemonSet, String image) {
    Conflicts.retry(
        () ->
            admin
                .apps()
                .daemonSets()
                .inNamespace(NAMESPACE)
                .withName(daemonSet)
                .edit(
                    ds -> {
                      ds.getSpec().getTemplate().getSpec().getContainers().get(0).setImage(image);
                      return ds;
                    }));
  }

  /**
   * One kubelet heartbeat round on every node: {@code lastHeartbeatTime} of every condition set to
   * now, as kwok's node-heartbeat stage does every 5 minutes for each node. Returns the nodes
   * written (a conflict with kwok's own write is skipped).
   */
  int heartbeatRound(int threads) throws Exception {
    List<Node> nodes = admin.nodes().list().getItems();
    String now = Instant.now().toString();
    AtomicInteger written = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (Node node : nodes) {
        done.add(
            pool.submit(
                () -> {
                  try {
                    admin
                        .nodes()
                        .resource(node)
                        .editStatus(
                            n -> {
                              for (NodeCondition c : n.getStatus().getConditions()) {
                                c.setLastHeartbeatTime(now);
                              }
                              return n;
                            });
                    written.incrementAndGet();
                  } catch (KubernetesClientException e) {
                    if (e.getCode() != 409) {
                      throw e;
                    }
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return written.get();
  }
}
