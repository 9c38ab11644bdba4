package dev.stallwatch.sim;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * A named story for the simulated cluster: the nodes, DaemonSets and other pods it starts with,
 * what the kubelets do per node and image, and timed events (a new image, a node going away, a
 * rollback) at offsets from the start. Build one with {@link #builder}; the catalogue is {@link
 * Scenarios}.
 */
public final class Scenario {

  /** Something that happens {@code at} after the start. */
  public record Event(Duration at, String description, Consumer<ScenarioActions> action) {}

  private final String name;
  private final String story;
  private final long seed;
  private final List<Node> nodes;
  private final List<DaemonSet> daemonSets;
  private final List<Pod> pods;
  private final Consumer<KubeletScript> kubelet;
  private final List<Event> events;
  private final List<String> updateOrder;

  private Scenario(Builder b) {
    this.name = b.name;
    this.story = b.story;
    this.seed = b.seed;
    this.nodes = List.copyOf(b.nodes);
    this.daemonSets = List.copyOf(b.daemonSets);
    this.pods = List.copyOf(b.pods);
    this.kubelet = b.kubelet;
    this.events = b.events.stream().sorted(Comparator.comparing(Event::at)).toList();
    this.updateOrder = List.of();
  }

  private Scenario(Scenario s, List<String> updateOrder) {
    this.name = s.name;
    this.story = s.story;
    this.seed = s.seed;
    this.nodes = s.nodes;
    this.daemonSets = s.daemonSets;
    this.pods = s.pods;
    this.kubelet = s.kubelet;
    this.events = s.events;
    this.updateOrder = List.copyOf(updateOrder);
  }

  public static Builder builder(String name, String story) {
    return new Builder(name, story);
  }

  public String name() {
    return name;
  }

  /** One line: what happens in this scenario. */
  public String story() {
    return story;
  }

  public long seed() {
    return seed;
  }

  /** Fresh copies, so a scenario can be installed more than once. */
  public List<Node> nodes() {
    return nodes.stream().map(Serialization::clone).toList();
  }

  public List<DaemonSet> daemonSets() {
    return daemonSets.stream().map(Serialization::clone).toList();
  }

  public List<Pod> pods() {
    return pods.stream().map(Serialization::clone).toList();
  }

  /** A new kubelet script for this scenario. */
  public KubeletScript kubeletScript() {
    KubeletScript script = new KubeletScript();
    kubelet.accept(script);
    return script;
  }

  public List<Event> events() {
    return events;
  }

  /**
   * The nodes the rolling update takes first, in this order; the others follow by name. Empty
   * (every node by name) unless set by {@link #withUpdateOrder}.
   */
  public List<String> updateOrder() {
    return updateOrder;
  }

  /**
   * This scenario with the rolling update taking {@code nodes} first, in that order. Upstream's
   * controller takes candidates in a Go map's order, which is chance; this replays what one real
   * controller picked, so the simulator can be compared with it node for node.
   */
  public Scenario withUpdateOrder(List<String> nodes) {
    return new Scenario(this, nodes);
  }

  /** Builds a {@link Scenario}. */
  public static final class Builder {
    private final String name;
    private final String story;
    private long seed = 1;
    private final List<Node> nodes = new ArrayList<>();
    private final List<DaemonSet> daemonSets = new ArrayList<>();
    private final List<Pod> pods = new ArrayList<>();
    private Consumer<KubeletScript> kubelet = s -> {};
    private final List<Event> events = new ArrayList<>();

    private Builder(String name, String story) {
      this.name = name;
      this.story = story;
    }

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Builder node(Node node) {
      nodes.add(node);
      return this;
    }

    public Builder daemonSet(DaemonSet ds) {
      daemonSets.add(ds);
      return this;
    }

    /** A pod that is not a daemon pod, e.g. a workload already holding a node's GPU. */
    public Builder pod(Pod pod) {
      pods.add(pod);
      return this;
    }

    public Builder kubelet(Consumer<KubeletScript> script) {
      Consumer<KubeletScript> before = kubelet;
      kubelet = before.andThen(script);
      return this;
    }

    public Builder at(Duration at, String description, Consumer<ScenarioActions> action) {
      events.add(new Event(at, description, action));
      return this;
    }

    public Scenario build() {
      return new Scenario(this);
    }
  }
}
