#!/usr/bin/env bash
# The examples that need a Citus cluster (the ```sql citus blocks of README.md
# and docs/*.md, which doc_examples.sh leaves to this test) run on one, in
# order, in one session per block: every statement must succeed, a statement
# whose line ends in `-- VALUE` must return VALUE, and one ending in
# `-- ERROR SQLSTATE` must fail with that SQLSTATE. Comment lines and blank
# lines are headings.
set -euo pipefail
: "${SKETCH_ROOT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
source "$SKETCH_ROOT/test/scripts/lib/citus.sh"
citus_start

python3 - "$SKETCH_ROOT"/README.md "$SKETCH_ROOT"/docs/*.md <<'PY'
import re, subprocess, sys

def blocks(path):
    found, block = [], None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if block is None and line.strip() == "```sql citus":
            block = []
            found.append(block)
        elif block is not None and line.strip().startswith("```"):
            block = None
        elif block is not None:
            block.append(line)
    return found

def statements(lines):
    """(code, expected) pairs: a statement ends at a line whose code ends in ';'."""
    out, code = [], []
    for line in lines:
        if not code and (not line.strip() or line.strip().startswith("--")):
            continue
        m = re.match(r"^(.*?;)\s*(?:--\s*(.*))?$", line)
        if m and "$$" not in line.split(";")[-1]:
            code.append(m.group(1))
            out.append(("\n".join(code), (m.group(2) or "").strip()))
            code = []
        else:
            code.append(line)
    if code:
        sys.exit(f"a statement does not end with ';': {code}")
    return out

checked = 0
for path in sys.argv[1:]:
    for block in blocks(path):
        script = ["\\set ON_ERROR_STOP 0", "\\set VERBOSITY verbose"]
        stmts = statements(block)
        for i, (code, _) in enumerate(stmts):
            script += [f"\\echo '@@ {i}'", code]
        run = subprocess.run(["psql", "-X", "-q", "-At"], input="\n".join(script) + "\n",
                             capture_output=True, text=True)
        results, errors, current = {}, {}, None
        for line in run.stdout.split("\n"):
            if line.startswith("@@ "):
                current = int(line[3:])
                results[current] = []
            elif current is not None:
                results[current].append(line)
        # errors go to stderr in order; tie them to statements by their position
        err_lines = [l for l in run.stderr.split("\n") if l.startswith("ERROR:") or ": ERROR:" in l]
        for i, (code, expected) in enumerate(stmts):
            got = "\n".join(r for r in results.get(i, []) if r != "")
            if expected.startswith("ERROR "):
                state = expected.split()[1]
                if not err_lines or state not in err_lines[0]:
                    sys.exit(f"{path}: expected {expected} from {code!r}, got {got!r}, errors {err_lines[:1]}")
                err_lines.pop(0)
            elif expected:
                if got != expected:
                    sys.exit(f"{path}: {code!r} gave {got!r}, the document says {expected}")
            checked += 1
        if err_lines:
            sys.exit(f"{path}: unexpected errors: {err_lines}")
print(f"citus doc examples: {checked} statements checked")
if checked == 0:
    sys.exit("no ```sql citus block found")
PY
