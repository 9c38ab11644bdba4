#!/usr/bin/env python3
"""Plot of the soak (SoakRealClusterIT's long run): the operator's heap after GC, RSS, threads and
open files against the minute of the run.

    soak-plot.py SAMPLES PNG

SAMPLES is a Markdown file holding the run's sample table (target/soak-samples.md, or
docs/reliability.md, where the long run writes it between its soak markers); PNG is written.
"""
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HEADER = "| minute | heap after GC (MiB) | RSS (MiB) | threads | open files | stalls so far |"


def samples(path):
    rows = []
    seen = False
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line == HEADER:
                seen = True
                continue
            if seen and re.match(r"^\|\s*\d", line):
                rows.append([int(c) for c in line.strip("|").split("|")])
            elif seen and rows and not line.startswith("|"):
                break
    if not rows:
        sys.exit(f"soak-plot: no sample table ({HEADER}) in {path}")
    return rows


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = samples(sys.argv[1])
    minute = [r[0] for r in rows]
    fig, (mem, counts) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    mem.plot(minute, [r[1] for r in rows], marker="o", label="heap after full GC")
    mem.plot(minute, [r[2] for r in rows], marker="s", label="RSS")
    mem.set_ylabel("MiB")
    mem.set_ylim(bottom=0)
    mem.legend(loc="center right")
    mem.set_title(f"stallwatch operator over a {minute[-1]}-minute soak")
    counts.plot(minute, [r[3] for r in rows], marker="o", label="threads")
    counts.plot(minute, [r[4] for r in rows], marker="s", label="open files")
    counts.set_ylabel("count")
    counts.set_ylim(bottom=0)
    counts.set_xlabel("minute of the run")
    stalls = counts.twinx()
    stalls.plot(minute, [r[5] for r in rows], color="grey", linestyle="--", label="stalls so far")
    stalls.set_ylabel("stalls recorded so far")
    stalls.set_ylim(bottom=0)
    lines = counts.get_legend_handles_labels()
    more = stalls.get_legend_handles_labels()
    counts.legend(lines[0] + more[0], lines[1] + more[1], loc="upper left")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)
    print(f"soak-plot: {len(rows)} samples → {sys.argv[2]}")


if __name__ == "__main__":
    main()
