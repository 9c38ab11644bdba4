#!/usr/bin/env python3
"""Writes the analyzer's scenario fixtures: src/test/resources/scenarios/<name>.yaml.

Each fixture holds a story, the evaluation instant, stall-after, the objects exactly as
`kubectl get daemonsets,pods,nodes,controllerrevisions -A -o yaml` prints them, and the verdict
we expect (only the keys given are checked). Run from the repository root:

    python3 src/test/fixture-generator/scenarios.py
"""
import copy
import os
import sys

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from objects import (DaemonSet, Revision, at, container, node, pod, status_of, template, uid)  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "..", "resources", "scenarios")
SCENARIOS = {}

GPU_NS = "gpu-operator"
TOOLKIT = "nvidia-container-toolkit"
OLD_IMAGE = "nvcr.io/nvidia/k8s/container-toolkit:v1.14.6-ubuntu20.04"
NEW_IMAGE = "nvcr.io/nvidia/k8s/container-toolkit:v1.15.0-ubuntu20.04"
BAD_IMAGE = "nvcr.io/nvidia/k8s/container-toolkit:v1.15.0-ubuntu2004"
GPU_LABELS = {"nvidia.com/gpu.present": "true"}
GPU_TAINT = {"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "present"}
GPU_TOLERATION = {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}


def scenario(fn):
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


def gpu_nodes(n=3, **overrides):
    return [node(f"gpu-node-{i}", labels=GPU_LABELS, taints=[GPU_TAINT],
                 allocatable={"nvidia.com/gpu": "1"}, **overrides.get(i, {}))
            for i in range(1, n + 1)]


def toolkit_template(image, **kw):
    kw.setdefault("node_selector", GPU_LABELS)
    kw.setdefault("tolerations", [GPU_TOLERATION])
    return template({"app": TOOLKIT}, [container("toolkit", image)], **kw)


def toolkit_rollout(new_image=BAD_IMAGE, new_template=None, **ds_kw):
    """The seed's DaemonSet: revision 1 long ago, revision 2 (the update) 12 minutes ago."""
    old_t = toolkit_template(OLD_IMAGE)
    new_t = new_template or toolkit_template(new_image)
    ds = DaemonSet(TOOLKIT, GPU_NS, new_t, generation=2, **ds_kw)
    r1 = Revision(ds, old_t, 1, -60 * 24 * 20)
    r2 = Revision(ds, new_t, 2, -12)
    return ds, r1, r2


def old_pod(ds, r1, node_name, **kw):
    return pod(ds, r1, node_name, -60 * 24 * 20, "ready", **kw)


def doc(story, now, objects, expect, stall_after="5m"):
    return {"story": story, "now": at(now), "stallAfter": stall_after,
            "objects": {"apiVersion": "v1", "kind": "List", "items": objects,
                        "metadata": {"resourceVersion": ""}},
            "expect": expect}


def counts(desired, current, ready, up, available, misscheduled=0):
    return {"desired": desired, "current": current, "ready": ready, "upToDate": up,
            "available": available, "unavailable": desired - available,
            "misscheduled": misscheduled}


def rev(r):
    return {"hash": r.hash, "revision": r.number}


# ---------------------------------------------------------------- the seed and every cause


@scenario
def seed_image_pull():
    ds, r1, r2 = toolkit_rollout()
    pods = [pod(ds, r2, "gpu-node-1", -12, "imagepull"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("The seed: three GPU nodes, a new toolkit tag that cannot be pulled. gpu-node-1 lost "
               "its old pod 12 minutes ago and its new pod waits in ImagePullBackOff; READY 2/3.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "namespace": GPU_NS, "name": TOOLKIT, "phase": "Stalled", "cause": "ImagePull",
                   "reason": "ImagePullBackOff",  "suspect": "NewRevision",
                   "suspectReason": "the new revision's pod fails on Ready node gpu-node-1 (ImagePullBackOff)",
                   "stalledNodes": ["gpu-node-1"],
                   "stalledSince": at(-12), "counts": counts(3, 3, 2, 1, 2),
                   "reported": counts(3, 3, 2, 1, 2),
                   "oldRevision": dict(rev(r1), images=[OLD_IMAGE]),
                   "newRevision": dict(rev(r2), images=[BAD_IMAGE]),
                   "maxUnavailable": 1, "maxSurge": 0,
                   "nodes": {
                       "gpu-node-1": {"revision": "none", "standing": "stuck", "cause": "ImagePull",
                                      "state": "ImagePullBackOff", "since": at(-12)},
                       "gpu-node-2": {"revision": "old", "standing": "waiting", "cause": None,
                                      "state": "Running"},
                       "gpu-node-3": {"revision": "old", "standing": "waiting", "state": "Running"}}}]})


@scenario
def image_pull_not_yet_stalled():
    ds, r1, r2 = toolkit_rollout()
    r2.created = -3
    pods = [pod(ds, r2, "gpu-node-1", -3, "errimagepull"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("Same image problem, only 3 minutes old: the rollout is still Progressing and the "
               "node is updating, with its cause already known.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Progressing", "cause": None, "reason": "Updating",
                   "stalledNodes": [], "stalledSince": None,
                   "nextCheck": at(2),
                   "nodes": {"gpu-node-1": {"standing": "updating", "cause": "ImagePull",
                                            "reason": "ErrImagePull", "state": "ErrImagePull",
                                            "since": at(-3)}}}]})


@scenario
def insufficient_gpu():
    new_t = toolkit_template(NEW_IMAGE)
    new_t["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "2"},
                                                   "requests": {"cpu": "100m", "nvidia.com/gpu": "2"}}
    ds, r1, r2 = toolkit_rollout(new_template=new_t)
    msg = ("0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't match Pod's "
           "node affinity/selector. preemption: 0/3 nodes are available: 1 No preemption victims "
           "found for incoming pod, 2 Preemption is not helpful for scheduling.")
    pods = [pod(ds, r2, "gpu-node-1", -9, "unschedulable", message=msg),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("The new spec asks for two GPUs on nodes that have one: the new pod stays Pending, "
               "PodScheduled=False Unschedulable, 'Insufficient nvidia.com/gpu'.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "InsufficientResources",
                   "reason": "Unschedulable", "suspect": "NewRevision",
                   "suspectReason": "the new revision asks for more nvidia.com/gpu than the old one (2 > 0)", "stalledNodes": ["gpu-node-1"],
                   "stalledSince": at(-9), "counts": counts(3, 3, 2, 1, 2),
                   "nodes": {"gpu-node-1": {"revision": "none", "state": "Pending",
                                            "cause": "InsufficientResources", "pod": pods[0]["metadata"]["name"]}}}]})


@scenario
def kubelet_out_of_cpu():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    pods = [pod(ds, r2, "gpu-node-1", -7, "outof"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("The kubelet rejects the new pod at admission: phase Failed, reason OutOfcpu.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "InsufficientResources",
                   "reason": "OutOfcpu", "suspect": "Node", "stalledNodes": ["gpu-node-1"],
                   "nodes": {"gpu-node-1": {"state": "OutOfcpu", "revision": "none"}}}]})


