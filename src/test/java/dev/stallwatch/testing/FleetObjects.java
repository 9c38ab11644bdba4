package dev.stallwatch.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * DaemonSet pods and nodes as a large cluster's API server lists them, in JSON: a monitoring agent
 * with three containers (env from the downward API, ports, probes, resources, six volume mounts),
 * host paths, a projected service-account token, the DaemonSet controller's default tolerations and
 * node-pinning affinity, a full kubelet status; nodes with labels, taints, conditions, addresses,
 * capacity, node info and the images the kubelet reports. Every object carries managedFields as
 * kube-apiserver records them for its writers (kube-controller-manager's spec and kubelet's status
 * of a pod; kubelet's node status), one field set per writer, derived from the object's own shape:
 * the part of a listed object that the operator never reads and that costs the most to read.
 *
 * <p>A pod is one string template per DaemonSet with its per-pod values filled in: generating
 * 20,000 of them takes well under a second.
 */
public final class FleetObjects {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final java.time.Instant CREATED = java.time.Instant.parse("2026-11-20T08:00:00Z");

  private final String podTemplate;
  private final String nodeTemplate;

  /**
   * Pods of DaemonSet {@code daemonSet} in {@code namespace} (uid {@code ownerUid}) at revision
   * hash {@code hash}, template generation {@code generation}, running {@code image}.
   */
  public FleetObjects(
      String namespace,
      String daemonSet,
      String ownerUid,
      String hash,
      long generation,
      String image) {
    this.podTemplate =
        withManagedFields(
            fill(
                POD,
                Map.of(
                    "NS", namespace,
                    "DS", daemonSet,
                    "OWNER_UID", ownerUid,
                    "HASH", hash,
                    "GEN", String.valueOf(generation),
                    "IMAGE", image)),
            Map.of(
                "kube-controller-manager", Set.of("metadata", "spec"),
                "kubelet", Set.of("status")),
            "2026-11-30T08:00:00Z");
    this.nodeTemplate =
        withManagedFields(
            NODE, Map.of("kubelet", Set.of("metadata", "status")), "2026-11-01T00:00:00Z");
  }

  /** The name of node {@code i} of the fleet. */
  public static String nodeName(int i) {
    return "node-" + i;
  }

  /**
   * The JSON of the DaemonSet's Running, Ready pod on node {@code i}, named {@code name}: created
   * at a time of its own (as a rollout creates pods one by one), its conditions and containers
   * seconds later.
   */
  public String pod(int i, String name) {
    String ip = "10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255);
    java.time.Instant created = CREATED.plusSeconds(i * 3L + (name.hashCode() & 0xff));
    return podTemplate
        .replace("${T0}", created.toString())
        .replace("${T3}", created.plusSeconds(3).toString())
        .replace("${T4}", created.plusSeconds(4).toString())
        .replace("${T11}", created.plusSeconds(11).toString())
        .replace("${NAME}", name)
        .replace("${NODE}", nodeName(i))
        .replace("${UID}", uid(0x5a, i, name.hashCode()))
        .replace("${IP}", ip)
        .replace("${CONTAINER_ID}", String.format("%064x", (long) name.hashCode() & 0xffffffffL));
  }

  /** The JSON of node {@code i}: Ready, kubelet v1.34. */
  public String node(int i) {
    String ip = "10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255);
    return nodeTemplate
        .replace("${NODE}", nodeName(i))
        .replace("${UID}", uid(0x4e, i, 0))
        .replace("${IP}", ip)
        .replace("${ID}", String.format("i-0%016x", (long) i * 104_729));
  }

  private static String uid(int kind, int i, int salt) {
    return String.format(
        "%08x-%04x-4%03x-8%03x-%012x",
        kind << 24 | i, salt & 0xffff, i & 0xfff, (salt >>> 16) & 0xfff, (long) i * 7919 + salt);
  }

  private static String fill(String template, Map<String, String> values) {
    String s = template;
    for (Map.Entry<String, String> e : values.entrySet()) {
      s = s.replace("${" + e.getKey() + "}", e.getValue());
    }
    return s;
  }

  /**
   * {@code json} with one managedFields entry per writer, each owning the fields under the
   * top-level keys it is given, in kube-apiserver's FieldsV1 form.
   */
  static String withManagedFields(String json, Map<String, Set<String>> writers, String time) {
    try {
      ObjectNode object = (ObjectNode) JSON.readTree(json);
      ArrayNode managed = JSON.createArrayNode();
      for (String manager : writers.keySet().stream().sorted().toList()) {
        ObjectNode fields = JSON.createObjectNode();
        for (String top : writers.get(manager).stream().sorted().toList()) {
          JsonNode value = object.get(top);
          if (value != null) {
            ObjectNode set = fieldSet(value, top, false);
            if (top.equals("metadata")) {
              set.remove(
                  Set.of(
                      "f:name",
                      "f:namespace",
                      "f:uid",
                      "f:resourceVersion",
                      "f:creationTimestamp"));
            }
            fields.set("f:" + top, set);
          }
        }
        ObjectNode entry = managed.addObject();
        entry.put("apiVersion", "v1");
        entry.put("fieldsType", "FieldsV1");
        entry.set("fieldsV1", fields);
        entry.put("manager", manager);
        entry.put("operation", "Update");
        if (writers.get(manager).contains("status") && !manager.equals("kube-controller-manager")) {
          entry.put("subresource", "status");
        }
        entry.put("time", time);
      }
      ((ObjectNode) object.get("metadata")).set("managedFields", managed);
      return JSON.writeValueAsString(object);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
    }
  }

  // Lists whose items the API's schema keys (structured-merge-diff "map" lists) and by what; every
  // other list is atomic, owned as a whole.
  private static final Map<String, String[]> LIST_KEYS =
      Map.ofEntries(
          Map.entry("containers", new String[] {"name"}),
          Map.entry("initContainers", new String[] {"name"}),
          Map.entry("env", new String[] {"name"}),
          Map.entry("ports", new String[] {"containerPort", "protocol"}),
          Map.entry("volumeMounts", new String[] {"mountPath"}),
          Map.entry("volumes", new String[] {"name"}),
          Map.entry("conditions", new String[] {"type"}),
          Map.entry("ownerReferences", new String[] {"uid"}),
          Map.entry("podIPs", new String[] {"ip"}),
          Map.entry("hostIPs", new String[] {"ip"}),
          Map.entry("addresses", new String[] {"type"}),
          Map.entry("taints", new String[] {"key", "effect"}));

  private static ObjectNode fieldSet(JsonNode value, String name, boolean member) {
    ObjectNode set = JSON.createObjectNode();
    if (member) {
      set.putObject(".");
    }
    if (value instanceof ObjectNode object && !object.isEmpty()) {
      Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> f = fields.next();
        set.set("f:" + f.getKey(), fieldSet(f.getValue(), f.getKey(), true));
      }
    } else if (value instanceof ArrayNode array && LIST_KEYS.containsKey(name)) {
      for (JsonNode item : array) {
        ObjectNode key = JSON.createObjectNode();
        for (String k : LIST_KEYS.get(name)) {
          if (item.has(k)) {
            key.set(k, item.get(k));
          }
        }
        set.set("k:" + key, fieldSet(item, "", true));
      }
    } else {
      return JSON.createObjectNode(); // a leaf, or an atomic list: owned whole
    }
    return set;
  }

  private static final String POD =
      """
      {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
          "annotations": {
            "kubectl.kubernetes.io/default-container": "agent",
            "prometheus.io/port": "9100",
            "prometheus.io/scrape": "true"
          },
          "creationTimestamp": "${T0}",
          "generateName": "${DS}-",
          "labels": {
            "app.kubernetes.io/component": "agent",
            "app.kubernetes.io/instance": "fleet",
            "app.kubernetes.io/name": "${DS}",
            "app.kubernetes.io/part-of": "observability",
            "app": "${DS}",
            "controller-revision-hash": "${HASH}",
            "pod-template-generation": "${GEN}"
          },
          "name": "${NAME}",
          "namespace": "${NS}",
          "ownerReferences": [
            {
              "apiVersion": "apps/v1",
              "blockOwnerDeletion": true,
              "controller": true,
              "kind": "DaemonSet",
              "name": "${DS}",
              "uid": "${OWNER_UID}"
            }
          ],
          "resourceVersion": "1",
          "uid": "${UID}"
        },
        "spec": {
          "affinity": {
            "nodeAffinity": {
              "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                  {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["${NODE}"]}]}
                ]
              }
            }
          },
          "automountServiceAccountToken": true,
          "containers": [
            {
              "args": ["--path.procfs=/host/proc", "--path.sysfs=/host/sys", "--path.rootfs=/host/root",
                       "--web.listen-address=127.0.0.1:9101", "--collector.filesystem.mount-points-exclude=^/(dev|proc|sys|var/lib/docker/.+|var/lib/kubelet/.+)($|/)",
                       "--collector.netclass.ignored-devices=^(veth.*|[a-f0-9]{15})$"],
              "env": [
                {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
                {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
                {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}},
                {"name": "HOST_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.hostIP"}}},
                {"name": "GOMAXPROCS", "valueFrom": {"resourceFieldRef": {"divisor": "1", "resource": "limits.cpu"}}},
                {"name": "GOMEMLIMIT", "valueFrom": {"resourceFieldRef": {"divisor": "1", "resource": "limits.memory"}}},
                {"name": "LOG_LEVEL", "value": "info"},
                {"name": "CLUSTER_NAME", "value": "prod-eu-west-1"}
              ],
              "image": "${IMAGE}",
              "imagePullPolicy": "IfNotPresent",
              "livenessProbe": {"failureThreshold": 3, "httpGet": {"path": "/healthz", "port": 9100, "scheme": "HTTP"},
                                "initialDelaySeconds": 5, "periodSeconds": 10, "successThreshold": 1, "timeoutSeconds": 1},
              "name": "agent",
              "ports": [{"containerPort": 9100, "hostPort": 9100, "name": "metrics", "protocol": "TCP"}],
              "readinessProbe": {"failureThreshold": 3, "httpGet": {"path": "/readyz", "port": 9100, "scheme": "HTTP"},
                                 "periodSeconds": 10, "successThreshold": 1, "timeoutSeconds": 1},
              "resources": {"limits": {"cpu": "250m", "memory": "180Mi"}, "requests": {"cpu": "100m", "memory": "120Mi"}},
              "securityContext": {"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true},
              "terminationMessagePath": "/dev/termination-log",
              "terminationMessagePolicy": "File",
              "volumeMounts": [
                {"mountPath": "/host/proc", "name": "proc", "readOnly": true},
                {"mountPath": "/host/sys", "name": "sys", "readOnly": true},
                {"mountPath": "/host/root", "mountPropagation": "HostToContainer", "name": "root", "readOnly": true},
                {"mountPath": "/etc/agent", "name": "config", "readOnly": true},
                {"mountPath": "/etc/tls", "name": "tls", "readOnly": true},
                {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access-7xk2p", "readOnly": true}
              ]
            },
            {
              "args": ["--watched-dir=/etc/agent", "--reload-url=http://127.0.0.1:9101/-/reload", "--listen-address=127.0.0.1:9533"],
              "env": [
                {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
                {"name": "GOMAXPROCS", "value": "1"}
              ],
              "image": "quay.io/prometheus-operator/prometheus-config-reloader:v0.85.0",
              "imagePullPolicy": "IfNotPresent",
              "name": "config-reloader",
              "resources": {"limits": {"cpu": "50m", "memory": "32Mi"}, "requests": {"cpu": "10m", "memory": "16Mi"}},
              "securityContext": {"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true},
              "terminationMessagePath": "/dev/termination-log",
              "terminationMessagePolicy": "File",
              "volumeMounts": [
                {"mountPath": "/etc/agent", "name": "config", "readOnly": true},
                {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access-7xk2p", "readOnly": true}
              ]
            },
            {
              "args": ["--secure-listen-address=[$(IP)]:9100", "--upstream=http://127.0.0.1:9101/", "--tls-cert-file=/etc/tls/tls.crt",
                       "--tls-private-key-file=/etc/tls/tls.key", "--tls-min-version=VersionTLS12"],
              "env": [{"name": "IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}}],
              "image": "quay.io/brancz/kube-rbac-proxy:v0.19.1",
              "imagePullPolicy": "IfNotPresent",
              "name": "kube-rbac-proxy",
              "ports": [{"containerPort": 9100, "hostPort": 9100, "name": "https", "protocol": "TCP"}],
              "resources": {"limits": {"cpu": "20m", "memory": "40Mi"}, "requests": {"cpu": "10m", "memory": "20Mi"}},
              "securityContext": {"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true,
                                  "runAsGroup": 65532, "runAsNonRoot": true, "runAsUser": 65532},
              "terminationMessagePath": "/dev/termination-log",
              "terminationMessagePolicy": "File",
              "volumeMounts": [
                {"mountPath": "/etc/tls", "name": "tls", "readOnly": true},
                {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access-7xk2p", "readOnly": true}
              ]
            }
          ],
          "dnsPolicy": "ClusterFirstWithHostNet",
          "enableServiceLinks": true,
          "hostNetwork": true,
          "hostPID": true,
          "nodeName": "${NODE}",
          "preemptionPolicy": "PreemptLowerPriority",
          "priority": 2000001000,
          "priorityClassName": "system-node-critical",
          "restartPolicy": "Always",
          "schedulerName": "default-scheduler",
          "securityContext": {"fsGroup": 65534, "runAsGroup": 65534, "runAsNonRoot": true, "runAsUser": 65534},
          "serviceAccount": "${DS}",
          "serviceAccountName": "${DS}",
          "terminationGracePeriodSeconds": 30,
          "tolerations": [
            {"operator": "Exists"},
            {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists"},
            {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists"},
            {"effect": "NoSchedule", "key": "node.kubernetes.io/disk-pressure", "operator": "Exists"},
            {"effect": "NoSchedule", "key": "node.kubernetes.io/memory-pressure", "operator": "Exists"},
            {"effect": "NoSchedule", "key": "node.kubernetes.io/pid-pressure", "operator": "Exists"},
            {"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "operator": "Exists"},
            {"effect": "NoSchedule", "key": "node.kubernetes.io/network-unavailable", "operator": "Exists"}
          ],
          "volumes": [
            {"hostPath": {"path": "/proc", "type": ""}, "name": "proc"},
            {"hostPath": {"path": "/sys", "type": ""}, "name": "sys"},
            {"hostPath": {"path": "/", "type": ""}, "name": "root"},
            {"configMap": {"defaultMode": 420, "name": "${DS}-config"}, "name": "config"},
            {"name": "tls", "secret": {"defaultMode": 420, "secretName": "${DS}-tls"}},
            {"name": "kube-api-access-7xk2p", "projected": {"defaultMode": 420, "sources": [
              {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
              {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
              {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}]}}
            ]}}
          ]
        },
        "status": {
          "conditions": [
            {"lastProbeTime": null, "lastTransitionTime": "${T4}", "status": "True", "type": "PodReadyToStartContainers"},
            {"lastProbeTime": null, "lastTransitionTime": "${T0}", "status": "True", "type": "Initialized"},
            {"lastProbeTime": null, "lastTransitionTime": "${T11}", "status": "True", "type": "Ready"},
            {"lastProbeTime": null, "lastTransitionTime": "${T11}", "status": "True", "type": "ContainersReady"},
            {"lastProbeTime": null, "lastTransitionTime": "${T0}", "status": "True", "type": "PodScheduled"}
          ],
          "containerStatuses": [
            {"containerID": "containerd://${CONTAINER_ID}", "image": "${IMAGE}",
             "imageID": "${IMAGE}@sha256:0f0e7c1c4b1f5e3d2a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f", "lastState": {},
             "name": "agent", "ready": true, "restartCount": 0, "started": true,
             "state": {"running": {"startedAt": "${T3}"}},
             "volumeMounts": [
               {"mountPath": "/host/proc", "name": "proc", "readOnly": true, "recursiveReadOnly": "Disabled"},
               {"mountPath": "/host/sys", "name": "sys", "readOnly": true, "recursiveReadOnly": "Disabled"},
               {"mountPath": "/host/root", "name": "root", "readOnly": true, "recursiveReadOnly": "Disabled"},
               {"mountPath": "/etc/agent", "name": "config", "readOnly": true, "recursiveReadOnly": "Disabled"},
               {"mountPath": "/etc/tls", "name": "tls", "readOnly": true, "recursiveReadOnly": "Disabled"},
               {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access-7xk2p", "readOnly": true, "recursiveReadOnly": "Disabled"}
             ]},
            {"containerID": "containerd://${CONTAINER_ID}", "image": "quay.io/prometheus-operator/prometheus-config-reloader:v0.85.0",
             "imageID": "quay.io/prometheus-operator/prometheus-config-reloader@sha256:5c4a0b7d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b", "lastState": {},
             "name": "config-reloader", "ready": true, "restartCount": 0, "started": true,
             "state": {"running": {"startedAt": "${T3}"}},
             "volumeMounts": [
               {"mountPath": "/etc/agent", "name": "config", "readOnly": true, "recursiveReadOnly": "Disabled"},
               {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access-7xk2p", "readOnly": true, "recursiveReadOnly": "Disabled"}
             ]},
            {"containerID": "containerd://${CONTAINER_ID}", "image": "quay.io/brancz/kube-rbac-proxy:v0.19.1",
             "imageID": "quay.io/brancz/kube-rbac-proxy@sha256:9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d", "lastState": {},
             "name": "kube-rbac-proxy", "ready": true, "restartCount": 0, "started": true,
             "state": {"running": {"startedAt": "${T4}"}},
             "volumeMounts": [
               {"mountPath": "/etc/tls", "name": "tls", "readOnly": true, "recursiveReadOnly": "Disabled"},
               {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access-7xk2p", "readOnly": true, "recursiveReadOnly": "Disabled"}
             ]}
          ],
          "hostIP": "${IP}",
          "hostIPs": [{"ip": "${IP}"}],
          "phase": "Running",
          "podIP": "${IP}",
          "podIPs": [{"ip": "${IP}"}],
          "qosClass": "Burstable",
          "startTime": "${T0}"
        }
      }
      """;

  private static final String NODE =
      """
      {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
          "annotations": {
            "node.alpha.kubernetes.io/ttl": "0",
            "volumes.kubernetes.io/controller-managed-attach-detach": "true"
          },
          "creationTimestamp": "2026-11-01T00:00:00Z",
          "labels": {
            "beta.kubernetes.io/arch": "amd64",
            "beta.kubernetes.io/instance-type": "p4d.24xlarge",
            "beta.kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/hostname": "${NODE}",
            "kubernetes.io/os": "linux",
            "node.kubernetes.io/instance-type": "p4d.24xlarge",
            "nvidia.com/gpu.present": "true",
            "topology.kubernetes.io/region": "eu-west-1",
            "topology.kubernetes.io/zone": "eu-west-1a"
          },
          "name": "${NODE}",
          "resourceVersion": "1",
          "uid": "${UID}"
        },
        "spec": {"providerID": "aws:///eu-west-1a/${ID}"},
        "status": {
          "addresses": [
            {"address": "${IP}", "type": "InternalIP"},
            {"address": "${NODE}", "type": "Hostname"}
          ],
          "allocatable": {"cpu": "95690m", "ephemeral-storage": "95491281146", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                          "memory": "1148535528Ki", "nvidia.com/gpu": "8", "pods": "110"},
          "capacity": {"cpu": "96", "ephemeral-storage": "104845292Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                       "memory": "1176784616Ki", "nvidia.com/gpu": "8", "pods": "110"},
          "conditions": [
            {"lastHeartbeatTime": "2026-12-01T10:00:00Z", "lastTransitionTime": "2026-11-01T00:00:10Z", "message": "kubelet has sufficient memory available", "reason": "KubeletHasSufficientMemory", "status": "False", "type": "MemoryPressure"},
            {"lastHeartbeatTime": "2026-12-01T10:00:00Z", "lastTransitionTime": "2026-11-01T00:00:10Z", "message": "kubelet has no disk pressure", "reason": "KubeletHasNoDiskPressure", "status": "False", "type": "DiskPressure"},
            {"lastHeartbeatTime": "2026-12-01T10:00:00Z", "lastTransitionTime": "2026-11-01T00:00:10Z", "message": "kubelet has sufficient PID available", "reason": "KubeletHasSufficientPID", "status": "False", "type": "PIDPressure"},
            {"lastHeartbeatTime": "2026-12-01T10:00:00Z", "lastTransitionTime": "2026-11-01T00:00:30Z", "message": "kubelet is posting ready status", "reason": "KubeletReady", "status": "True", "type": "Ready"}
          ],
          "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
          "images": [
            {"names": ["nvcr.io/nvidia/k8s/container-toolkit@sha256:1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a", "nvcr.io/nvidia/k8s/container-toolkit:v1.14.3"], "sizeBytes": 491720315},
            {"names": ["nvcr.io/nvidia/gpu-operator@sha256:2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b", "nvcr.io/nvidia/gpu-operator:v24.9.0"], "sizeBytes": 301544817},
            {"names": ["registry.k8s.io/kube-proxy@sha256:3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c", "registry.k8s.io/kube-proxy:v1.34.1"], "sizeBytes": 30995392},
            {"names": ["quay.io/prometheus/node-exporter@sha256:4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d", "quay.io/prometheus/node-exporter:v1.9.1"], "sizeBytes": 12713040},
            {"names": ["quay.io/brancz/kube-rbac-proxy@sha256:5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e", "quay.io/brancz/kube-rbac-proxy:v0.19.1"], "sizeBytes": 27560112},
            {"names": ["docker.io/calico/node@sha256:60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f", "docker.io/calico/node:v3.29.1"], "sizeBytes": 141883214},
            {"names": ["registry.k8s.io/pause@sha256:718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60", "registry.k8s.io/pause:3.10"], "sizeBytes": 320368}
          ],
          "nodeInfo": {"architecture": "amd64", "bootID": "${UID}", "containerRuntimeVersion": "containerd://1.7.27",
                       "kernelVersion": "6.1.141-155.222.amzn2023.x86_64", "kubeProxyVersion": "", "kubeletVersion": "v1.34.1",
                       "machineID": "ec2${UID}", "operatingSystem": "linux", "osImage": "Amazon Linux 2023.7.20250609",
                       "systemUUID": "ec2${UID}"}
        }
      }
      """;
}
