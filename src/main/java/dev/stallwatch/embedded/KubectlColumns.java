package dev.stallwatch.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The columns a real API server returns for {@code kubectl get}: kubectl's usual ones for
 * DaemonSets, Pods and Nodes, a CRD's additionalPrinterColumns for custom resources, and NAME/AGE
 * for everything else.
 */
final class KubectlColumns {

  private KubectlColumns() {}

  static List<TableColumn> forResource(ServedResource resource) {
    if (!resource.printerColumns().isEmpty()) {
      return CustomResourceColumns.of(resource.printerColumns());
    }
    return switch (resource.group() + "/" + resource.kind()) {
      case "apps/DaemonSet" -> daemonSet();
      case "/Pod" -> PodColumns.all();
      case "/Node" -> node();
      default -> List.of(TableColumn.nameColumn(), TableColumn.ageColumn());
    };
  }

  static List<TableColumn> daemonSet() {
    return List.of(
        TableColumn.nameColumn(),
        count("Desired", "desiredNumberScheduled"),
        count("Current", "currentNumberScheduled"),
        count("Ready", "numberReady"),
        count("Up-to-date", "updatedNumberScheduled"),
        count("Available", "numberAvailable"),
        TableColumn.of(
            "Node Selector",
            "string",
            "The node selector of the pod template.",
            (o, now) ->
                labelsOrNone(o.path("spec").path("template").path("spec").path("nodeSelector"))),
        TableColumn.ageColumn(),
        TableColumn.wide(
            "Containers",
            "Names of the containers of the pod template.",
            (o, now) -> templateContainers(o, "name")),
        TableColumn.wide(
            "Images",
            "Images of the containers of the pod template.",
            (o, now) -> templateContainers(o, "image")),
        TableColumn.wide(
            "Selector",
            "The label selector of the DaemonSet.",
            (o, now) -> labelsOrNone(o.path("spec").path("selector").path("matchLabels"))));
  }

  static List<TableColumn> node() {
    return List.of(
        TableColumn.nameColumn(),
        TableColumn.of("Status", "string", "The status of the node.", (o, now) -> nodeStatus(o)),
        TableColumn.of("Roles", "string", "The roles of the node.", (o, now) -> nodeRoles(o)),
        TableColumn.ageColumn(),
        TableColumn.of(
            "Version",
            "string",
            "Kubelet version.",
            (o, now) -> o.path("status").path("nodeInfo").path("kubeletVersion").asText("")),
        TableColumn.wide("Internal-IP", "Internal IP.", (o, now) -> nodeAddress(o, "InternalIP")),
        TableColumn.wide("External-IP", "External IP.", (o, now) -> nodeAddress(o, "ExternalIP")),
        TableColumn.wide(
            "OS-Image",
            "OS image.",
            (o, now) -> o.path("status").path("nodeInfo").path("osImage").asText("<unknown>")),
        TableColumn.wide(
            "Kernel-Version",
            "Kernel version.",
            (o, now) ->
                o.path("status").path("nodeInfo").path("kernelVersion").asText("<unknown>")),
        TableColumn.wide(
            "Container-Runtime",
            "Container runtime version.",
            (o, now) ->
                o.path("status")
                    .path("nodeInfo")
                    .path("containerRuntimeVersion")
                    .asText("<unknown>")));
  }

  private static TableColumn count(String header, String statusField) {
    return TableColumn.of(
        header,
        "integer",
        "status." + statusField,
        (o, now) -> o.path("status").path(statusField).asLong(0));
  }

  private static String templateContainers(JsonNode ds, String field) {
    List<String> values = new ArrayList<>();
    for (JsonNode c : ds.path("spec").path("template").path("spec").path("containers")) {
      values.add(c.path(field).asText());
    }
    return String.join(",", values);
  }

  static String labelsOrNone(JsonNode labels) {
    List<String> pairs = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = labels.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      pairs.add(e.getKey() + "=" + e.getValue().asText());
    }
    return pairs.isEmpty() ? "<none>" : String.join(",", pairs);
  }

  static String nodeStatus(JsonNode node) {
    String ready = "Unknown";
    for (JsonNode c : node.path("status").path("conditions")) {
      if ("Ready".equals(c.path("type").asText())) {
        ready =
            switch (c.path("status").asText()) {
              case "True" -> "Ready";
              case "False" -> "NotReady";
              default -> "Unknown";
            };
      }
    }
    return node.path("spec").path("unschedulable").asBoolean(false)
        ? ready + ",SchedulingDisabled"
        : ready;
  }

  static String nodeRoles(JsonNode node) {
    TreeSet<String> roles = new TreeSet<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.path("metadata").path("labels").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> label = it.next();
      if (label.getKey().startsWith("node-role.kubernetes.io/")) {
        String role = label.getKey().substring("node-role.kubernetes.io/".length());
        if (!role.isEmpty()) {
          roles.add(role);
        }
      } else if (label.getKey().equals("kubernetes.io/role")
          && !label.getValue().asText().isEmpty()) {
        roles.add(label.getValue().asText());
      }
    }
    return roles.isEmpty() ? "<none>" : String.join(",", roles);
  }

  private static String nodeAddress(JsonNode node, String type) {
    for (JsonNode a : node.path("status").path("addresses")) {
      if (type.equals(a.path("type").asText())) {
        return a.path("address").asText();
      }
    }
    return "<none>";
  }
}