@scenario
def host_port_conflict():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    msg = ("0/3 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, "
           "2 node(s) didn't match Pod's node affinity/selector.")
    pods = [pod(ds, r2, "gpu-node-1", -30, "unschedulable", message=msg),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("The scheduler rejects the new pod for a host port conflict: Unschedulable, not a "
               "resource shortage.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "Unschedulable",
                   "reason": "Unschedulable", "suspect": "Node", "stalledNodes": ["gpu-node-1"]}]})


@scenario
def crash_loop():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    pods = [pod(ds, r2, "gpu-node-1", -15, "crash", restarts=7),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("The new toolkit starts and exits 1, over and over: CrashLoopBackOff.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "CrashLoop",
                   "reason": "CrashLoopBackOff", "suspect": "NewRevision", "stalledNodes": ["gpu-node-1"],
                   "nodes": {"gpu-node-1": {"state": "CrashLoopBackOff", "revision": "none"}}}]})


@scenario
def config_error():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    pods = [pod(ds, r2, "gpu-node-1", -15, "createconfig"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("The new pod refers to a ConfigMap that does not exist: CreateContainerConfigError "
               "counts as a crash-loop-class failure.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "CrashLoop",
                   "reason": "CreateContainerConfigError"}]})


@scenario
def readiness_never():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    pods = [pod(ds, r2, "gpu-node-1", -20, "notready"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("The new pod runs but its readiness probe never passes.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NotReady",
                   "reason": "ContainersNotReady", "stalledNodes": ["gpu-node-1"],
                   "counts": counts(3, 3, 2, 1, 2),
                   "nodes": {"gpu-node-1": {"state": "Running", "revision": "none"}}}]})


@scenario
def init_waiting_on_driver():
    init = [container("wait-for-driver", "nvcr.io/nvidia/cuda:12.3.1-base-ubi8")]
    new_t = toolkit_template(NEW_IMAGE, init_containers=init)
    ds, r1, r2 = toolkit_rollout(new_template=new_t)
    pods = [pod(ds, r2, "gpu-node-1", -25, "init-waiting"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("An init container waits for a GPU driver that never appears: Init:0/1.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NotReady",
                   "stalledNodes": ["gpu-node-1"],
                   "nodes": {"gpu-node-1": {"state": "Init:0/1", "cause": "NotReady"}}}]})


@scenario
def toleration_dropped():
    new_t = toolkit_template(NEW_IMAGE, tolerations=None)
    new_t["spec"].pop("tolerations", None)
    ds, r1, r2 = toolkit_rollout(new_template=new_t)
    nodes = [node("gpu-node-1", labels=GPU_LABELS), node("gpu-node-2", labels=GPU_LABELS),
             node("gpu-node-3", labels=GPU_LABELS, taints=[GPU_TAINT])]
    pods = [pod(ds, r2, "gpu-node-1", -11, "ready"), pod(ds, r2, "gpu-node-2", -10, "ready"),
            old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(2, 2, 2, 2, 2, misscheduled=1, observed=2))] + pods + nodes + [r1.obj(), r2.obj()]
    return doc("The new spec forgot the nvidia.com/gpu toleration. gpu-node-3 carries the taint, so "
               "the controller drops it: DESIRED shrinks to 2 and the rollout looks complete, while "
               "gpu-node-3 keeps the old pod (NoSchedule lets it stay) — misscheduled.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NodeExcluded",
                   "reason": "TaintNotTolerated", "suspect": "NewRevision", "stalledNodes": ["gpu-node-3"],
                   "stalledSince": at(-12), "counts": counts(2, 2, 2, 2, 2, misscheduled=1),
                   "nodes": {"gpu-node-1": {"revision": "new", "standing": "updated"},
                             "gpu-node-3": {"revision": "old", "standing": "excluded",
                                            "cause": "NodeExcluded", "state": "Running"}}}]})


@scenario
def node_selector_narrowed():
    new_t = toolkit_template(NEW_IMAGE, node_selector={"nvidia.com/gpu.present": "true",
                                                        "nvidia.com/gpu.product": "H100"})
    ds, r1, r2 = toolkit_rollout(new_template=new_t)
    nodes = [node("gpu-node-1", labels=dict(GPU_LABELS, **{"nvidia.com/gpu.product": "H100"})),
             node("gpu-node-2", labels=dict(GPU_LABELS, **{"nvidia.com/gpu.product": "H100"})),
             node("gpu-node-3", labels=dict(GPU_LABELS, **{"nvidia.com/gpu.product": "A100"}))]
    pods = [pod(ds, r2, "gpu-node-1", -11, "ready"), pod(ds, r2, "gpu-node-2", -10, "ready")]
    objs = [ds.obj(status_of(2, 2, 2, 2, 2, observed=2))] + pods + nodes + [r1.obj(), r2.obj()]
    return doc("The new nodeSelector asks for H100; gpu-node-3 has an A100. The controller deletes "
               "its pod and DESIRED drops to 2: kubectl shows 2/2, a 'complete' rollout with one "
               "node silently running nothing.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NodeExcluded",
                   "reason": "NodeSelectorMismatch", "stalledNodes": ["gpu-node-3"],
                   "counts": counts(2, 2, 2, 2, 2),
                   "nodes": {"gpu-node-3": {"revision": "none", "standing": "excluded",
                                            "pod": None, "state": "-"}}}]})


@scenario
def node_exclusion_allowed():
    new_t = toolkit_template(NEW_IMAGE, node_selector={"nvidia.com/gpu.present": "true",
                                                        "nvidia.com/gpu.product": "H100"})
    ds, r1, r2 = toolkit_rollout(new_template=new_t,
                                 annotations={"stallwatch.dev/allow-node-exclusion": "true"})
    nodes = [node("gpu-node-1", labels=dict(GPU_LABELS, **{"nvidia.com/gpu.product": "H100"})),
             node("gpu-node-2", labels=dict(GPU_LABELS, **{"nvidia.com/gpu.product": "H100"})),
             node("gpu-node-3", labels=dict(GPU_LABELS, **{"nvidia.com/gpu.product": "A100"}))]
    pods = [pod(ds, r2, "gpu-node-1", -11, "ready"), pod(ds, r2, "gpu-node-2", -10, "ready")]
    objs = [ds.obj(status_of(2, 2, 2, 2, 2, observed=2))] + pods + nodes + [r1.obj(), r2.obj()]
    return doc("The same narrowing, declared deliberate with stallwatch.dev/allow-node-exclusion: "
               "the excluded node is listed but the rollout is Complete.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Complete", "cause": None, "stalledNodes": [],
                   "nodes": {"gpu-node-3": {"standing": "excluded", "cause": "NodeExcluded"}}}]})


