package dev.stallwatch.realcluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What prometheus-operator would make of the chart's ServiceMonitor, as a plain Prometheus scrape
 * job: the endpoint's path, interval, {@code honorLabels} and relabellings, the target labels the
 * operator adds ({@code job} from {@code jobLabel}, {@code namespace}, {@code service}, {@code
 * pod}, {@code endpoint}), and the endpoint's named port followed through the Service to the
 * container port. The targets are the test's own operator processes on loopback.
 *
 * <p>Objects are the rendered YAML as maps.
 */
final class ServiceMonitorScrape {
  private ServiceMonitorScrape() {}

  /** One operator process and the pod it plays. */
  record Target(String address, String pod) {}

  /** The scrape job for {@code targets}. */
  static Map<String, Object> job(
      Map<String, Object> serviceMonitor, Map<String, Object> service, List<Target> targets) {
    Map<String, Object> spec = RenderedObjects.map(serviceMonitor, "spec");
    List<Map<String, Object>> endpoints = RenderedObjects.list(spec, "endpoints");
    if (endpoints.size() != 1) {
      throw new IllegalArgumentException("one endpoint expected, got " + endpoints);
    }
    Map<String, Object> endpoint = endpoints.get(0);
    Map<String, Object> meta = RenderedObjects.map(service, "metadata");
    String jobLabel = (String) spec.get("jobLabel");
    String job =
        jobLabel == null
            ? (String) meta.get("name")
            : (String) RenderedObjects.map(meta, "labels").get(jobLabel);

    Map<String, Object> scrape = new LinkedHashMap<>();
    scrape.put(
        "job_name",
        "serviceMonitor/"
            + RenderedObjects.map(serviceMonitor, "metadata").get("namespace")
            + "/"
            + RenderedObjects.map(serviceMonitor, "metadata").get("name")
            + "/0");
    scrape.put("metrics_path", endpoint.getOrDefault("path", "/metrics"));
    scrape.put("honor_labels", endpoint.getOrDefault("honorLabels", false));
    if (endpoint.containsKey("interval")) {
      scrape.put("scrape_interval", endpoint.get("interval"));
    }
    if (endpoint.containsKey("scrapeTimeout")) {
      scrape.put("scrape_timeout", endpoint.get("scrapeTimeout"));
    }
    List<Map<String, Object>> statics = new ArrayList<>();
    for (Target t : targets) {
      Map<String, Object> labels = new LinkedHashMap<>();
      labels.put("job", job);
      labels.put("namespace", meta.get("namespace"));
      labels.put("service", meta.get("name"));
      labels.put("pod", t.pod());
      labels.put("endpoint", endpoint.get("port"));
      statics.add(Map.of("targets", List.of(t.address()), "labels", labels));
    }
    scrape.put("static_configs", statics);
    if (endpoint.containsKey("relabelings")) {
      scrape.put("relabel_configs", relabel(RenderedObjects.list(endpoint, "relabelings")));
    }
    if (endpoint.containsKey("metricRelabelings")) {
      scrape.put(
          "metric_relabel_configs", relabel(RenderedObjects.list(endpoint, "metricRelabelings")));
    }
    return scrape;
  }

  /**
   * The container port the endpoint's named port reaches: the Service's port of that name, its
   * {@code targetPort} (a number, or a name looked up among the Deployment's container ports).
   */
  static int containerPort(
      Map<String, Object> serviceMonitor,
      Map<String, Object> service,
      Map<String, Object> deployment) {
    Object portName =
        RenderedObjects.list(RenderedObjects.map(serviceMonitor, "spec"), "endpoints")
            .get(0)
            .get("port");
    Map<String, Object> servicePort =
        RenderedObjects.list(RenderedObjects.map(service, "spec"), "ports").stream()
            .filter(p -> portName.equals(p.get("name")))
            .findFirst()
            .orElseThrow(() -> new AssertionError("the Service has no port named " + portName));
    Object target = servicePort.getOrDefault("targetPort", servicePort.get("port"));
    if (target instanceof Number n) {
      return n.intValue();
    }
    Map<String, Object> podSpec =
        RenderedObjects.map(
            RenderedObjects.map(RenderedObjects.map(deployment, "spec"), "template"), "spec");
    for (Map<String, Object> container : RenderedObjects.list(podSpec, "containers")) {
      for (Map<String, Object> port : RenderedObjects.list(container, "ports")) {
        if (target.equals(port.get("name"))) {
          return ((Number) port.get("containerPort")).intValue();
        }
      }
    }
    throw new AssertionError("no container port named " + target);
  }

  /** prometheus-operator's RelabelConfig fields in Prometheus' own spelling. */
  static List<Map<String, Object>> relabel(List<Map<String, Object>> configs) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Map<String, Object> c : configs) {
      Map<String, Object> r = new LinkedHashMap<>();
      c.forEach(
          (k, v) -> {
            String key =
                switch (k) {
                  case "sourceLabels" -> "source_labels";
                  case "targetLabel" -> "target_label";
                  case "separator", "regex", "modulus", "replacement", "action" -> k;
                  default -> throw new IllegalArgumentException("unknown relabel field " + k);
                };
            r.put(key, k.equals("action") ? v.toString().toLowerCase(java.util.Locale.ROOT) : v);
          });
      out.add(r);
    }
    return out;
  }
}
