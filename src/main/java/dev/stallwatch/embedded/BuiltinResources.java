package dev.stallwatch.embedded;

import java.util.List;

/**
 * The built-in resource types announced by discovery: those a DaemonSet rollout, its operator and
 * {@code kubectl describe} touch. The mock stores any path; discovery decides what kubectl knows.
 */
final class BuiltinResources {

  private static final List<String> STATUS = List.of("status");

  static final List<ServedResource> ALL =
      List.of(
          ServedResource.builtin("v1", "pods", "Pod", true, List.of("po"), STATUS),
          ServedResource.builtin("v1", "nodes", "Node", false, List.of("no"), STATUS),
          ServedResource.builtin("v1", "namespaces", "Namespace", false, List.of("ns"), STATUS),
          ServedResource.builtin("v1", "events", "Event", true, List.of("ev"), List.of()),
          ServedResource.builtin("v1", "configmaps", "ConfigMap", true, List.of("cm"), List.of()),
          ServedResource.builtin("v1", "secrets", "Secret", true, List.of(), List.of()),
          ServedResource.builtin("v1", "services", "Service", true, List.of("svc"), STATUS),
          ServedResource.builtin(
              "v1", "serviceaccounts", "ServiceAccount", true, List.of("sa"), List.of()),
          ServedResource.builtin("apps/v1", "daemonsets", "DaemonSet", true, List.of("ds"), STATUS),
          ServedResource.builtin(
              "apps/v1", "controllerrevisions", "ControllerRevision", true, List.of(), List.of()),
          ServedResource.builtin(
              "apps/v1", "deployments", "Deployment", true, List.of("deploy"), STATUS),
          ServedResource.builtin(
              "apps/v1", "replicasets", "ReplicaSet", true, List.of("rs"), STATUS),
          ServedResource.builtin(
              "apps/v1", "statefulsets", "StatefulSet", true, List.of("sts"), STATUS),
          ServedResource.builtin(
              "coordination.k8s.io/v1", "leases", "Lease", true, List.of(), List.of()),
          ServedResource.builtin(
              "events.k8s.io/v1", "events", "Event", true, List.of("ev"), List.of()),
          ServedResource.builtin(
              "apiextensions.k8s.io/v1",
              "customresourcedefinitions",
              "CustomResourceDefinition",
              false,
              List.of("crd", "crds"),
              STATUS));

  private BuiltinResources() {}
}
