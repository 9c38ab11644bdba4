"""The scale runs' results (docs/scale/scale-*.json, written by dev.stallwatch.realcluster.ScaleRun),
shared by scale-plot.py and scale-table.py."""
import glob
import json
import os
import sys


def load(results, script):
    """Every scale-*.json in RESULTS, by nodes then DaemonSets; exits naming SCRIPT if none."""
    runs = []
    for path in glob.glob(os.path.join(results, "scale-*.json")):
        with open(path) as f:
            runs.append(json.load(f))
    if not runs:
        sys.exit(f"{script}: no scale-*.json in {results}")
    return sorted(runs, key=lambda r: (r["nodes"], r["daemonSets"]))
