"""Times the statements of one suite file side by side in one psql session.

A suite is SQL with markers:
  -- @setup              statements run once, untimed, before measuring
  -- @name NAME [vs B,C] one timed statement; its ratio to B and C is printed
Runs are interleaved (every statement once, then again) so drift on a busy
machine affects all statements alike. Prints the median of the runs.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys


def parse_suite(path):
    setup, entries, current = [], [], None
    for line in open(path):
        marker = re.match(r"--\s*@(setup|name)\s*(\S*)\s*(?:vs\s+(\S+))?", line)
        if marker:
            kind, name, bases = marker.groups()
            if kind == "setup":
                current = setup
            else:
                entry = {"name": name, "bases": bases.split(",") if bases else [], "sql": []}
                entries.append(entry)
                current = entry["sql"]
            continue
        if current is not None and line.strip() and not line.lstrip().startswith("--"):
            current.append(line.rstrip("\n"))
    for entry in entries:
        entry["sql"] = "\n".join(entry["sql"])
    return "\n".join(setup), entries


def time_entries(setup, entries, runs):
    script = ["\\set ON_ERROR_STOP 1", setup, "\\o /dev/null", "\\timing on"]
    for _ in range(runs):
        for entry in entries:
            script.append("\\echo @@ " + entry["name"])
            script.append(entry["sql"])
    proc = subprocess.run(["psql", "-X", "-q"], input="\n".join(script), text=True,
                          capture_output=True, env=os.environ)
    if proc.returncode != 0:
        sys.exit("suite failed:\n" + proc.stderr)
    # An entry of several statements (a SET before its query) takes the sum
    # of their times.
    times, current = {}, None
    for line in proc.stdout.splitlines():
        if line.startswith("@@ "):
            current = line[3:]
            times.setdefault(current, []).append(0.0)
        m = re.match(r"Time: ([\d.]+) ms", line)
        if m and current:
            times[current][-1] += float(m.group(1))
    return {name: statistics.median(ts) for name, ts in times.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("suite")
    args = parser.parse_args()
    setup, entries = parse_suite(args.suite)
    medians = time_entries(setup, entries, args.runs)
    print(f"\n## {os.path.basename(args.suite)}")
    print(f"{'statement':44} {'median ms':>10}  ratios")
    for entry in entries:
        ms = medians[entry["name"]]
        ratios = ", ".join(f"{ms / medians[b]:.2f}x {b}" for b in entry["bases"])
        print(f"{entry['name']:44} {ms:10.1f}  {ratios}")


if __name__ == "__main__":
    main()