@scenario
def affinity_excludes_node():
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "node.kubernetes.io/instance-type", "operator": "NotIn",
                               "values": ["p3.2xlarge"]}]}]}}}
    new_t = toolkit_template(NEW_IMAGE, affinity=aff)
    ds, r1, r2 = toolkit_rollout(new_template=new_t)
    nodes = gpu_nodes()
    nodes[2]["metadata"]["labels"]["node.kubernetes.io/instance-type"] = "p3.2xlarge"
    pods = [pod(ds, r2, "gpu-node-1", -11, "ready"), pod(ds, r2, "gpu-node-2", -10, "ready")]
    objs = [ds.obj(status_of(2, 2, 2, 2, 2, observed=2))] + pods + nodes + [r1.obj(), r2.obj()]
    return doc("Required node affinity (NotIn an instance type) drops gpu-node-3.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NodeExcluded",
                   "reason": "NodeAffinityMismatch", "stalledNodes": ["gpu-node-3"]}]})


@scenario
def node_unreachable():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    unreachable = [{"effect": "NoSchedule", "key": "node.kubernetes.io/unreachable",
                    "timeAdded": at(-20)},
                   {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable",
                    "timeAdded": at(-15)}]
    nodes = gpu_nodes()
    nodes[1] = node("gpu-node-2", labels=GPU_LABELS, taints=[GPU_TAINT] + unreachable,
                    ready="Unknown", allocatable={"nvidia.com/gpu": "1"})
    stuck = old_pod(ds, r1, "gpu-node-2", deletion=-10)
    stuck["status"]["conditions"] = [c if c["type"] != "Ready" else dict(c, status="False")
                                     for c in stuck["status"]["conditions"]]
    pods = [pod(ds, r2, "gpu-node-1", -12, "ready"), stuck, old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(2, 2, 2, 1, 2, misscheduled=1, observed=2))] + pods + nodes + [r1.obj(), r2.obj()]
    return doc("gpu-node-2 stopped posting status. The controller deleted its old pod, which can "
               "never finish terminating there; the node fell out of DESIRED but its terminating "
               "pod still uses the one unavailable slot, so gpu-node-3 never gets its turn.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NodeUnavailable",
                   "reason": "NodeStatusUnknown", "suspect": "Node",
                   "suspectReason": "node gpu-node-2 was not Ready before the rollout reached it", "stalledNodes": ["gpu-node-2"],
                   "counts": counts(2, 2, 2, 1, 2, misscheduled=1),
                   "nodes": {"gpu-node-2": {"state": "Terminating", "revision": "none",
                                            "standing": "stuck"},
                             "gpu-node-1": {"revision": "new", "standing": "updated"},
                             "gpu-node-3": {"revision": "old", "standing": "waiting"}}}]})


@scenario
def stuck_terminating_on_ready_node():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    stuck = old_pod(ds, r1, "gpu-node-1", deletion=-9)
    pods = [stuck, old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 3, 0, 3, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("The old pod on gpu-node-1 hangs in Terminating (a finalizer, a stuck volume) on a "
               "healthy node: the new pod is never created.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NodeUnavailable",
                   "reason": "Terminating", "suspect": "Unknown", "stalledNodes": ["gpu-node-1"],
                   "counts": counts(3, 3, 3, 0, 3),
                   "nodes": {"gpu-node-1": {"state": "Terminating", "revision": "none"}}}]})


@scenario
def max_surge_without_room():
    strategy = {"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}, "type": "RollingUpdate"}
    new_t = toolkit_template(NEW_IMAGE)
    new_t["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "12", "memory": "128Mi"}}
    ds, r1, r2 = toolkit_rollout(new_template=new_t, strategy=strategy)
    msg = ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node "
           "affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful "
           "for scheduling.")
    pods = [old_pod(ds, r1, "gpu-node-1"), pod(ds, r2, "gpu-node-1", -8, "unschedulable", message=msg),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 3, 0, 3, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("maxSurge 1 / maxUnavailable 0: the surge pod cannot fit beside the old one. The "
               "node still runs the old spec, yet it holds the rollout back.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "InsufficientResources", "suspect": "NewRevision",
                   "stalledNodes": ["gpu-node-1"], "maxUnavailable": 0, "maxSurge": 1,
                   "counts": counts(3, 3, 3, 0, 3),
                   "nodes": {"gpu-node-1": {"revision": "old", "standing": "stuck",
                                            "state": "Pending"}}}]})


@scenario
def unknown_cause():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    pods = [pod(ds, r2, "gpu-node-1", -14, "creating"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("The new pod has sat in ContainerCreating for 14 minutes (a volume that never "
               "mounts); none of the known causes applies.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "Unknown",
                   "reason": "ContainerCreating", "suspect": "NewRevision", "stalledNodes": ["gpu-node-1"]}]})


# ---------------------------------------------------------------- phases and edge cases


@scenario
def healthy_complete():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    pods = [pod(ds, r2, f"gpu-node-{i}", -12 + i, "ready") for i in (1, 2, 3)]
    objs = [ds.obj(status_of(3, 3, 3, 3, 3, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("A healthy rollout that finished: every node runs an available new pod.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Complete", "cause": None, "reason": "RolloutComplete",
                   "counts": counts(3, 3, 3, 3, 3),
                   "oldRevision": rev(r1), "newRevision": rev(r2),
                   "nodes": {"gpu-node-2": {"revision": "new", "standing": "updated"}}}]})


@scenario
def progressing_within_budget():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    pods = [pod(ds, r2, "gpu-node-1", -2, "ready"), pod(ds, r2, "gpu-node-2", -1, "creating"),
            old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 2, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("A rollout in motion: one node done, one creating its pod, one waiting its turn.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Progressing", "reason": "Updating",
                   "nodes": {"gpu-node-1": {"standing": "updated"},
                             "gpu-node-2": {"standing": "updating", "state": "ContainerCreating"},
                             "gpu-node-3": {"standing": "waiting", "revision": "old"}}}]})


@scenario
def generation_not_observed():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    ds.generation = 3
    ds.template_generation = 3
    pods = [pod(ds, r2, f"gpu-node-{i}", -12 + i, "ready") for i in (1, 2, 3)]
    objs = [ds.obj(status_of(3, 3, 3, 3, 3, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("The DaemonSet was just edited (generation 3) and the controller has not observed "
               "it yet: never Complete while observedGeneration < generation.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Progressing", "reason": "GenerationNotObserved"}]})


@scenario
def daemonset_without_status():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    objs = [ds.obj(None)] + gpu_nodes() + [r1.obj(), r2.obj()]
    r2.created = -1
    objs[-1] = r2.obj()
    return doc("A DaemonSet the controller has not reported on yet: no status, no pods.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Progressing", "reason": "StatusNotReported",
                   "reported": None, "counts": counts(3, 0, 0, 0, 0)}]})


@scenario
def on_delete_strategy():
    ds, r1, r2 = toolkit_rollout(BAD_IMAGE, strategy={"type": "OnDelete"})
    pods = [pod(ds, r2, "gpu-node-1", -30, "imagepull"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("updateStrategy OnDelete: pods change only when someone deletes them. Never "
               "reported as stalled, even with a broken new pod.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "OnDelete", "cause": None, "stalledNodes": [],
                   "counts": counts(3, 3, 2, 1, 2)}]})


