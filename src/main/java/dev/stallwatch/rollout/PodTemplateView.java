package dev.stallwatch.rollout;

import java.util.List;
import java.util.Map;

/**
 * What the analyzer reads of a pod template: the scheduling constraints that decide which nodes a
 * DaemonSet should run on, the containers (for images), and a canonical form used to decide which
 * ControllerRevision matches the DaemonSet's current template.
 *
 * @param requiredNodeAffinity the terms of {@code
 *     affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution}, or null when absent
 *     (an empty list means "matches nothing", as upstream)
 * @param canonical a stable serialization of the whole template (sorted keys) — equal templates
 *     give equal strings; null when unknown
 */
public record PodTemplateView(
    Map<String, String> labels,
    Map<String, String> nodeSelector,
    List<NodeSelectorTerm> requiredNodeAffinity,
    List<Toleration> tolerations,
    String nodeName,
    boolean hostNetwork,
    List<Container> initContainers,
    List<Container> containers,
    String canonical) {

  public PodTemplateView {
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
    requiredNodeAffinity = requiredNodeAffinity == null ? null : List.copyOf(requiredNodeAffinity);
    tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
    nodeName = nodeName == null ? "" : nodeName;
    initContainers = initContainers == null ? List.of() : List.copyOf(initContainers);
    containers = containers == null ? List.of() : List.copyOf(containers);
  }

  /** The images of the main containers, in template order. */
  public List<String> images() {
    return containers.stream().map(Container::image).toList();
  }

  /** A toleration as in {@code core/v1}; empty strings stand for absent fields. */
  public record Toleration(
      String key, String operator, String value, String effect, Long tolerationSeconds) {
    public Toleration {
      key = key == null ? "" : key;
      operator = operator == null || operator.isEmpty() ? "Equal" : operator;
      value = value == null ? "" : value;
      effect = effect == null ? "" : effect;
    }
  }

  /** One node selector term: all expressions and all fields must match. */
  public record NodeSelectorTerm(
      List<Requirement> matchExpressions, List<Requirement> matchFields) {
    public NodeSelectorTerm {
      matchExpressions = matchExpressions == null ? List.of() : List.copyOf(matchExpressions);
      matchFields = matchFields == null ? List.of() : List.copyOf(matchFields);
    }
  }

  /** A node selector requirement: {@code key operator values}. */
  public record Requirement(String key, String operator, List<String> values) {
    public Requirement {
      key = key == null ? "" : key;
      operator = operator == null ? "" : operator;
      values = values == null ? List.of() : List.copyOf(values);
    }
  }

  /**
   * A container of the template: its name, image, resource requests and host ports.
   *
   * @param requests what the scheduler counts: the requests, and the limits of resources without a
   *     request (the API server defaults such a request to its limit)
   */
  public record Container(
      String name, String image, Map<String, String> requests, List<Integer> hostPorts) {
    public Container {
      name = name == null ? "" : name;
      image = image == null ? "" : image;
      requests = requests == null ? Map.of() : Map.copyOf(requests);
      hostPorts = hostPorts == null ? List.of() : List.copyOf(hostPorts);
    }

    /** A container without host ports. */
    public Container(String name, String image, Map<String, String> requests) {
      this(name, image, requests, List.of());
    }
  }
}
