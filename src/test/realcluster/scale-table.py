#!/usr/bin/env python3
"""The scale runs' figures as Markdown tables, one column per run (docs/benchmarks.md).

    scale-table.py RESULTS_DIR

Reads RESULTS_DIR/scale-*.json (written by dev.stallwatch.realcluster.ScaleRun) and prints two
tables: what stallwatch costs at each size (the sizing table) and the run's other figures
(detection, reconciles, API requests, kube-state-metrics). A figure a run did not measure (an
older run's JSON lacks it) is printed as "—".
"""
import sys

from scale_results import load

MIB = 1024 * 1024


def get(run, *path):
    value = run
    for key in path:
        if not isinstance(value, dict) or value.get(key) is None:
            return None
        value = value[key]
    return value


def fmt(value, pattern):
    if value is None or (isinstance(value, float) and value != value):
        return "—"
    return pattern.format(value)


def mib(run, *path):
    value = get(run, *path)
    return fmt(None if value is None else value / MIB, "{:,.1f} MiB")


def per_second(run):
    rollout = get(run, "rollout")
    if not rollout or not rollout.get("seconds"):
        return "—"
    return f"{rollout['cpuSeconds'] / rollout['seconds']:.2f}"


def jvm(run):
    flags = get(run, "operator", "jvm")
    limit = get(run, "operator", "memoryLimitBytes")
    if not flags:
        return "`-Xmx1g`"
    shown = " ".join(f"`{f}`" for f in flags if not f.startswith("-Xlog"))
    return shown + (f", {limit / MIB:.0f}Mi cgroup" if limit else "")


def rollout_label(run):
    k = get(run, "rollout", "daemonSets") or 1
    return f"{k} at once" if k > 1 else "1"


def detection(run, which):
    p = get(run, "detection", which)
    if not p:
        return "—"
    return f"{p['p50']:.3f} / **{p['p99']:.3f}** / {p['max']:.3f} s"


def verbs(run, *path):
    counts = get(run, *path)
    if counts is None:
        return "—"
    if not counts:
        return "none"
    return ", ".join(f"{n:,} {v}" for v, n in sorted(counts.items()))


ROWS_SIZING = [
    ("DaemonSet pods (+ other pods)",
     lambda r: (f"{r['nodes'] * r['daemonSets'] + get(r, 'detection', 'injected'):,}"
                f" (+ {r['ordinaryPods']:,})")),
    ("operator's JVM", jvm),
    ("**heap after full GC** (synced)",
     lambda r: "**" + mib(r, "operator", "heapAfterGcBytes") + "**"),
    ("RSS after sync", lambda r: mib(r, "operator", "rssBytes")),
    ("**peak RSS through the initial list** (VmHWM; memory cgroup's peak)",
     lambda r: ("**" + mib(r, "operator", "peakRssBytes") + "**"
                + ("; " + mib(r, "operator", "cgroupPeakBytes")
                   if get(r, "operator", "cgroupPeakBytes") else ""))),
    ("heap through the list: peak before GC / after GC (GC log)",
     lambda r: (mib(r, "operator", "heapPeakBeforeGcBytes") + " / "
                + mib(r, "operator", "heapPeakAfterGcBytes"))),
    ("time to sync (`/readyz`)", lambda r: fmt(get(r, "operator", "syncSeconds"), "{:.1f} s")),
    ("CPU to sync (process start → synced)",
     lambda r: fmt(get(r, "operator", "cpuSecondsAtSync"), "{:.1f} CPU s")),
    ("reconciles at steady state, quiet / heartbeat half",
     lambda r: f"{get(r, 'steady', 'quietReconciles'):.0f} / {get(r, 'steady', 'reconciles'):.0f}"),
    ("API requests at steady state", lambda r: verbs(r, "steady", "requestsByVerb")),
    ("DaemonSets rolled out", rollout_label),
    ("rollout: time, reconciles",
     lambda r: f"{get(r, 'rollout', 'seconds'):,.1f} s, {get(r, 'rollout', 'reconciles'):,.0f}"),
    ("CPU during the rollout (cores on average)",
     lambda r: f"{get(r, 'rollout', 'cpuSeconds'):.1f} CPU s ({per_second(r)})"),
    ("kube-state-metrics RSS once it serves every pod; its peak",
     lambda r: (mib(r, "kubeStateMetrics", "rssBytes") + "; "
                + mib(r, "kubeStateMetrics", "peakRssBytes"))),
    ("relist (etcd compacted, kube-apiserver restarted): peak RSS; cgroup; heap after GC",
     lambda r: (mib(r, "relist", "peakRssBytes") + "; " + mib(r, "relist", "cgroupPeakBytes")
                + "; " + mib(r, "relist", "heapAfterGcBytes"))),
]