@scenario
def without_controller_revisions():
    ds, r1, r2 = toolkit_rollout()
    pods = [pod(ds, r2, "gpu-node-1", -12, "imagepull", labels_mode="generation"),
            old_pod(ds, r1, "gpu-node-2", labels_mode="generation"),
            old_pod(ds, r1, "gpu-node-3", labels_mode="generation")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes()
    return doc("A dump without ControllerRevisions: pods are matched by pod-template-generation "
               "against the DaemonSet's template-generation annotation. The stall dates from the "
               "new pod's creation.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "ImagePull",
                   "stalledNodes": ["gpu-node-1"], "stalledSince": at(-12),
                   "counts": counts(3, 3, 2, 1, 2),
                   "newRevision": {"revision": None, "templateGeneration": 2, "images": [BAD_IMAGE]},
                   "oldRevision": {"revision": None, "templateGeneration": 1, "images": [OLD_IMAGE]},
                   "message": "rollout to revision of template generation 2 (its ControllerRevision "
                              "is not in the input) stopped on node gpu-node-1: ImagePull: Back-off "
                              f"pulling image \"{BAD_IMAGE}\""}]})


@scenario
def without_controller_revisions_hashes_from_pods():
    ds, r1, r2 = toolkit_rollout()
    pods = [pod(ds, r2, "gpu-node-1", -12, "imagepull"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes()
    return doc("No ControllerRevisions, but the pods carry controller-revision-hash: the revisions "
               "are named by those hashes and the message says their ControllerRevisions were not "
               "in the input — never 'revision ?'.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "ImagePull",
                   "newRevision": {"hash": r2.hash, "revision": None, "templateGeneration": 2},
                   "oldRevision": {"hash": r1.hash, "revision": None, "templateGeneration": 1},
                   "message": f"rollout to revision {r2.hash} (template generation 2; its "
                              "ControllerRevision is not in the input) stopped on node gpu-node-1: "
                              f"ImagePull: Back-off pulling image \"{BAD_IMAGE}\""}]})


@scenario
def without_controller_revisions_no_new_pod_yet():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    pods = [old_pod(ds, r1, "gpu-node-1", deletion=-9),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 3, 0, 3, observed=2))] + pods + gpu_nodes()
    return doc("No ControllerRevisions and no pod of the new revision yet (the old pod on "
               "gpu-node-1 hangs in Terminating): the new revision is named by the DaemonSet's "
               "template generation, the old one by its pods' hash.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NodeUnavailable",
                   "newRevision": {"hash": "", "revision": None, "templateGeneration": 2},
                   "oldRevision": {"hash": r1.hash, "revision": None, "templateGeneration": 1},
                   "message": "rollout to revision of template generation 2 (its ControllerRevision "
                              "is not in the input) stopped on node gpu-node-1: NodeUnavailable: "
                              f"pod {pods[0]['metadata']['name']} has been terminating since "
                              f"{at(-9)}"}]})


@scenario
def pods_without_revision_labels():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    pods = [old_pod(ds, r1, f"gpu-node-{i}", labels_mode="none") for i in (1, 2, 3)]
    objs = [ds.obj(status_of(3, 3, 3, 0, 3, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("Pods that carry neither controller-revision-hash nor pod-template-generation (made "
               "by hand or by an old controller) count as old: the rollout has not reached them.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Progressing", "counts": counts(3, 3, 3, 0, 3),
                   "nodes": {"gpu-node-1": {"revision": "old", "standing": "waiting"}}}]})


@scenario
def foreign_pods_ignored():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    pods = [pod(ds, r2, f"gpu-node-{i}", -12 + i, "ready") for i in (1, 2, 3)]
    rs_owner = [{"apiVersion": "apps/v1", "blockOwnerDeletion": True, "controller": True,
                 "kind": "ReplicaSet", "name": "toolkit-validator-6d4b9c", "uid": "0000-rs"}]
    foreign = [pod(ds, r2, "gpu-node-1", -5, "imagepull", owner=rs_owner, name="toolkit-validator-6d4b9c-abcde"),
               pod(ds, r2, "gpu-node-2", -5, "crash", owner=[], name="bare-pod")]
    objs = [ds.obj(status_of(3, 3, 3, 3, 3, observed=2))] + pods + foreign + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("Pods with the DaemonSet's labels but another owner (a ReplicaSet, none) are not "
               "its pods and change nothing.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Complete", "counts": counts(3, 3, 3, 3, 3)}]})


@scenario
def two_namespaces_same_name():
    ds_a, r1a, r2a = toolkit_rollout()
    ds_b = DaemonSet(TOOLKIT, "gpu-staging", toolkit_template(NEW_IMAGE), generation=2)
    r1b = Revision(ds_b, toolkit_template(OLD_IMAGE), 1, -60 * 24)
    r2b = Revision(ds_b, toolkit_template(NEW_IMAGE), 2, -60)
    pods = [pod(ds_a, r2a, "gpu-node-1", -12, "imagepull"),
            old_pod(ds_a, r1a, "gpu-node-2"), old_pod(ds_a, r1a, "gpu-node-3")]
    pods += [pod(ds_b, r2b, f"gpu-node-{i}", -50 + i, "ready") for i in (1, 2, 3)]
    objs = ([ds_a.obj(status_of(3, 3, 2, 1, 2, observed=2)), ds_b.obj(status_of(3, 3, 3, 3, 3, observed=2))]
            + pods + gpu_nodes() + [r1a.obj(), r2a.obj(), r1b.obj(), r2b.obj()])
    return doc("Two DaemonSets with the same name in two namespaces: each sees only its own pods "
               "and revisions (by owner uid).",
               0, objs, {"exitCode": 1, "daemonSets": [
                   {"namespace": GPU_NS, "name": TOOLKIT, "phase": "Stalled", "cause": "ImagePull",
                    "counts": counts(3, 3, 2, 1, 2), "newRevision": rev(r2a)},
                   {"namespace": "gpu-staging", "name": TOOLKIT, "phase": "Complete",
                    "counts": counts(3, 3, 3, 3, 3), "newRevision": rev(r2b)}]})


@scenario
def min_ready_seconds_not_reached():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE, min_ready_seconds=600)
    pods = [pod(ds, r2, "gpu-node-1", -4, "ready", ready_since=-3),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 3, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("minReadySeconds 600: the new pod has been Ready for 3 minutes, so it is ready but "
               "not yet available; the rollout waits, and the next check is when stall-after "
               "runs out, counted from the pod's Ready transition (it becomes available on its "
               "own, so it is stuck only once Ready for stall-after).",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Progressing", "counts": counts(3, 3, 3, 1, 2),
                   "nextCheck": at(2),
                   "nodes": {"gpu-node-1": {"revision": "new", "standing": "updating",
                                            "cause": "NotReady", "reason": "MinReadySeconds"}}}]})


@scenario
def min_ready_seconds_stalls():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE, min_ready_seconds=3600)
    pods = [pod(ds, r2, "gpu-node-1", -12, "ready", ready_since=-11),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 3, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("minReadySeconds of an hour holds the node back past stall-after: Stalled, NotReady "
               "(reason MinReadySeconds) — usually a misconfiguration worth a look.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NotReady",
                   "reason": "MinReadySeconds", "counts": counts(3, 3, 3, 1, 2)}]})


