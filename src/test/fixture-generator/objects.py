"""Builders for Kubernetes objects in the exact shape `kubectl get -o yaml` prints them.

Used by scenarios.py to write the analyzer's YAML fixtures under
src/test/resources/scenarios/. The fixtures are committed; this code only saves typing.
"""
import copy
import hashlib
from datetime import datetime, timedelta, timezone

T0 = datetime(2026, 12, 2, 10, 0, 0, tzinfo=timezone.utc)

DEFAULT_DAEMON_TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists"},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/disk-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/memory-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/pid-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "operator": "Exists"},
]


def at(minutes):
    """RFC 3339 timestamp `minutes` after T0 (negative: before)."""
    return (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def uid(*parts):
    h = hashlib.sha1("/".join(parts).encode()).hexdigest()
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def revision_hash(ds_name, template):
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    digest = hashlib.sha1((ds_name + repr(sorted_repr(template))).encode()).digest()
    return "".join(alphabet[b % len(alphabet)] for b in digest[:10])


def sorted_repr(o):
    if isinstance(o, dict):
        return tuple((k, sorted_repr(v)) for k, v in sorted(o.items()))
    if isinstance(o, list):
        return tuple(sorted_repr(v) for v in o)
    return o


def container(name, image, requests=None):
    c = {
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "resources": {"requests": requests or {"cpu": "100m", "memory": "128Mi"}},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }
    return c


def template(labels, containers, node_selector=None, tolerations=None, init_containers=None,
             affinity=None, host_network=False):
    spec = {
        "containers": containers,
        "dnsPolicy": "ClusterFirst",
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "serviceAccount": "default",
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
    }
    if init_containers:
        spec["initContainers"] = init_containers
    if node_selector:
        spec["nodeSelector"] = node_selector
    if tolerations:
        spec["tolerations"] = tolerations
    if affinity:
        spec["affinity"] = affinity
    if host_network:
        spec["hostNetwork"] = True
    return {"metadata": {"creationTimestamp": None, "labels": dict(labels)}, "spec": spec}


def node(name, labels=None, taints=None, ready="True", ready_reason=None, ready_message=None,
         allocatable=None, created=-60 * 24 * 30, unschedulable=False):
    lbl = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
    }
    lbl.update(labels or {})
    alloc = {"cpu": "16", "ephemeral-storage": "95551679124", "memory": "63922812Ki", "pods": "110"}
    alloc.update(allocatable or {})
    reasons = {
        "True": ("KubeletReady", "kubelet is posting ready status"),
        "False": ("KubeletNotReady", "container runtime network not ready: NetworkReady=false"),
        "Unknown": ("NodeStatusUnknown", "Kubelet stopped posting node status."),
    }
    r_reason, r_message = reasons[ready]
    obj = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                            "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
            "creationTimestamp": at(created),
            "labels": lbl,
            "name": name,
            "resourceVersion": "4711",
            "uid": uid("node", name),
        },
        "spec": {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24"]},
        "status": {
            "addresses": [{"address": "10.0.0.11", "type": "InternalIP"},
                          {"address": name, "type": "Hostname"}],
            "allocatable": alloc,
            "capacity": dict(alloc),
            "conditions": [
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory",
                     "kubelet has sufficient memory available", -600, heartbeat=True),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure",
                     "kubelet has no disk pressure", -600, heartbeat=True),
                cond("PIDPressure", "False", "KubeletHasSufficientPID",
                     "kubelet has sufficient PID available", -600, heartbeat=True),
                cond("Ready", ready, ready_reason or r_reason, ready_message or r_message,
                     -600 if ready == "True" else -20, heartbeat=True),
            ],
            "nodeInfo": {"architecture": "amd64", "containerRuntimeVersion": "containerd://1.7.13",
                         "kernelVersion": "6.1.0-18-amd64", "kubeProxyVersion": "v1.29.4",
                         "kubeletVersion": "v1.29.4", "operatingSystem": "linux",
                         "osImage": "Ubuntu 22.04.4 LTS"},
        },
    }
    if taints:
        obj["spec"]["taints"] = taints
    if unschedulable:
        obj["spec"]["unschedulable"] = True
    return obj