ROWS_DETAIL = [
    ("cluster up (nodes Ready)", lambda r: fmt(get(r, "clusterStartSeconds"), "{:.1f} s")),
    ("workload created and available", lambda r: fmt(get(r, "workloadReadySeconds"), "{:.1f} s")),
    ("NodeNotReady events over the run", lambda r: fmt(get(r, "nodeNotReadyEvents"), "{}")),
    ("reconcile wall p50 / p99 (rollout)",
     lambda r: (fmt(get(r, "rollout", "reconcileP50Millis"), "{:.1f}") + " / **"
                + fmt(get(r, "rollout", "reconcileP99Millis"), "{:,.1f}") + "** ms")),
    ("reconcile thread CPU p50 / p99 (rollout)",
     lambda r: (fmt(get(r, "rollout", "reconcileCpuP50Millis"), "{:.1f}") + " / **"
                + fmt(get(r, "rollout", "reconcileCpuP99Millis"), "{:.1f}") + "** ms")),
    ("reconciles' wall time: on a CPU / waiting for one (reconciler threads)",
     lambda r: (fmt(get(r, "rollout", "reconcileWallSeconds"), "{:,.1f} s") + ": "
                + fmt(get(r, "rollout", "reconcilerOnCpuSeconds"), "{:,.1f} s") + " / "
                + fmt(get(r, "rollout", "reconcilerWaitingForCpuSeconds"), "{:,.1f} s"))),
    ("work queue: deepest / at the end",
     lambda r: (fmt(get(r, "rollout", "queueMax"), "{:.0f}") + " / "
                + fmt(get(r, "rollout", "queueAtEnd"), "{:.0f}"))),
    ("API requests during the rollout", lambda r: verbs(r, "rollout", "requestsByVerb")),
    ("stall-after", lambda r: fmt(get(r, "detection", "stallAfterSeconds"), "{:.0f} s")),
    ("injected stalls detected",
     lambda r: f"{get(r, 'detection', 'detected')} / {get(r, 'detection', 'injected')}"),
    ("crossing → RolloutStall, p50 / p99 / max", lambda r: detection(r, "rolloutStall")),
    ("crossing → `stallwatch_rollout_stalled`, p50 / p99 / max", lambda r: detection(r, "metric")),
    ("RolloutStalls of revisions not broken",
     lambda r: str(len(get(r, "detection", "otherStalls") or []))),
    ("second operator at the chart's heap: synced in, heap after GC, peak RSS",
     lambda r: ("did not sync: " + str(get(r, "atChartHeap", "error"))
                if get(r, "atChartHeap") and not get(r, "atChartHeap", "synced")
                else fmt(get(r, "atChartHeap", "syncSeconds"), "{:.1f} s") + ", "
                + mib(r, "atChartHeap", "heapAfterGcBytes") + ", "
                + mib(r, "atChartHeap", "peakRssBytes"))),
    ("kube-state-metrics: sync, series, one scrape",
     lambda r: (fmt(get(r, "kubeStateMetrics", "syncSeconds"), "{:.1f} s") + ", "
                + fmt(get(r, "kubeStateMetrics", "series"), "{:,}") + ", "
                + fmt(get(r, "kubeStateMetrics", "scrapeSeconds"), "{:.2f} s"))),
    ("relist: listed again in, pod pages (per minute), operator alive",
     lambda r: (fmt(get(r, "relist", "seconds"), "{:.1f} s")
                + ("" if get(r, "relist", "relisted") is not False else " (not done)") + ", "
                + fmt(get(r, "relist", "podListRequests"), "{:,}")
                + ("" if get(r, "relist", "podListRequestsPerMinute") is None
                   else f" ({get(r, 'relist', 'podListRequestsPerMinute')})") + ", "
                + fmt(get(r, "relist", "alive"), "{}"))),
    ("run started (UTC)", lambda r: r["startedAt"][:16].replace("T", " ")),
]


def table(runs, rows):
    head = "| | " + " | ".join(f"**{r['nodes']:,} × {r['daemonSets']}**" for r in runs) + " |"
    lines = [head, "|---" * (len(runs) + 1) + "|"]
    for name, cell in rows:
        cells = []
        for r in runs:
            try:
                cells.append(cell(r))
            except (KeyError, TypeError):
                cells.append("—")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = load(sys.argv[1], "scale-table")
    print(table(runs, ROWS_SIZING))
    print()
    print(table(runs, ROWS_DETAIL))


if __name__ == "__main__":
    main()