@scenario
def rolled_back():
    ds, r1, r2 = toolkit_rollout()
    ds.template = r1.template
    ds.generation = 3
    ds.template_generation = 3
    r1.number = 3  # a rollback re-numbers the restored revision
    pods = [pod(ds, r1, "gpu-node-1", -2, "ready", template_generation=3),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 3, 3, 3, observed=3))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("After `rollout undo`: the DaemonSet's template equals revision 1's again, which the "
               "controller re-numbered 3. Every node converged on one spec: Complete, and the "
               "broken revision is the old one.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Complete", "newRevision": rev(r1),
                   "oldRevision": rev(r2), "counts": counts(3, 3, 3, 3, 3)}]})


@scenario
def rollback_in_progress():
    ds, r1, r2 = toolkit_rollout()
    ds.template = r1.template
    ds.generation = 3
    ds.template_generation = 3
    r1.number = 3
    pods = [pod(ds, r2, "gpu-node-1", -12, "imagepull"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 2, 2, observed=3))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("Right after `rollout undo`, before the controller replaced the broken pod: the "
               "broken pod now runs the old revision and will be replaced; nothing is stalled.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Progressing", "newRevision": rev(r1),
                   "oldRevision": rev(r2), "counts": counts(3, 3, 2, 2, 2),
                   "nodes": {"gpu-node-1": {"revision": "old", "standing": "waiting"}}}]})


@scenario
def rollback_node_briefly_without_pod():
    ds, r1, r2 = toolkit_rollout()
    ds.template = r1.template
    ds.generation = 3
    ds.template_generation = 3
    r1.number = 3
    pods = [old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 2, 2, 2, 2, observed=3))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("Right after `rollout undo` the controller deleted the broken pod on gpu-node-1 and "
               "has not created its replacement yet. The restored revision was created 20 days "
               "ago, but the rollout back to it cannot have begun before the broken revision "
               "existed (12 minutes ago): with stall-after 15m nothing is stuck.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Progressing", "newRevision": rev(r1),
                   "nodes": {"gpu-node-1": {"revision": "none", "standing": "updating",
                                            "since": at(-12)}}}]}, stall_after="15m")


@scenario
def several_stuck_nodes_by_percent():
    ds, r1, r2 = toolkit_rollout(strategy={"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "20%"},
                                           "type": "RollingUpdate"})
    nodes = gpu_nodes(10)
    pods = [pod(ds, r2, "gpu-node-7", -11, "imagepull"), pod(ds, r2, "gpu-node-3", -11, "imagepull")]
    pods += [old_pod(ds, r1, f"gpu-node-{i}") for i in range(1, 11) if i not in (3, 7)]
    objs = [ds.obj(status_of(10, 10, 8, 2, 8, observed=2))] + pods + nodes + [r1.obj(), r2.obj()]
    return doc("Ten nodes, maxUnavailable 20% (= 2): two nodes stuck at once; the cause and "
               "stalledSince are those of the earliest, ties broken by node name.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "maxUnavailable": 2,
                   "stalledNodes": ["gpu-node-3", "gpu-node-7"], "stalledSince": at(-11),
                   "counts": counts(10, 10, 8, 2, 8)}]})


@scenario
def status_arithmetic():
    base = template({"app": "node-exporter"},
                    [container("node-exporter", "quay.io/prometheus/node-exporter:v1.8.1")],
                    node_selector={"kubernetes.io/os": "linux"})
    ds = DaemonSet("node-exporter", "monitoring", base, generation=1)
    r1 = Revision(ds, base, 1, -60 * 24)
    nodes = [node("node-a"), node("node-b"), node("node-c"),
             node("win-1", labels={"kubernetes.io/os": "windows"})]
    # node-a: two pods; the older (bound, ready) is the one counted.
    older = pod(ds, r1, "node-a", -100, "ready")
    newer = pod(ds, r1, "node-a", -5, "notready")
    # node-b: an unbound pod created first and a bound one created later: bound comes first.
    unbound = pod(ds, r1, "node-b", -50, "unschedulable", message="0/4 nodes are available",
                  bound=False)
    bound = pod(ds, r1, "node-b", -40, "ready")
    # win-1: the selector excludes it, yet a pod is there: misscheduled.
    mis = pod(ds, r1, "win-1", -100, "ready")
    # a pod for a node that no longer exists is not counted at all.
    ghost = pod(ds, r1, "node-gone", -100, "ready")
    objs = ([ds.obj(status_of(3, 2, 2, 2, 2, misscheduled=1, observed=1))] +
            [older, newer, unbound, bound, mis, ghost] + nodes + [r1.obj()])
    return doc("Upstream's status arithmetic: DESIRED counts nodes that should run the pod; CURRENT "
               "those with a pod; READY/AVAILABLE/UP-TO-DATE judge the oldest pod (bound first); "
               "pods where the DaemonSet should not run are misscheduled; pods on unknown nodes "
               "are not counted. node-c has had no pod for a day: stuck, cause unknown.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "namespace": "monitoring", "name": "node-exporter", "phase": "Stalled",
                   "cause": "Unknown", "reason": "NoPod", "suspect": "Unknown", "stalledNodes": ["node-c"],
                   "counts": counts(3, 2, 2, 2, 2, misscheduled=1),
                   "evidence": "Partial", "missing": ["node node-gone is not in the input"],
                   "nodes": {"node-a": {"standing": "updated", "state": "Running"},
                             "node-b": {"standing": "updated"},
                             "win-1": {"standing": "notDesired"},
                             "node-gone": {"standing": "unknown"}}}]})


@scenario
def zero_desired_nodes():
    t = toolkit_template(NEW_IMAGE, node_selector={"nvidia.com/gpu.product": "B200"})
    ds = DaemonSet(TOOLKIT, GPU_NS, t, generation=1)
    r1 = Revision(ds, t, 1, -60)
    objs = [ds.obj(status_of(0, 0, 0, 0, 0, observed=1))] + gpu_nodes() + [r1.obj()]
    return doc("No node matches the selector: DESIRED 0 and nothing to roll out — Complete, and "
               "with no earlier revision nothing is excluded.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Complete", "counts": counts(0, 0, 0, 0, 0),
                   "maxUnavailable": 1, "oldRevision": None}]})


@scenario
def surge_replacing_old_pod():
    strategy = {"rollingUpdate": {"maxSurge": "10%", "maxUnavailable": 0}, "type": "RollingUpdate"}
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE, strategy=strategy)
    pods = [old_pod(ds, r1, "gpu-node-1", deletion=0.5), pod(ds, r2, "gpu-node-1", -3, "ready"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 3, 0, 3, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("maxSurge 10% of 3 rounds up to 1: on gpu-node-1 the new pod is available and the "
               "old one is being deleted. Counts judge the oldest pod (the old one).",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Progressing", "maxSurge": 1, "maxUnavailable": 0,
                   "counts": counts(3, 3, 3, 0, 3),
                   "nodes": {"gpu-node-1": {"revision": "new", "standing": "updated"}}}]})