def cond(type_, status, reason=None, message=None, minutes=-60, heartbeat=False):
    c = {"lastTransitionTime": at(minutes), "status": status, "type": type_}
    if heartbeat:
        c["lastHeartbeatTime"] = at(-1)
    if reason:
        c["reason"] = reason
    if message:
        c["message"] = message
    if not heartbeat:
        c["lastProbeTime"] = None
    return c


class DaemonSet:
    def __init__(self, name, namespace, tmpl, generation=1, template_generation=None,
                 strategy=None, min_ready_seconds=0, created=-60 * 24 * 20, annotations=None,
                 status="auto"):
        self.name = name
        self.namespace = namespace
        self.uid = uid("ds", namespace, name)
        self.template = tmpl
        self.generation = generation
        self.template_generation = template_generation if template_generation is not None else generation
        self.strategy = strategy or {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1},
                                     "type": "RollingUpdate"}
        self.min_ready_seconds = min_ready_seconds
        self.created = created
        self.annotations = annotations or {}
        self.status = status

    def owner(self):
        return [{"apiVersion": "apps/v1", "blockOwnerDeletion": True, "controller": True,
                 "kind": "DaemonSet", "name": self.name, "uid": self.uid}]

    def obj(self, status=None):
        ann = {"deprecated.daemonset.template.generation": str(self.template_generation)}
        ann.update(self.annotations)
        o = {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {
                "annotations": ann,
                "creationTimestamp": at(self.created),
                "generation": self.generation,
                "labels": dict(self.template["metadata"]["labels"]),
                "name": self.name,
                "namespace": self.namespace,
                "resourceVersion": "90210",
                "uid": self.uid,
            },
            "spec": {
                "revisionHistoryLimit": 10,
                "selector": {"matchLabels": dict(self.template["metadata"]["labels"])},
                "template": copy.deepcopy(self.template),
                "updateStrategy": self.strategy,
            },
        }
        if self.min_ready_seconds:
            o["spec"]["minReadySeconds"] = self.min_ready_seconds
        if status is not None:
            # kubectl omits zero-valued status fields; keep only non-zero ones plus observedGeneration.
            o["status"] = {k: v for k, v in status.items() if v or k in (
                "currentNumberScheduled", "desiredNumberScheduled", "numberMisscheduled",
                "numberReady", "observedGeneration")}
        return o


class Revision:
    def __init__(self, ds, tmpl, number, created):
        self.ds = ds
        self.template = tmpl
        self.number = number
        self.created = created
        self.hash = revision_hash(ds.name, tmpl)

    def obj(self):
        data_tmpl = copy.deepcopy(self.template)
        data_tmpl["$patch"] = "replace"
        return {
            "apiVersion": "apps/v1",
            "data": {"spec": {"template": data_tmpl}},
            "kind": "ControllerRevision",
            "metadata": {
                "annotations": {"deprecated.daemonset.template.generation": str(self.number)},
                "creationTimestamp": at(self.created),
                "labels": dict(self.template["metadata"]["labels"], **{"controller-revision-hash": self.hash}),
                "name": f"{self.ds.name}-{self.hash}",
                "namespace": self.ds.namespace,
                "ownerReferences": self.ds.owner(),
                "resourceVersion": "1234",
                "uid": uid("cr", self.ds.namespace, self.ds.name, self.hash),
            },
            "revision": self.number,
        }


SUFFIX = "bcdfghjklmnpqrstvwxz2456789"


def pod_suffix(*parts):
    d = hashlib.sha1("/".join(parts).encode()).digest()
    return "".join(SUFFIX[b % len(SUFFIX)] for b in d[:5])


