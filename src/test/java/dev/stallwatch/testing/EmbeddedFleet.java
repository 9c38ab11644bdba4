package dev.stallwatch.testing;

import dev.stallwatch.rollout.MetadataKeys;
import dev.stallwatch.testcluster.TestApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A fleet on the embedded API server: {@code nodes} nodes and {@code daemonSets} DaemonSets of one
 * pod per node, spread over {@code namespaces} in turn, every pod Running and Ready on revision 1.
 * The DaemonSets and their ControllerRevisions are stored; the nodes and pods are generated ({@link
 * FleetObjects}) and served page by page ({@link PagedList}), cluster-wide and per namespace, as
 * kube-apiserver lists them — 20,000 realistic pods would be gigabytes of strings in the mock's
 * store. Pods written afterwards (a test's stall) are stored, watched, and replace the generated
 * pod of the same name in a later list.
 */
public final class EmbeddedFleet implements AutoCloseable {

  private final TestApiServer server;
  private final int nodes;
  private final long page;
  private final List<DaemonSetFixture> daemonSets = new ArrayList<>();
  private final List<FleetObjects> pods = new ArrayList<>();
  private final List<PagedList> podLists = new ArrayList<>();
  private final PagedList nodeList;

  /**
   * @param page objects per page, as the operator's informers ask for them
   * @param pageDelay how long the first page of each pod list takes to answer
   */
  public EmbeddedFleet(
      int nodes, int daemonSets, List<String> namespaces, long page, Duration pageDelay) {
    this.server = new TestApiServer();
    this.nodes = nodes;
    this.page = page;
    try {
      KubernetesClient client = server.client();
      for (int d = 0; d < daemonSets; d++) {
        DaemonSetFixture ds =
            new DaemonSetFixture(client, namespaces.get(d % namespaces.size()), "agent-" + d);
        String uid = ds.daemonSet(1, nodes, nodes, nodes).getMetadata().getUid();
        this.daemonSets.add(ds);
        pods.add(new FleetObjects(ds.namespace(), ds.name(), uid, ds.hash(1), 1, ds.image(1)));
      }
      FleetObjects nodeShape = pods.get(0);
      nodeList =
          new PagedList(
              server.mockServer(),
              "/api/v1/nodes",
              Map.of(),
              page,
              nodes,
              FleetObjects::nodeName,
              nodeShape::node,
              () -> server.stored("/api/v1/nodes"),
              Duration.ZERO);
      String selector = MetadataKeys.TEMPLATE_GENERATION_LABEL;
      podLists.add(podList("/api/v1/pods", daemonSets(null), selector, pageDelay));
      for (String ns : namespaces) {
        podLists.add(
            podList("/api/v1/namespaces/" + ns + "/pods", daemonSets(ns), selector, pageDelay));
      }
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  private List<Integer> daemonSets(String namespace) {
    List<Integer> in = new ArrayList<>();
    for (int d = 0; d < daemonSets.size(); d++) {
      if (namespace == null || daemonSets.get(d).namespace().equals(namespace)) {
        in.add(d);
      }
    }
    return in;
  }

  private PagedList podList(
      String path, List<Integer> owners, String selector, Duration pageDelay) {
    return new PagedList(
        server.mockServer(),
        path,
        Map.of("labelSelector", selector),
        page,
        owners.size() * nodes,
        i -> key(owners.get(i / nodes), i % nodes),
        i ->
            pods.get(owners.get(i / nodes))
                .pod(i % nodes, podName(owners.get(i / nodes), i % nodes)),
        () -> server.stored(path + "?labelSelector=" + selector),
        pageDelay);
  }

  private String key(int d, int node) {
    return daemonSets.get(d).namespace() + "/" + podName(d, node);
  }

  /** The name the DaemonSet fixture gives DaemonSet {@code d}'s pod on node {@code node}. */
  private String podName(int d, int node) {
    return daemonSets.get(d).name() + "-" + FleetObjects.nodeName(node);
  }

  /** How many DaemonSet pods are generated. */
  public int podCount() {
    return daemonSets.size() * nodes;
  }

  public int nodeCount() {
    return nodes;
  }

  /** DaemonSet {@code d}: write its next revision and pods with it. */
  public DaemonSetFixture daemonSet(int d) {
    return daemonSets.get(d);
  }

  public TestApiServer server() {
    return server;
  }

  public KubernetesClient client() {
    return server.client();
  }

  /** Pod pages answered so far, over every pod list (cluster-wide and per namespace). */
  public int podPagesServed() {
    return podLists.stream().mapToInt(PagedList::pagesServed).sum();
  }

  /** How many pages one whole list of every pod takes. */
  public int podPages() {
    return (int) ((podCount() + page - 1) / page);
  }

  /** Pod lists answered to their last page, over every pod list. */
  public int podListsCompleted() {
    return podLists.stream().mapToInt(PagedList::listsCompleted).sum();
  }

  /** Node lists answered to their last page. */
  public int nodeListsCompleted() {
    return nodeList.listsCompleted();
  }

  /** A kubeconfig for this fleet's API server, written to {@code file}. */
  public Path kubeconfig(Path file) {
    return server.writeKubeconfig(file);
  }

  @Override
  public void close() {
    server.close();
  }
}