@scenario
def not_ready_node_after_complete_rollout():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    nodes = gpu_nodes()
    nodes[0] = node("gpu-node-1", labels=GPU_LABELS, ready="False",
                    taints=[GPU_TAINT,
                            {"effect": "NoSchedule", "key": "node.kubernetes.io/not-ready"},
                            {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready"}])
    p1 = pod(ds, r2, "gpu-node-1", -60, "notready")
    pods = [p1, pod(ds, r2, "gpu-node-2", -59, "ready"), pod(ds, r2, "gpu-node-3", -58, "ready")]
    objs = [ds.obj(status_of(2, 2, 2, 2, 2, misscheduled=1, observed=2))] + pods + nodes + [r1.obj(), r2.obj()]
    return doc("A node went NotReady long after the rollout finished. It drops out of DESIRED; "
               "with no rollout work left, that is a node problem, not a stalled rollout.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Complete", "counts": counts(2, 2, 2, 2, 2, misscheduled=1),
                   "nodes": {"gpu-node-1": {"standing": "notDesired"}}}]})


@scenario
def brand_new_daemonset_cannot_pull():
    t = toolkit_template(BAD_IMAGE)
    ds = DaemonSet(TOOLKIT, GPU_NS, t, generation=1, created=-20)
    r1 = Revision(ds, t, 1, -20)
    pods = [pod(ds, r1, f"gpu-node-{i}", -20, "imagepull") for i in (1, 2, 3)]
    objs = [ds.obj(status_of(3, 3, 0, 3, 0, observed=1))] + pods + gpu_nodes() + [r1.obj()]
    return doc("A first install whose image does not exist: every node holds a broken new pod; "
               "there is no old revision to fall back to.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "ImagePull",
                   "stalledNodes": ["gpu-node-1", "gpu-node-2", "gpu-node-3"],
                   "oldRevision": None, "counts": counts(3, 3, 0, 3, 0)}]})


# ---------------------------------------------------------------- would a rollback help? (suspect)


@scenario
def node_broke_after_new_pod():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    nodes = gpu_nodes()
    nodes[0] = node("gpu-node-1", labels=GPU_LABELS, taints=[GPU_TAINT], ready="False",
                    allocatable={"nvidia.com/gpu": "1"})  # NotReady since -20
    pods = [pod(ds, r2, "gpu-node-1", -25, "notready"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + nodes + [r1.obj(), r2.obj()]
    return doc("The new toolkit pod was created on gpu-node-1 25 minutes ago and never became "
               "Ready; 5 minutes later the node itself turned NotReady (a runtime config the new "
               "toolkit wrote?). The node is the cause, the new revision the suspect.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NodeUnavailable",
                   "suspect": "NewRevision",
                   "suspectReason": "node gpu-node-1 stopped being Ready after the new pod was "
                                    "created there and before it was ever available: the new pod "
                                    "may have broken the node",
                   "nodes": {"gpu-node-1": {"suspect": "NewRevision"}}}]})


@scenario
def host_port_added():
    new_t = toolkit_template(NEW_IMAGE)
    new_t["spec"]["containers"][0]["ports"] = [{"containerPort": 9400, "hostPort": 9400,
                                                "name": "metrics", "protocol": "TCP"}]
    ds, r1, r2 = toolkit_rollout(new_template=new_t)
    msg = ("0/3 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, "
           "2 node(s) didn't match Pod's node affinity/selector.")
    pods = [pod(ds, r2, "gpu-node-1", -30, "unschedulable", message=msg),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 1, 2, observed=2))] + pods + gpu_nodes() + [r1.obj(), r2.obj()]
    return doc("The new revision adds hostPort 9400, which dcgm-exporter already holds: "
               "Unschedulable, and the new revision is the suspect (the old one had no host port).",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "Unschedulable",
                   "suspect": "NewRevision",
                   "suspectReason": "the new revision adds host port 9400 the old one lacked"}]})


def failed_create_event(ds, minutes_first, minutes_last, message, count):
    return {"apiVersion": "v1", "kind": "Event",
            "count": count, "eventTime": None, "firstTimestamp": at(minutes_first),
            "involvedObject": {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds.name,
                               "namespace": ds.namespace, "resourceVersion": "90210",
                               "uid": ds.uid},
            "lastTimestamp": at(minutes_last), "message": message,
            "metadata": {"creationTimestamp": at(minutes_first),
                         "name": f"{ds.name}.{abs(int(minutes_first * 1000)):x}",
                         "namespace": ds.namespace, "resourceVersion": "7777",
                         "uid": uid("ev", ds.name, str(minutes_first))},
            "reason": "FailedCreate", "reportingComponent": "daemonset-controller",
            "reportingInstance": "", "source": {"component": "daemonset-controller"},
            "type": "Warning"}


@scenario
def failed_create_quota():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    quota = ('Error creating: pods "nvidia-container-toolkit-7xkq2" is forbidden: exceeded quota: '
             'gpu-operator-quota, requested: requests.cpu=100m, used: requests.cpu=4, '
             'limited: requests.cpu=4')
    older = 'Error creating: pods "nvidia-container-toolkit-b4m9s" is forbidden: an older problem'
    pods = [old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    events = [failed_create_event(ds, -11, -1, quota, 9),
              failed_create_event(ds, -60 * 24 * 3, -60 * 24 * 3, older, 1)]
    objs = ([ds.obj(status_of(3, 2, 2, 0, 2, observed=2))] + pods + gpu_nodes() + events
            + [r1.obj(), r2.obj()])
    return doc("The controller deleted gpu-node-1's old pod, then a ResourceQuota refused the new "
               "one: no pod at all on the node, and only a Warning Event FailedCreate on the "
               "DaemonSet says why (the dump includes `events`). The Event from three days ago, "
               "before the new revision, does not count. Whether the old pod would fit the quota "
               "is not known: suspect Unknown.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "FailedCreate",
                   "reason": "FailedCreate", "suspect": "Unknown", "stalledNodes": ["gpu-node-1"],
                   "nodes": {"gpu-node-1": {"standing": "stuck", "cause": "FailedCreate",
                                            "message": quota, "pod": None}}}]})


# ---------------------------------------------------------------- a stall needs a rollout