def pod(ds, rev, node_name, created, state="ready", ready_since=None, template_generation=None,
        labels_mode="both", deletion=None, message=None, reason=None, restarts=0, bound=True,
        owner=None, name=None):
    """A daemon pod created from `rev` (a Revision) for `node_name`.

    state: ready | notready | imagepull | errimagepull | crash | init-waiting | unschedulable |
           outof | creating | createconfig
    """
    tmpl = rev.template
    spec = copy.deepcopy(tmpl["spec"])
    spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}}}
    spec["tolerations"] = (spec.get("tolerations") or []) + DEFAULT_DAEMON_TOLERATIONS
    spec["enableServiceLinks"] = True
    spec["preemptionPolicy"] = "PreemptLowerPriority"
    spec["priority"] = 0
    if bound and state not in ("unschedulable",):
        spec["nodeName"] = node_name
    labels = dict(tmpl["metadata"]["labels"])
    if labels_mode in ("both", "hash"):
        labels["controller-revision-hash"] = rev.hash
    if labels_mode in ("both", "generation"):
        labels["pod-template-generation"] = str(template_generation or rev.number)
    pname = name or f"{ds.name}-{pod_suffix(ds.name, rev.hash, node_name, str(created))}"
    meta = {
        "creationTimestamp": at(created),
        "generateName": f"{ds.name}-",
        "labels": labels,
        "name": pname,
        "namespace": ds.namespace,
        "ownerReferences": owner if owner is not None else ds.owner(),
        "resourceVersion": "5555",
        "uid": uid("pod", ds.namespace, pname),
    }
    if deletion is not None:
        meta["deletionGracePeriodSeconds"] = 30
        meta["deletionTimestamp"] = at(deletion)
    status = pod_status(spec, state, created, ready_since, message, reason, restarts)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def cstatus(c, state, ready=False, restarts=0, started=False):
    return {
        "containerID": f"containerd://{hashlib.sha1(c['name'].encode()).hexdigest()}" if "running" in state or "terminated" in state else None,
        "image": c["image"],
        "imageID": f"{c['image'].split(':')[0]}@sha256:{hashlib.sha256(c['image'].encode()).hexdigest()}" if "running" in state or "terminated" in state else "",
        "lastState": {},
        "name": c["name"],
        "ready": ready,
        "restartCount": restarts,
        "started": started,
        "state": state,
    }


def clean(d):
    if isinstance(d, dict):
        return {k: clean(v) for k, v in d.items() if v is not None}
    if isinstance(d, list):
        return [clean(v) for v in d]
    return d


