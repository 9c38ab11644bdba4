package dev.stallwatch.kube.dump;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Writes a large {@code kubectl get daemonsets,pods,nodes,controllerrevisions,events -A -o json}
 * dump of one stalled DaemonSet rollout, shaped like a real cluster's: kubelet-reported nodes (nine
 * labels, four conditions, addresses, node info, cached images, managed fields) and pods as the
 * DaemonSet controller creates them and the kubelet reports them (owner, hash and generation
 * labels, node-pinning affinity, the default tolerations, volumes, probes, managed fields). At
 * 5,000 nodes the file is ≈ 55 MB, the size issue 11 measures {@code diagnose} on.
 *
 * <p>The rollout (DaemonSet {@code kube-system/fluent-bit}, revision 2, {@code maxUnavailable:
 * 10%}): the first half of the nodes run revision 2 and are ready, the next 10 % have had a
 * revision-2 pod in {@code ImagePullBackOff} for an hour, the rest still run revision 1. As of
 * {@link #NOW} the verdict is Stalled (exit code 1). Each stalled pod has the two Events a kubelet
 * keeps repeating for it ({@code Failed} and {@code BackOff}, with their counts), after the pods.
 *
 * <pre>java -cp target/test-classes dev.stallwatch.kube.dump.LargeDump 5000 /tmp/dump-5000.json
 * </pre>
 */
public final class LargeDump {
  /** The time the dump describes; pass it to {@code diagnose --now}. */
  public static final Instant NOW = Instant.parse("2026-12-03T10:00:00Z");

  static final String NS = "kube-system";
  static final String NAME = "fluent-bit";
  static final String UID = "5d6c1b7e-0000-4000-8000-000000000001";

  private LargeDump() {}

  public static void main(String[] args) throws IOException {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    Path file = Path.of(args.length > 1 ? args[1] : "dump-" + nodes + ".json");
    write(file, nodes);
    System.out.println(file + ": " + Files.size(file) + " bytes, " + nodes + " nodes and pods");
  }

  /** Writes the dump of a rollout on {@code nodes} nodes (one pod per node) to {@code file}. */
  public static void write(Path file, int nodes) throws IOException {
    try (Writer out = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
      write(out, nodes);
    }
  }

  /** Writes the dump to {@code out}, object by object. */
  public static void write(Writer out, int nodes) throws IOException {
    out.write("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n");
    out.write(daemonSet(nodes));
    out.write(",\n");
    out.write(revision(1));
    out.write(",\n");
    out.write(revision(2));
    int updating = nodes / 10;
    java.util.List<String[]> stalled = new java.util.ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      String node =
          String.format(
              "ip-10-%d-%d-%d.eu-west-1.compute.internal", i / 65536 % 256, i / 256 % 256, i % 256);
      out.write(",\n");
      out.write(node(node, i));
      out.write(",\n");
      if (i < nodes / 2) {
        out.write(pod(node, i, 2, NOW.minusSeconds(3600), true));
      } else if (i < nodes / 2 + updating) {
        out.write(pod(node, i, 2, NOW.minusSeconds(3600), false));
        stalled.add(new String[] {node, NAME + "-" + suffix(i * 31 + 2)});
      } else {
        out.write(pod(node, i, 1, NOW.minusSeconds(86_400), true));
      }
    }
    int e = 0;
    for (String[] pod : stalled) {
      out.write(",\n");
      out.write(event(pod[0], pod[1], e++, "Failed", "Warning", "Error: ImagePullBackOff"));
      out.write(",\n");
      out.write(
          event(
              pod[0],
              pod[1],
              e++,
              "BackOff",
              "Normal",
              "Back-off pulling image \\\"" + image(2) + "\\\""));
    }
    out.write("\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n");
    out.write("        \"resourceVersion\": \"\"\n    }\n}\n");
  }

  static String hash(int revision) {
    return "6f7d8c9b" + revision;
  }

  /** One kubelet Event about a pod, repeated every few minutes for the hour it has been stuck. */
  static String event(String node, String pod, int i, String reason, String type, String message) {
    String first = NOW.minusSeconds(3600).toString();
    String last = NOW.minusSeconds(40).toString();
    return fill(
        EVENT,
        "NAME",
        pod + "." + String.format("%016x", 0x18a0_0000_0000_0000L + i),
        "UID",
        String.format("e7a1%04x-5b6c-4d7e-9f80-%012x", i % 65536, (long) i * 6151),
        "POD",
        pod,
        "NODE",
        node,
        "REASON",
        reason,
        "TYPE",
        type,
        "MESSAGE",
        message,
        "FIRST",
        first,
        "LAST",
        last);
  }

  private static final String EVENT =
      """
              {
                  "apiVersion": "v1",
                  "count": 240,
                  "eventTime": null,
                  "firstTimestamp": "${FIRST}",
                  "involvedObject": {
                      "apiVersion": "v1",
                      "fieldPath": "spec.containers{fluent-bit}",
                      "kind": "Pod",
                      "name": "${POD}",
                      "namespace": "kube-system",
                      "resourceVersion": "48213377",
                      "uid": "${UID}"
                  },
                  "kind": "Event",
                  "lastTimestamp": "${LAST}",
                  "message": "${MESSAGE}",
                  "metadata": {
                      "creationTimestamp": "${FIRST}",
                      "name": "${NAME}",
                      "namespace": "kube-system",
                      "resourceVersion": "48391022",
                      "uid": "${UID}"
                  },
                  "reason": "${REASON}",
                  "reportingComponent": "kubelet",
                  "reportingInstance": "${NODE}",
                  "source": {
                      "component": "kubelet",
                      "host": "${NODE}"
                  },
                  "type": "${TYPE}"
              }""";

  static String image(int revision) {
    return "cr.fluentbit.io/fluent/fluent-bit:3.2." + revision;
  }

  private static String fill(String template, String... pairs) {
    String s = template;
    for (int i = 0; i < pairs.length; i += 2) {
      s = s.replace("${" + pairs[i] + "}", pairs[i + 1]);
    }
    return s;
  }

  static String node(String name, int i) {
    String ip = "10." + (i / 65536 % 256) + "." + (i / 256 % 256) + "." + (i % 256);
    return fill(
        NODE,
        "NAME",
        name,
        "UID",
        String.format("9b0c%04x-1d2e-4f30-8a41-%012x", i % 65536, (long) i * 7919),
        "IP",
        ip,
        "ID",
        String.format("i-0%016x", (long) i * 104_729));
  }

  static String pod(String node, int i, int revision, Instant created, boolean ready) {
    String podName = NAME + "-" + suffix(i * 31 + revision);
    String t = created.toString();
    String started = created.plusSeconds(3).toString();
    String status =
        ready
            ? fill(READY_STATUS, "STARTED", started, "IMAGE", image(revision), "NAME", podName)
            : fill(BACKOFF_STATUS, "STARTED", started, "IMAGE", image(revision));
    String ip = "10." + (i / 65536 % 256) + "." + (i / 256 % 256) + "." + (i % 256);
    return fill(
        POD,
        "POD",
        podName,
        "NODE",
        node,
        "CREATED",
        t,
        "STARTED",
        started,
        "READY",
        ready ? "True" : "False",
        "READY_REASON",
        ready ? "" : ",\n                        \"reason\": \"ContainersNotReady\"",
        "PHASE",
        ready ? "Running" : "Pending",
        "HASH",
        hash(revision),
        "GEN",
        String.valueOf(revision),
        "IMAGE",
        image(revision),
        "UID",
        String.format("e1%06x-5b6a-4c7d-9e8f-%012x", i % 0xffffff, (long) i * 15_485_863L),
        "IP",
        ip,
        "STATUS",
        status);
  }

  private static String suffix(int n) {
    String alphabet = "bcdfghjklmnpqrstvwxz2456789";
    StringBuilder s = new StringBuilder();
    int v = Math.abs(n * 2_654_435 + 12_345);
    for (int k = 0; k < 5; k++) {
      s.append(alphabet.charAt(v % alphabet.length()));
      v /= alphabet.length();
    }
    return s.toString();
  }

  static String daemonSet(int desired) {
    return fill(DAEMONSET, "DESIRED", String.valueOf(desired), "TEMPLATE", template(2, 12));
  }

  static String revision(int n) {
    return fill(
        REVISION,
        "N",
        String.valueOf(n),
        "HASH",
        hash(n),
        "CREATED",
        NOW.minusSeconds(86_400L * (3 - n)).toString(),
        "TEMPLATE",
        template(n, 16)
            .replaceFirst("\\{", "{\n                        \"\\$patch\": \"replace\","));
  }

  /** The DaemonSet's pod template at {@code indent} spaces. */
  static String template(int revision, int indent) {
    String pad = " ".repeat(indent - 8);
    return fill(TEMPLATE, "IMAGE", image(revision)).replace("\n", "\n" + pad);
  }

  private static final String TEMPLATE =
      """
      {
              "metadata": {
                  "creationTimestamp": null,
                  "labels": {
                      "app.kubernetes.io/instance": "fluent-bit",
                      "app.kubernetes.io/name": "fluent-bit"
                  }
              },
              "spec": {
                  "containers": [
                      {
                          "image": "${IMAGE}",
                          "imagePullPolicy": "IfNotPresent",
                          "name": "fluent-bit",
                          "ports": [{"containerPort": 2020, "name": "http", "protocol": "TCP"}],
                          "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                          "terminationMessagePath": "/dev/termination-log",
                          "terminationMessagePolicy": "File",
                          "volumeMounts": [
                              {"mountPath": "/fluent-bit/etc/conf", "name": "config"},
                              {"mountPath": "/var/log", "name": "varlog"}
                          ]
                      }
                  ],
                  "dnsPolicy": "ClusterFirst",
                  "priorityClassName": "system-node-critical",
                  "restartPolicy": "Always",
                  "schedulerName": "default-scheduler",
                  "serviceAccountName": "fluent-bit",
                  "terminationGracePeriodSeconds": 30,
                  "tolerations": [{"operator": "Exists"}],
                  "volumes": [
                      {"configMap": {"defaultMode": 420, "name": "fluent-bit"}, "name": "config"},
                      {"hostPath": {"path": "/var/log", "type": ""}, "name": "varlog"}
                  ]
              }
          }""";

  private static final String DAEMONSET =
      """
              {
                  "apiVersion": "apps/v1",
                  "kind": "DaemonSet",
                  "metadata": {
                      "annotations": {
                          "deprecated.daemonset.template.generation": "2",
                          "meta.helm.sh/release-name": "fluent-bit",
                          "meta.helm.sh/release-namespace": "kube-system"
                      },
                      "creationTimestamp": "2026-11-30T10:00:00Z",
                      "generation": 2,
                      "labels": {"app.kubernetes.io/managed-by": "Helm"},
                      "name": "fluent-bit",
                      "namespace": "kube-system",
                      "resourceVersion": "98123",
                      "uid": "5d6c1b7e-0000-4000-8000-000000000001"
                  },
                  "spec": {
                      "revisionHistoryLimit": 10,
                      "selector": {
                          "matchLabels": {
                              "app.kubernetes.io/instance": "fluent-bit",
                              "app.kubernetes.io/name": "fluent-bit"
                          }
                      },
                      "template": ${TEMPLATE},
                      "updateStrategy": {
                          "rollingUpdate": {"maxSurge": 0, "maxUnavailable": "10%"},
                          "type": "RollingUpdate"
                      }
                  },
                  "status": {
                      "currentNumberScheduled": ${DESIRED},
                      "desiredNumberScheduled": ${DESIRED},
                      "numberAvailable": ${DESIRED},
                      "numberMisscheduled": 0,
                      "numberReady": ${DESIRED},
                      "observedGeneration": 2,
                      "updatedNumberScheduled": ${DESIRED}
                  }
              }""";

  private static final String REVISION =
      """
              {
                  "apiVersion": "apps/v1",
                  "data": {
                      "spec": {
                          "template": ${TEMPLATE}
                      }
                  },
                  "kind": "ControllerRevision",
                  "metadata": {
                      "creationTimestamp": "${CREATED}",
                      "labels": {
                          "app.kubernetes.io/instance": "fluent-bit",
                          "app.kubernetes.io/name": "fluent-bit",
                          "controller-revision-hash": "${HASH}"
                      },
                      "name": "fluent-bit-${HASH}",
                      "namespace": "kube-system",
                      "ownerReferences": [
                          {
                              "apiVersion": "apps/v1",
                              "blockOwnerDeletion": true,
                              "controller": true,
                              "kind": "DaemonSet",
                              "name": "fluent-bit",
                              "uid": "5d6c1b7e-0000-4000-8000-000000000001"
                          }
                      ],
                      "resourceVersion": "9800${N}",
                      "uid": "7a1e0c2d-0000-4000-8000-00000000000${N}"
                  },
                  "revision": ${N}
              }""";

  private static final String NODE =
      """
              {
                  "apiVersion": "v1",
                  "kind": "Node",
                  "metadata": {
                      "annotations": {
                          "alpha.kubernetes.io/provided-node-ip": "${IP}",
                          "csi.volume.kubernetes.io/nodeid": "{\\"ebs.csi.aws.com\\":\\"${ID}\\"}",
                          "node.alpha.kubernetes.io/ttl": "0",
                          "volumes.kubernetes.io/controller-managed-attach-detach": "true"
                      },
                      "creationTimestamp": "2026-12-01T00:00:00Z",
                      "labels": {
                          "beta.kubernetes.io/arch": "amd64",
                          "beta.kubernetes.io/instance-type": "m6i.2xlarge",
                          "beta.kubernetes.io/os": "linux",
                          "kubernetes.io/arch": "amd64",
                          "kubernetes.io/hostname": "${NAME}",
                          "kubernetes.io/os": "linux",
                          "node.kubernetes.io/instance-type": "m6i.2xlarge",
                          "topology.kubernetes.io/region": "eu-west-1",
                          "topology.kubernetes.io/zone": "eu-west-1a"
                      },
                      "managedFields": [
                          {
                              "apiVersion": "v1",
                              "fieldsType": "FieldsV1",
                              "fieldsV1": {"f:status": {"f:allocatable": {"f:ephemeral-storage": {}}, "f:conditions": {"k:{\\"type\\":\\"DiskPressure\\"}": {"f:lastHeartbeatTime": {}}, "k:{\\"type\\":\\"MemoryPressure\\"}": {"f:lastHeartbeatTime": {}}, "k:{\\"type\\":\\"PIDPressure\\"}": {"f:lastHeartbeatTime": {}}, "k:{\\"type\\":\\"Ready\\"}": {"f:lastHeartbeatTime": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:reason": {}, "f:status": {}}}, "f:images": {}, "f:nodeInfo": {"f:bootID": {}, "f:kernelVersion": {}}}},
                              "manager": "kubelet",
                              "operation": "Update",
                              "subresource": "status",
                              "time": "2026-12-03T09:58:40Z"
                          }
                      ],
                      "name": "${NAME}",
                      "resourceVersion": "97${IP}",
                      "uid": "${UID}"
                  },
                  "spec": {
                      "podCIDR": "100.64.0.0/24",
                      "podCIDRs": ["100.64.0.0/24"],
                      "providerID": "aws:///eu-west-1a/${ID}"
                  },
                  "status": {
                      "addresses": [
                          {"address": "${IP}", "type": "InternalIP"},
                          {"address": "${NAME}", "type": "InternalDNS"},
                          {"address": "${NAME}", "type": "Hostname"}
                      ],
                      "allocatable": {"cpu": "7910m", "ephemeral-storage": "95551679124", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "31482888Ki", "pods": "58"},
                      "capacity": {"cpu": "8", "ephemeral-storage": "104845292Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "32500744Ki", "pods": "58"},
                      "conditions": [
                          {"lastHeartbeatTime": "2026-12-03T09:58:40Z", "lastTransitionTime": "2026-12-01T00:00:00Z", "message": "kubelet has sufficient memory available", "reason": "KubeletHasSufficientMemory", "status": "False", "type": "MemoryPressure"},
                          {"lastHeartbeatTime": "2026-12-03T09:58:40Z", "lastTransitionTime": "2026-12-01T00:00:00Z", "message": "kubelet has no disk pressure", "reason": "KubeletHasNoDiskPressure", "status": "False", "type": "DiskPressure"},
                          {"lastHeartbeatTime": "2026-12-03T09:58:40Z", "lastTransitionTime": "2026-12-01T00:00:00Z", "message": "kubelet has sufficient PID available", "reason": "KubeletHasSufficientPID", "status": "False", "type": "PIDPressure"},
                          {"lastHeartbeatTime": "2026-12-03T09:58:40Z", "lastTransitionTime": "2026-12-01T00:00:30Z", "message": "kubelet is posting ready status", "reason": "KubeletReady", "status": "True", "type": "Ready"}
                      ],
                      "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                      "images": [
                          {"names": ["cr.fluentbit.io/fluent/fluent-bit@sha256:3a5b1c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b", "cr.fluentbit.io/fluent/fluent-bit:3.2.1"], "sizeBytes": 38217455},
                          {"names": ["602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause@sha256:529cf6b1b6e5b76e901abc43aee825badbd93f9c5ee5f1e316d46a83abbce5a2", "602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.10"], "sizeBytes": 299855}
                      ],
                      "nodeInfo": {
                          "architecture": "amd64",
                          "bootID": "0d7f2c1a-3e4b-4c5d-8e9f-${ID}",
                          "containerRuntimeVersion": "containerd://2.1.4",
                          "kernelVersion": "6.12.40-64.114.amzn2023.x86_64",
                          "kubeProxyVersion": "",
                          "kubeletVersion": "v1.36.3-eks-113cf36",
                          "machineID": "ec2a7f3b9c1d4e5f6a7b8c9d0e1f2a3b",
                          "operatingSystem": "linux",
                          "osImage": "Amazon Linux 2023.9.20251117",
                          "systemUUID": "ec2a7f3b-9c1d-4e5f-6a7b-8c9d0e1f2a3b"
                      }
                  }
              }""";

  private static final String READY_STATUS =
      """
      [
                          {
                              "containerID": "containerd://${NAME}0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6",
                              "image": "${IMAGE}",
                              "imageID": "${IMAGE}@sha256:3a5b1c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b",
                              "lastState": {},
                              "name": "fluent-bit",
                              "ready": true,
                              "restartCount": 0,
                              "started": true,
                              "state": {"running": {"startedAt": "${STARTED}"}}
                          }
                      ]""";

  private static final String BACKOFF_STATUS =
      """
      [
                          {
                              "image": "${IMAGE}",
                              "imageID": "",
                              "lastState": {},
                              "name": "fluent-bit",
                              "ready": false,
                              "restartCount": 0,
                              "started": false,
                              "state": {"waiting": {"message": "Back-off pulling image \\"${IMAGE}\\": ErrImagePull: failed to pull and unpack image \\"${IMAGE}\\": failed to resolve reference: not found", "reason": "ImagePullBackOff"}}
                          }
                      ]""";

  private static final String POD =
      """
              {
                  "apiVersion": "v1",
                  "kind": "Pod",
                  "metadata": {
                      "creationTimestamp": "${CREATED}",
                      "generateName": "fluent-bit-",
                      "labels": {
                          "app.kubernetes.io/instance": "fluent-bit",
                          "app.kubernetes.io/name": "fluent-bit",
                          "controller-revision-hash": "${HASH}",
                          "pod-template-generation": "${GEN}"
                      },
                      "managedFields": [
                          {
                              "apiVersion": "v1",
                              "fieldsType": "FieldsV1",
                              "fieldsV1": {"f:status": {"f:conditions": {"k:{\\"type\\":\\"ContainersReady\\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}, "k:{\\"type\\":\\"Initialized\\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}, "k:{\\"type\\":\\"PodReadyToStartContainers\\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}, "k:{\\"type\\":\\"Ready\\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}}, "f:containerStatuses": {}, "f:hostIP": {}, "f:hostIPs": {}, "f:phase": {}, "f:podIP": {}, "f:podIPs": {".": {}, "k:{\\"ip\\":\\"${IP}\\"}": {".": {}, "f:ip": {}}}, "f:startTime": {}}},
                              "manager": "kubelet",
                              "operation": "Update",
                              "subresource": "status",
                              "time": "${STARTED}"
                          }
                      ],
                      "name": "${POD}",
                      "namespace": "kube-system",
                      "ownerReferences": [
                          {
                              "apiVersion": "apps/v1",
                              "blockOwnerDeletion": true,
                              "controller": true,
                              "kind": "DaemonSet",
                              "name": "fluent-bit",
                              "uid": "5d6c1b7e-0000-4000-8000-000000000001"
                          }
                      ],
                      "resourceVersion": "96${GEN}${IP}",
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
                      "containers": [
                          {
                              "image": "${IMAGE}",
                              "imagePullPolicy": "IfNotPresent",
                              "livenessProbe": {"failureThreshold": 3, "httpGet": {"path": "/", "port": "http", "scheme": "HTTP"}, "periodSeconds": 10, "successThreshold": 1, "timeoutSeconds": 1},
                              "name": "fluent-bit",
                              "ports": [{"containerPort": 2020, "name": "http", "protocol": "TCP"}],
                              "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                              "terminationMessagePath": "/dev/termination-log",
                              "terminationMessagePolicy": "File",
                              "volumeMounts": [
                                  {"mountPath": "/fluent-bit/etc/conf", "name": "config"},
                                  {"mountPath": "/var/log", "name": "varlog"},
                                  {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access-5qz8d", "readOnly": true}
                              ]
                          }
                      ],
                      "dnsPolicy": "ClusterFirst",
                      "enableServiceLinks": true,
                      "nodeName": "${NODE}",
                      "preemptionPolicy": "PreemptLowerPriority",
                      "priority": 2000001000,
                      "priorityClassName": "system-node-critical",
                      "restartPolicy": "Always",
                      "schedulerName": "default-scheduler",
                      "securityContext": {},
                      "serviceAccount": "fluent-bit",
                      "serviceAccountName": "fluent-bit",
                      "terminationGracePeriodSeconds": 30,
                      "tolerations": [
                          {"operator": "Exists"},
                          {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists"},
                          {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists"},
                          {"effect": "NoSchedule", "key": "node.kubernetes.io/disk-pressure", "operator": "Exists"},
                          {"effect": "NoSchedule", "key": "node.kubernetes.io/memory-pressure", "operator": "Exists"},
                          {"effect": "NoSchedule", "key": "node.kubernetes.io/pid-pressure", "operator": "Exists"},
                          {"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "operator": "Exists"}
                      ],
                      "volumes": [
                          {"configMap": {"defaultMode": 420, "name": "fluent-bit"}, "name": "config"},
                          {"hostPath": {"path": "/var/log", "type": ""}, "name": "varlog"},
                          {"name": "kube-api-access-5qz8d", "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}, {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}}, {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}]}}]}}
                      ]
                  },
                  "status": {
                      "conditions": [
                          {"lastProbeTime": null, "lastTransitionTime": "${STARTED}", "status": "True", "type": "PodReadyToStartContainers"},
                          {"lastProbeTime": null, "lastTransitionTime": "${CREATED}", "status": "True", "type": "Initialized"},
                          {"lastProbeTime": null, "lastTransitionTime": "${STARTED}", "status": "${READY}", "type": "Ready"${READY_REASON}},
                          {"lastProbeTime": null, "lastTransitionTime": "${STARTED}", "status": "${READY}", "type": "ContainersReady"${READY_REASON}},
                          {"lastProbeTime": null, "lastTransitionTime": "${CREATED}", "status": "True", "type": "PodScheduled"}
                      ],
                      "containerStatuses": ${STATUS},
                      "hostIP": "${IP}",
                      "hostIPs": [{"ip": "${IP}"}],
                      "phase": "${PHASE}",
                      "podIP": "${IP}",
                      "podIPs": [{"ip": "${IP}"}],
                      "qosClass": "Burstable",
                      "startTime": "${CREATED}"
                  }
              }""";
}