@scenario
def outage_after_rollout_passed():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    r2.created = -90
    nodes = gpu_nodes()
    nodes[0] = node("gpu-node-1", labels=GPU_LABELS, taints=[GPU_TAINT], ready="False",
                    allocatable={"nvidia.com/gpu": "1"})  # NotReady since -20, no taint yet
    p1 = pod(ds, r2, "gpu-node-1", -80, "ready")
    # The node controller marked the pod not Ready when the node went down; the kubelet's last
    # report still says its container ran and was ready.
    for c in p1["status"]["conditions"]:
        if c["type"] in ("Ready", "ContainersReady"):
            c.update(status="False", lastTransitionTime=at(-19))
    pods = [p1, pod(ds, r2, "gpu-node-2", -70, "ready"), pod(ds, r2, "gpu-node-3", -60, "ready")]
    objs = [ds.obj(status_of(3, 3, 2, 3, 2, observed=2))] + pods + nodes + [r1.obj(), r2.obj()]
    return doc("The rollout finished an hour ago; 20 minutes ago gpu-node-1 stopped being Ready. "
               "Its new pod had been available long before: an outage after the rollout passed "
               "the node is not a rollout stall. Progressing (2 of 3 available), the message "
               "names the node, nothing Stalled.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Progressing", "reason": "NodesUnavailable",
                   "cause": None, "stalledNodes": [],
                   "message": "3 of 3 nodes updated; node gpu-node-1 is not Ready since after the "
                              "rollout passed it (an outage, not a rollout stall)",
                   "nodes": {"gpu-node-1": {"standing": "unavailable", "revision": "new",
                                            "cause": None}}}]})


@scenario
def blocked_at_start():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    nodes = gpu_nodes()
    nodes[0] = node("gpu-node-1", labels=GPU_LABELS, taints=[GPU_TAINT], ready="False",
                    allocatable={"nvidia.com/gpu": "1"})  # NotReady since -20, no taint yet
    down = old_pod(ds, r1, "gpu-node-1")
    for c in down["status"]["conditions"]:
        if c["type"] in ("Ready", "ContainersReady"):
            c.update(status="False", lastTransitionTime=at(-19))
    for c in down["status"]["containerStatuses"]:
        c["ready"] = False
    pods = [down, old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 0, 2, observed=2))] + pods + nodes + [r1.obj(), r2.obj()]
    return doc("gpu-node-1 went NotReady before the rollout of revision 2 began; its old pod is "
               "unavailable and uses up maxUnavailable 1, so no node can start updating. Blocked "
               "at start: Stalled on gpu-node-1 since the rollout began, NodeUnavailable, and "
               "a rollback would not help (suspect Node).",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NodeUnavailable",
                   "suspect": "Node", "stalledNodes": ["gpu-node-1"], "stalledSince": at(-12),
                   "nodes": {"gpu-node-1": {"standing": "stuck", "revision": "old"},
                             "gpu-node-2": {"standing": "waiting"}}}]})


@scenario
def stalled_node_deleted():
    ds, r1, r2 = toolkit_rollout()
    nodes = gpu_nodes()[1:]
    pods = [pod(ds, r2, "gpu-node-1", -12, "imagepull"),
            old_pod(ds, r1, "gpu-node-2"), old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(2, 2, 2, 0, 2, observed=2))] + pods + nodes + [r1.obj(), r2.obj()]
    return doc("The stuck node gpu-node-1 was deleted; its broken pod lingers until pod garbage "
               "collection. Upstream counts only existing nodes, so that pod holds nothing back: "
               "the rollout goes on to the next node (Progressing), the evidence is Partial.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Progressing", "evidence": "Partial",
                   "stalledNodes": [],
                   "nodes": {"gpu-node-1": {"standing": "unknown", "cause": None}}}]})


# ---------------------------------------------------------------- evidence: what the input lacks


@scenario
def daemonset_only_status_incomplete():
    ds, r1, r2 = toolkit_rollout()
    objs = [ds.obj(status_of(2, 2, 1, 1, 1, observed=2))]
    return doc("A plain `kubectl get ds -o json`: no pods, no nodes. Nothing can be recounted, so the "
               "verdict follows .status, which says 1 of 2 available — never Complete, and the "
               "message says what the input lacks.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Progressing", "reason": "StatusIncomplete",
                   "evidence": "StatusOnly", "missing": ["the input holds no Node objects"],
                   "message": ".status reports 1 of 2 desired nodes updated, 1 available; the "
                              "input holds no Node objects, so stallwatch cannot recount which "
                              "node holds the rollout"}]})


@scenario
def daemonset_only_status_complete():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    objs = [ds.obj(status_of(3, 3, 3, 3, 3, observed=2))]
    return doc("Only the DaemonSet, whose .status says every node is updated and available: "
               "Complete on .status's word, with evidence StatusOnly.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Complete", "reason": "RolloutComplete",
                   "evidence": "StatusOnly"}]})


@scenario
def pods_without_nodes():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    r2.created = -70
    pods = [pod(ds, r2, "gpu-node-1", -65, "ready"), pod(ds, r2, "gpu-node-2", -60, "notready"),
            old_pod(ds, r1, "gpu-node-3")]
    objs = [ds.obj(status_of(3, 3, 2, 2, 2, observed=2))] + pods + [r1.obj(), r2.obj()]
    return doc("What a user without node-list rights dumps: the DaemonSet and its pods, no Node. "
               "The new pod on gpu-node-2 has not been Ready for an hour and .status says a node "
               "is still to be updated: the pod holds the rollout back (never 'not desired'), "
               "Stalled, with evidence StatusOnly.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NotReady", "suspect": "Unknown",
                   "stalledNodes": ["gpu-node-2"], "evidence": "StatusOnly",
                   "nodes": {"gpu-node-1": {"standing": "unknown", "revision": "new"},
                             "gpu-node-2": {"standing": "stuck", "cause": "NotReady"},
                             "gpu-node-3": {"standing": "unknown", "revision": "old"}}}]})


@scenario
def node_without_kind():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    r2.created = -70
    nodes = gpu_nodes()
    del nodes[1]["kind"]
    pods = [pod(ds, r2, "gpu-node-1", -65, "ready"), pod(ds, r2, "gpu-node-2", -60, "notready"),
            pod(ds, r2, "gpu-node-3", -55, "ready")]
    objs = [ds.obj(status_of(3, 3, 2, 3, 2, observed=2))] + pods + nodes + [r1.obj(), r2.obj()]
    return doc("gpu-node-2 is in the dump without `kind`, so it cannot be read. Its new pod has not "
               "been Ready for an hour: the node is unknown, not 'not desired'; the verdict is "
               "Partial and Stalled (never Complete), and the unreadable object is an input "
               "error (exit 2).",
               0, objs, {"exitCode": 2, "stderr": "object gpu-node-2 has no kind",
                         "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "NotReady",
                   "stalledNodes": ["gpu-node-2"], "evidence": "Partial",
                   "missing": ["node gpu-node-2 could not be read"],
                   "nodes": {"gpu-node-2": {"standing": "stuck", "cause": "NotReady"}}}]})


