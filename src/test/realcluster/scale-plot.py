#!/usr/bin/env python3
"""Plots of the scale run (scale.sh): memory vs nodes and the detection latency distribution.

    scale-plot.py RESULTS_DIR PNG_DIR

Reads RESULTS_DIR/scale-*.json (written by dev.stallwatch.realcluster.ScaleRun) and writes
PNG_DIR/scale-memory.png and PNG_DIR/scale-detection.png. The lines join the runs with 10
DaemonSets; a run with another number is drawn as separate points, labelled. Up to 5,000 nodes a
size that was not run is drawn as a straight-line extrapolation, dashed and labelled as such.
"""
import math
import os
import sys

from scale_results import load

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MIB = 1024 * 1024
TARGET_NODES = 5000


def fit(xs, ys):
    """Least-squares line through the points; (slope, intercept)."""
    n = len(xs)
    if n == 1:
        return ys[0] / xs[0], 0.0
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return slope, my - slope * mx


def series(ax, xs, ys, label, style):
    colour, line = style[:2], style[2:] or "-"
    ax.plot(xs, ys, color=colour, linestyle=line, marker="o", label=label)
    if xs and xs[-1] < TARGET_NODES:
        slope, icpt = fit(xs, ys)
        ax.plot([xs[-1], TARGET_NODES], [ys[-1], slope * TARGET_NODES + icpt], color=colour,
                linestyle="--", alpha=0.5)
        ax.annotate(f"extrapolated {slope * TARGET_NODES + icpt:.0f}",
                    (TARGET_NODES, slope * TARGET_NODES + icpt), fontsize=8,
                    textcoords="offset points", xytext=(-110, 6))


def memory(all_runs, out):
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    ds = 10 if any(r["daemonSets"] == 10 for r in all_runs) else all_runs[0]["daemonSets"]
    runs = [r for r in all_runs if r["daemonSets"] == ds]
    xs = [r["nodes"] for r in runs]
    series(ax, xs, [r["operator"]["heapAfterGcBytes"] / MIB for r in runs],
           "stallwatch heap after full GC", "C0")
    series(ax, xs, [r["operator"]["rssBytes"] / MIB for r in runs], "stallwatch RSS", "C0:")
    ksm = [r for r in runs if r.get("kubeStateMetrics")]
    if ksm:
        series(ax, [r["nodes"] for r in ksm],
               [r["kubeStateMetrics"]["rssBytes"] / MIB for r in ksm],
               "kube-state-metrics RSS", "C3")
    for r in all_runs:
        if r["daemonSets"] == ds:
            continue
        label = f"{r['nodes']} × {r['daemonSets']}"
        ax.scatter([r["nodes"]], [r["operator"]["heapAfterGcBytes"] / MIB], color="C0", marker="x")
        ax.annotate(f"heap, {label}", (r["nodes"], r["operator"]["heapAfterGcBytes"] / MIB),
                    fontsize=7, textcoords="offset points", xytext=(-60, -12))
        k = r.get("kubeStateMetrics")
        if k:
            ax.scatter([r["nodes"]], [k["rssBytes"] / MIB], color="C3", marker="x")
            ax.annotate(f"KSM, {label}", (r["nodes"], k["rssBytes"] / MIB), fontsize=7,
                        textcoords="offset points", xytext=(-60, -12))
    ax.axhline(256, color="grey", linewidth=0.8)
    ax.annotate("goal: heap ≤ 256 MiB", (xs[0], 256), fontsize=8, textcoords="offset points",
                xytext=(0, 4))
    ax.set_title(f"Memory vs cluster size ({ds} DaemonSets on every node; dashed: extrapolated)",
                 fontsize=10)
    ax.set_xlabel("kwok nodes")
    ax.set_ylabel("MiB")
    ax.set_xlim(0, TARGET_NODES * 1.05)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scale-memory.png"), dpi=110)


def detection(runs, out):
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.5),
                                      gridspec_kw={"width_ratios": [3, 2]})
    for i, r in enumerate(runs):
        d = r["detection"]
        for j, (key, label, colour) in enumerate(
                [("toRolloutStallSeconds", "RolloutStall created", "C0"),
                 ("toMetricSeconds", "stallwatch_rollout_stalled on /metrics", "C2")]):
            values = d[key]
            x = [i * 3 + j + (k % 7 - 3) * 0.06 for k in range(len(values))]
            left.scatter(x, values, s=14, color=colour, alpha=0.7,
                         label=label if i == 0 else None)
    left.set_xticks([i * 3 + 0.5 for i in range(len(runs))])
    left.set_xticklabels([f"{r['nodes']} × {r['daemonSets']}" for r in runs], fontsize=8)
    left.axhline(1.0, color="grey", linewidth=0.8)
    left.annotate("goal: p99 ≤ 1 s", (0, 1.0), fontsize=8, textcoords="offset points",
                  xytext=(0, 4))
    left.set_ylabel("seconds after the node crossed stall-after")
    left.set_title("stallwatch: each injected stall")
    left.set_ylim(bottom=min(0, *[v for r in runs for v in r["detection"]["toRolloutStallSeconds"]]))
    left.grid(alpha=0.3)
    left.legend(fontsize=8, loc="upper right")

    labels, values, colours = [], [], []
    for r in runs:
        p99 = r["detection"]["metric"]["p99"]
        labels.append(f"stallwatch\n{r['nodes']}×{r['daemonSets']}")
        values.append(p99)
        colours.append("C2")
        k = r.get("kubeStateMetrics")
        if k and k["alertAfterCrossingSeconds"]:
            labels.append(f"KSM alert\n{r['nodes']}×{r['daemonSets']}")
            values.append(max(k["alertAfterCrossingSeconds"]))
            colours.append("C3")
    right.bar(range(len(values)), values, color=colours)
    right.set_yscale("log")
    right.set_xticks(range(len(values)))
    right.set_xticklabels(labels, fontsize=7)
    for i, v in enumerate(values):
        right.annotate(f"{v:.2f} s" if v < 60 else f"{v / 60:.1f} min", (i, v), ha="center",
                       fontsize=7, textcoords="offset points", xytext=(0, 3))
    right.set_ylabel("seconds (log)")
    right.set_title("p99 to metric vs\nKubeDaemonSetRolloutStuck", fontsize=10)
    fig.suptitle("Detection latency of 20 injected stalls, from the instant each crossed stall-after")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scale-detection.png"), dpi=110)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    runs = load(sys.argv[1], "scale-plot")
    memory(runs, sys.argv[2])
    detection(runs, sys.argv[2])
    print(f"scale-plot: {len(runs)} sizes → {sys.argv[2]}/scale-memory.png, scale-detection.png")


if __name__ == "__main__":
    main()