def pod_status(spec, state, created, ready_since, message, reason, restarts):
    containers = spec["containers"]
    inits = spec.get("initContainers", [])
    start = at(created)
    rs = at(ready_since if ready_since is not None else created + 0.5)
    base = {"hostIP": "10.0.0.11", "hostIPs": [{"ip": "10.0.0.11"}], "qosClass": "Burstable",
            "startTime": start}
    scheduled = cond("PodScheduled", "True", minutes=created)
    init_done = [cstatus(c, {"terminated": {"exitCode": 0, "reason": "Completed",
                                            "startedAt": start, "finishedAt": start,
                                            "containerID": "containerd://x"}}) for c in inits]

    if state == "ready":
        return clean(dict(base, phase="Running", podIP="10.244.1.7", podIPs=[{"ip": "10.244.1.7"}],
                    conditions=[cond("PodReadyToStartContainers", "True", minutes=created),
                                cond("Initialized", "True", minutes=created),
                                cond("Ready", "True", minutes=ready_since if ready_since is not None else created + 0.5),
                                cond("ContainersReady", "True", minutes=ready_since if ready_since is not None else created + 0.5),
                                scheduled],
                    initContainerStatuses=init_done or None,
                    containerStatuses=[cstatus(c, {"running": {"startedAt": start}}, True, restarts, True) for c in containers]))
    names = [c["name"] for c in containers]
    not_ready = lambda r="ContainersNotReady": [
        cond("PodReadyToStartContainers", "True", minutes=created),
        cond("Initialized", "True", minutes=created),
        cond("Ready", "False", r, f"containers with unready status: [{' '.join(names)}]", minutes=created),
        cond("ContainersReady", "False", r, f"containers with unready status: [{' '.join(names)}]", minutes=created),
        scheduled]
    if state in ("imagepull", "errimagepull"):
        img = containers[0]["image"]
        w = ({"waiting": {"reason": "ImagePullBackOff",
                          "message": message or f'Back-off pulling image "{img}"'}}
             if state == "imagepull" else
             {"waiting": {"reason": "ErrImagePull",
                          "message": message or f'rpc error: code = NotFound desc = failed to pull and unpack image "{img}": failed to resolve reference "{img}": {img}: not found'}})
        return clean(dict(base, phase="Pending", podIP="10.244.1.9", conditions=not_ready(),
                    initContainerStatuses=init_done or None,
                    containerStatuses=[cstatus(containers[0], w)] +
                    [cstatus(c, {"waiting": {"reason": "ContainerCreating"}}) for c in containers[1:]]))
    if state == "crash":
        c0 = cstatus(containers[0], {"waiting": {"reason": "CrashLoopBackOff", "message":
                     message or f"back-off 5m0s restarting failed container={containers[0]['name']} pod=x"}},
                     False, restarts or 7)
        c0["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error", "startedAt": start, "finishedAt": start,
                                          "containerID": "containerd://y"}}
        return clean(dict(base, phase="Running", podIP="10.244.1.9", conditions=not_ready(),
                    containerStatuses=[c0]))
    if state == "createconfig":
        c0 = cstatus(containers[0], {"waiting": {"reason": "CreateContainerConfigError", "message":
                     message or 'configmap "toolkit-config" not found'}})
        return clean(dict(base, phase="Pending", podIP="10.244.1.9", conditions=not_ready(),
                    containerStatuses=[c0]))
    if state == "notready":
        return clean(dict(base, phase="Running", podIP="10.244.1.9", conditions=not_ready(),
                    containerStatuses=[cstatus(c, {"running": {"startedAt": start}}, False, 0, True) for c in containers]))
    if state == "init-waiting":
        first = inits[0]
        ic = [cstatus(first, {"running": {"startedAt": start}}, False, 0, True)] + \
             [cstatus(c, {"waiting": {"reason": "PodInitializing"}}) for c in inits[1:]]
        conds = [cond("PodReadyToStartContainers", "True", minutes=created),
                 cond("Initialized", "False", "ContainersNotInitialized",
                      f"containers with incomplete status: [{' '.join(c['name'] for c in inits)}]", minutes=created),
                 cond("Ready", "False", "ContainersNotReady", f"containers with unready status: [{' '.join(names)}]", minutes=created),
                 cond("ContainersReady", "False", "ContainersNotReady", f"containers with unready status: [{' '.join(names)}]", minutes=created),
                 scheduled]
        return clean(dict(base, phase="Pending", podIP="10.244.1.9", conditions=conds, initContainerStatuses=ic,
                    containerStatuses=[cstatus(c, {"waiting": {"reason": "PodInitializing"}}) for c in containers]))
    if state == "unschedulable":
        return {"phase": "Pending", "qosClass": "Burstable",
                "conditions": [cond("PodScheduled", "False", "Unschedulable", message, minutes=created)]}
    if state == "outof":
        return {"phase": "Failed", "reason": reason or "OutOfcpu",
                "message": message or "Pod was rejected: Node didn't have enough resource: cpu, requested: 4000, used: 14500, capacity: 16000",
                "startTime": start}
    if state == "creating":
        return clean(dict(base, phase="Pending", conditions=[
            cond("PodReadyToStartContainers", "False", minutes=created),
            cond("Initialized", "True", minutes=created),
            cond("Ready", "False", "ContainersNotReady", f"containers with unready status: [{' '.join(names)}]", minutes=created),
            cond("ContainersReady", "False", "ContainersNotReady", f"containers with unready status: [{' '.join(names)}]", minutes=created),
            scheduled],
            containerStatuses=[cstatus(c, {"waiting": {"reason": "ContainerCreating"}}) for c in containers]))
    raise ValueError(state)


def status_of(desired, current, ready, updated, available, misscheduled=0, observed=1):
    return {"currentNumberScheduled": current, "desiredNumberScheduled": desired,
            "numberAvailable": available, "numberMisscheduled": misscheduled, "numberReady": ready,
            "numberUnavailable": desired - available, "observedGeneration": observed,
            "updatedNumberScheduled": updated}