@scenario
def unparsable_template_generation():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    pods = [pod(ds, r2, f"gpu-node-{i}", -12 + i, "ready") for i in (1, 2, 3)]
    exporter_t = template({"app": "dcgm-exporter"}, [container("exporter", "nvcr.io/nvidia/dcgm-exporter:3.3")])
    bad = DaemonSet("dcgm-exporter", GPU_NS, exporter_t, generation=2)
    b1 = Revision(bad, exporter_t, 2, -30)
    bobj = bad.obj(status_of(3, 3, 3, 3, 3, observed=2))
    bobj["metadata"]["annotations"]["deprecated.daemonset.template.generation"] = "abc"
    bpods = [pod(bad, b1, f"gpu-node-{i}", -30, "ready") for i in (1, 2, 3)]
    objs = ([ds.obj(status_of(3, 3, 3, 3, 3, observed=2)), bobj] + pods + bpods + gpu_nodes()
            + [r1.obj(), r2.obj(), b1.obj()])
    return doc("dcgm-exporter's deprecated.daemonset.template.generation reads \"abc\". Matching pods "
               "against it would make every pod old, so the DaemonSet is invalid, named on stderr "
               "(exit 2); the other DaemonSet is still judged.",
               0, objs, {"exitCode": 2,
                         "stderr": "DaemonSet gpu-operator/dcgm-exporter: metadata.annotations"
                                   "[deprecated.daemonset.template.generation]: \"abc\" is not an "
                                   "integer",
                         "unsupported": [],
                         "daemonSets": [{"name": TOOLKIT, "phase": "Complete"}]})


# ---------------------------------------------------------------- kinds stallwatch does not judge


def as_kruise(api, ds_obj, others, strategy, status_extra=None):
    """Makes an apps/v1 DaemonSet an OpenKruise Advanced DaemonSet of `api`, as kruise's controller
    leaves it: its owner references on pods and revisions, no template-generation annotation (kruise
    adds the pod label only with it), the new revision in .status."""
    ds_obj["apiVersion"] = api
    ds_obj["metadata"].pop("annotations", None)
    ds_obj["spec"]["updateStrategy"] = strategy
    ds_obj["status"].update(status_extra or {})
    for o in others:
        for ref in o["metadata"].get("ownerReferences", []):
            ref["apiVersion"] = api
        o["metadata"]["labels"].pop("pod-template-generation", None)
    return ds_obj


@scenario
def kruise_partition_stalls():
    ds, r1, r2 = toolkit_rollout()
    pods = [old_pod(ds, r1, "gpu-node-1"), old_pod(ds, r1, "gpu-node-2"),
            pod(ds, r2, "gpu-node-3", -12, "imagepull", labels_mode="hash")]
    revisions = [r1.obj(), r2.obj()]
    kobj = as_kruise("apps.kruise.io/v1beta1", ds.obj(status_of(3, 3, 2, 1, 2, observed=2)),
                     pods + revisions,
                     {"type": "RollingUpdate", "rollingUpdate": {
                         "rollingUpdateType": "Standard", "maxUnavailable": 1, "maxSurge": 0,
                         "partition": 1}},
                     {"updateRevision": r2.hash})
    objs = [kobj] + pods + gpu_nodes() + revisions
    return doc("An OpenKruise Advanced DaemonSet (apps.kruise.io/v1beta1) with partition 1 rolls a "
               "tag that cannot be pulled. The partition lets kruise update the two highest-named "
               "nodes; it took gpu-node-3, whose new pod waits in ImagePullBackOff; the partition "
               "holds gpu-node-1 on the old revision on purpose; gpu-node-2 waits for the budget. The "
               "stall is among the nodes the rollout may update only.",
               0, objs, {"exitCode": 1, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Stalled", "cause": "ImagePull",
                   "stalledNodes": ["gpu-node-3"], "stalledSince": at(-12),
                   "newRevision": dict(rev(r2), images=[BAD_IMAGE]),
                   "nodes": {
                       "gpu-node-1": {"revision": "old", "standing": "held", "cause": None},
                       "gpu-node-2": {"revision": "old", "standing": "waiting"},
                       "gpu-node-3": {"standing": "stuck", "cause": "ImagePull"}}}]})


@scenario
def kruise_paused():
    ds, r1, r2 = toolkit_rollout()
    pods = [old_pod(ds, r1, "gpu-node-1"), old_pod(ds, r1, "gpu-node-2"),
            pod(ds, r2, "gpu-node-3", -12, "imagepull", labels_mode="hash")]
    revisions = [r1.obj(), r2.obj()]
    kobj = as_kruise("apps.kruise.io/v1alpha1", ds.obj(status_of(3, 3, 2, 1, 2, observed=2)),
                     pods + revisions,
                     {"type": "RollingUpdate", "rollingUpdate": {
                         "rollingUpdateType": "Surging", "maxUnavailable": 1, "partition": 1,
                         "paused": True}},
                     {"daemonSetHash": r2.hash})
    objs = [kobj] + pods + gpu_nodes() + revisions
    return doc("The same rollout (apps.kruise.io/v1alpha1, its deprecated rolling type Surging, "
               "which kruise runs as Standard) paused by its owner: Paused, never Stalled, though "
               "gpu-node-3 would hold it back; the new revision is .status.daemonSetHash.",
               0, objs, {"exitCode": 0, "daemonSets": [{
                   "name": TOOLKIT, "phase": "Paused", "reason": "Paused", "cause": None,
                   "stalledNodes": [],
                   "newRevision": dict(rev(r2), images=[BAD_IMAGE]),
                   "nodes": {"gpu-node-1": {"standing": "held"},
                             "gpu-node-3": {"standing": "stuck", "cause": "ImagePull"}}}]})


@scenario
def kruise_other_version_unsupported():
    ds, r1, r2 = toolkit_rollout(NEW_IMAGE)
    pods = [pod(ds, r2, f"gpu-node-{i}", -12 + i, "ready") for i in (1, 2, 3)]
    kruise_t = template({"app": "node-agent"}, [container("agent", "example.com/agent:v2")])
    kruise = DaemonSet("node-agent", "kube-system", kruise_t, generation=2)
    kobj = kruise.obj(status_of(3, 3, 1, 1, 1, observed=2))
    kobj["apiVersion"] = "apps.kruise.io/v1beta2"
    objs = ([ds.obj(status_of(3, 3, 3, 3, 3, observed=2)), kobj] + pods + gpu_nodes()
            + [r1.obj(), r2.obj()])
    return doc("An OpenKruise DaemonSet of an API version stallwatch does not know "
               "(apps.kruise.io/v1beta2) beside an apps/v1 one: listed as unsupported, not judged; "
               "the apps/v1 DaemonSet is Complete.",
               0, objs, {"exitCode": 0,
                         "unsupported": [{"apiVersion": "apps.kruise.io/v1beta2",
                                          "kind": "DaemonSet", "namespace": "kube-system",
                                          "name": "node-agent"}],
                         "daemonSets": [{"name": TOOLKIT, "phase": "Complete"}]})


def main():
    # --out DIR writes elsewhere (ScenarioFixturesIT compares that with the committed files).
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else OUT
    os.makedirs(out, exist_ok=True)

    class Dumper(yaml.SafeDumper):
        pass

    Dumper.ignore_aliases = lambda *a: True
    for name, fn in SCENARIOS.items():
        data = fn()
        path = os.path.join(out, f"{name}.yaml")
        with open(path, "w") as f:
            f.write(f"# Scenario {name} — generated by src/test/fixture-generator/scenarios.py\n")
            yaml.dump(data, f, Dumper=Dumper, sort_keys=False, default_flow_style=False, width=100)
    print(f"wrote {len(SCENARIOS)} scenarios to {os.path.normpath(out)}")


if __name__ == "__main__":
    main()
