#!/usr/bin/env bash
# README.md and every docs/*.md stay true: every statement of their ```sql
# blocks runs, and every result their comments state is what the statement
# returns. Nothing is skipped: a statement that cannot run on its own, or a
# comment that states no checkable result, is a failure.
#
# Blocks fenced ```sql citus need a Citus cluster: test/scripts/citus_docs.sh
# runs them (with the same `-- value` and `-- ERROR SQLSTATE` comments).
#
# Each file runs in a fresh database of its own (with the extension; its
# shared objects, the roles it creates and its files under /tmp are removed
# before and after it). Its blocks run in order (the tables and shared objects
# of one block are used by the next), each block in a session of its own, as a
# reader would paste it into psql; a block stops at its first error that no
# comment expects.
#
# Results. A statement's result is stated by the comments on its own lines
# (`SELECT ...;  -- 14377640 (14.4 bits per item)`; in a statement of several
# lines, each line's comment names the columns of that line), or, when it has
# none, by the comment lines right below it up to a blank line or the block's
# end (psql's output, such as a jsonb value or a list of rows). Comment lines
# right above a statement are a heading, not a result (unless they state a
# result or read as rows, `a|b`, and follow a statement with no blank line: a
# failure, as output that lost its blank line would be ignored; so are output
# lines below a statement whose own lines carry comments). A comment states a
# result when, after dropping an explanation (`: ...` or a trailing `(...)`),
# it is a JSON value or a comma-separated list of values, each one of:
#   true / false / t / f / NULL     a boolean or NULL
#   on / off                        the exact text (a setting SHOW gives)
#   42, 0.5, -1e-4                  a number: the same text or the same value
#   0.00957...                      a value ending in `...`: a prefix of the text
#   about 500                       within 5% (see ABOUT below)
#   \xb5e9..., fast_multiblock32<7>, bloom_contains
#                                   a token without spaces that has a digit,
#                                   `_` or one of `<>[]{}\`: the exact text
# A list is a row's columns (or one token `a|b|c`, as psql shows a row) when
# the result is one row, else the rows of a one-column result in any order.
# `true: V` on a `SELECT a = b` also checks that a and b each give V. Two more
# forms:
#   ERROR 22023                     the statement fails with that SQLSTATE (the
#                                   block goes on after it)
#   output lines below a statement  when they state no value as a whole (a
#                                   plan of EXPLAIN, rows as `a|b|c`), each line
#                                   is one row of psql's unaligned output (`|`
#                                   between columns), in order, compared with
#                                   runs of spaces as one, none at either end
# Anything else (a word without those characters, a phrase) is prose: a
# failure. Explanations go in a heading comment above the statement.
#
# A statement is self-contained unless it has a `...` placeholder, reads or
# writes a relation (after FROM, JOIN, UPDATE, INTO, or a leading ANALYZE or
# VACUUM) that neither exists in a fresh database with the extension nor was
# created by an earlier statement of the file, names a shared object that no
# earlier statement created (unless the statement expects an ERROR), a role
# the file never creates (shared_grant,
# shared_revoke; a file may create only the roles of ROLES below, which the
# test drops, and which must not exist when it starts), or a server path other than one under /tmp/sketchshare-doc-
# (the test removes those before and after each file). A statement that is not
# self-contained is a failure, with its reason.
set -euo pipefail
: "${SKETCH_ROOT:?}" "${PGHOST:?}" "${PGPORT:?}"
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
# The roles the documents may create (CREATE ROLE), dropped after each file
# and when the test ends.
ROLES=(loader analyst)
exit_sql=()
for r in "${ROLES[@]}"; do exit_sql+=("DROP ROLE IF EXISTS $r"); done
# Never drop a role this test did not create: refuse a cluster that has one.
taken=$(psql -X -At -d postgres -c "SELECT string_agg(rolname, ', ') FROM pg_roles
                                    WHERE rolname = ANY ('{$(IFS=,; echo "${ROLES[*]}")}'::text[])")
[ -z "$taken" ] || fail "roles $taken exist already; this test creates and drops them (run it against a throwaway cluster)"
start_test sketchshare_doc_examples "${exit_sql[@]}"
# Files the documents' exports write (as the server's OS user).
PATHS=/tmp/sketchshare-doc-
trap 'end_test; rm -f "$PATHS"*' EXIT

files=("$SKETCH_ROOT/README.md")
for f in "$SKETCH_ROOT"/docs/*.md; do files+=("$f"); done
[ -e "${files[1]:-}" ] || fail "no docs/*.md"

status=0
DOC_ROLES="${ROLES[*]}" DOC_PATHS=$PATHS DOC_ROOT=$SKETCH_ROOT \
python3 - "${files[@]}" <<'PY' || status=$?
import glob
import json
import os
import re
import subprocess
import sys

ROLES = os.environ["DOC_ROLES"].split()
PATHS = os.environ["DOC_PATHS"]
ROOT = os.environ["DOC_ROOT"].rstrip("/") + "/"
DB = os.environ["PGDATABASE"]

# ABOUT: "about N" passes within 5% of N. docs/bloom.md uses it for an estimate:
# bloom_estimated_count of 500 items in a filter sized for 1000 at 1% (about
# 10,500 bits, 7 set per item). Taking the 3,500 bits as thrown independently
# (linear counting), the estimate's standard error is sqrt(m (e^t - t - 1)) / k
# with t = kn/m: about 4 items, under 1%. The result is deterministic (hash
# seed 0; it reads 495.5), so 5% is no flaky bound: it is what a reader takes
# "about" to promise, and an estimate further off is a wrong example.
ABOUT = 0.05

# ---- the blocks, their statements and comments

class Stmt:
    def __init__(self, block, first):
        self.block, self.first, self.last = block, first, first
        self.code, self.lines, self.comments, self.output = "", set(), [], []
        self.skip = []          # reasons it is not self-contained
        self.unclosed = None    # comment lines right below it that code closes

    def head(self):
        line = " ".join(self.code.split())
        return line if len(line) <= 70 else line[:67] + "..."

def read_blocks(path):
    blocks, block, fence = [], None, False
    with open(path, encoding="utf-8") as f:
        for n, text in enumerate(f.read().split("\n"), 1):
            if block is None and text.strip() == "```sql":
                block = []
                blocks.append((n, block))
            elif block is not None and text.strip().startswith("```"):
                block = None
            elif block is not None:
                block.append((n, text))
    return blocks

def split_block(bi, lines):
    """Statements of a block with the comments on their lines and the comment
    lines below them (their shown output)."""
    stmts, cur, quote = [], None, None
    run, run_target, last_done = [], None, None
    for n, text in lines + [(None, "")]:
        comment, ended, code_here, i = None, [], False, 0
        while i < len(text):
            c = text[i]
            if quote:
                cur.code += c
                if c == quote:
                    if text[i + 1:i + 2] == quote:
                        cur.code += quote
                        i += 1
                    else:
                        quote = None
            elif text.startswith("--", i):
                comment = text[i + 2:].strip()
                break
            elif c == ";":
                if cur is not None:
                    cur.last = n
                    stmts.append(cur)
                    ended.append(cur)
                    cur = None
            elif not c.isspace() or cur is not None:
                if not c.isspace():
                    code_here = True
                    if cur is None:
                        cur = Stmt(bi, n)
                    cur.lines.add(n)
                    if c in "'\"":
                        quote = c
                cur.code += c
            i += 1
        if cur is not None:
            cur.code += "\n"
        if code_here or (comment is None and run):
            # a statement, a blank line or the block's end closes a run of
            # comment lines: below a statement and closed by a blank line,
            # they are its output; closed by code, a heading
            if not code_here and run_target is not None:
                run_target.output = run
            elif run_target is not None:
                run_target.unclosed = run      # (a failure when it states a result)
            run, run_target = [], None
        if comment is not None:
            if cur is not None and n in cur.lines:
                cur.comments.append((n, comment))
            elif ended:
                ended[-1].comments.append((n, comment))
            elif cur is not None:
                cur.comments.append((n, comment))
            else:
                if not run and last_done is not None and last_done.last == n - 1:
                    run_target = last_done
                run.append((n, comment))
        if ended:
            last_done = ended[-1]
    if cur is not None:
        cur.skip.append("no ';' ends it")
        stmts.append(cur)
    return stmts

# ---- tokens, and the objects a statement names

TOKEN = re.compile(r"""\s+|(?P<str>[Ee]?'(?:[^']|'')*')|(?P<qid>"(?:[^"]|"")*")|(?P<dots>\.\.\.)"""
                   r"""|(?P<id>[A-Za-z_][A-Za-z0-9_$]*)|(?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"""
                   r"""|(?P<op>::|[<>=!@|&+\-*/%^~#]+|.)""", re.S)
STOP = set("""where group order limit offset fetch join on inner left right full cross natural
union except intersect having window select set values returning for using default""".split())

def tokens(code):
    out = []
    for m in TOKEN.finditer(code):
        if m.lastgroup:
            out.append((m.lastgroup, m.group(m.lastgroup)))
    return out

def skip_parens(toks, i):
    depth = 0
    while i < len(toks):
        depth += {"(": 1, ")": -1}.get(toks[i][1], 0)
        i += 1
        if depth == 0:
            break
    return i

def string_value(tok):
    return tok[1].lstrip("Ee")[1:-1].replace("''", "'")

def relations_after(toks, i):
    """The relations of a FROM list (or the target of UPDATE / INTO / ANALYZE) at i."""
    refs = []
    while i < len(toks):
        kind, t = toks[i]
        if t == "(":
            i = skip_parens(toks, i)
        elif kind in ("id", "qid") and t.lower() in ("lateral", "only"):
            i += 1
            continue
        elif kind in ("id", "qid"):
            name, i = t, i + 1
            while i + 1 < len(toks) and toks[i][1] == "." and toks[i + 1][0] in ("id", "qid"):
                name, i = name + "." + toks[i + 1][1], i + 2
            if i < len(toks) and toks[i][1] == "(":
                i = skip_parens(toks, i)        # a function in FROM
            else:
                refs.append(name)
        else:
            break
        if i < len(toks) and toks[i][1].lower() == "as":
            i += 1
        if i < len(toks) and toks[i][0] in ("id", "qid") and toks[i][1].lower() not in STOP:
            i += 1                              # an alias
        if i < len(toks) and toks[i][1] == "(":
            i = skip_parens(toks, i)            # its column names
        if i < len(toks) and toks[i][1] == ",":
            i += 1
            continue
        break
    return refs

def analyse(s):
    toks = tokens(s.code)
    low = [t.lower() if k == "id" else t for k, t in toks]
    s.uses, s.creates, s.shared, s.makes_shared, s.roles, s.makes_roles = [], [], [], [], [], []
    s.placeholder = any(k == "dots" for k, _ in toks)
    s.paths = [string_value(t) for t in toks if t[0] == "str" and string_value(t).startswith("/")]
    for i, t in enumerate(low):
        prev = low[i - 1] if i else ""
        if t in ("from", "join", "into") or (t == "update" and prev not in ("for", "do")) \
                or (t in ("analyze", "vacuum") and i == 0):
            if not (t == "from" and prev == "distinct"):
                s.uses += relations_after(toks, i + 1)
        if t == "create":
            j = i + 1
            while j < len(low) and low[j] in ("temp", "temporary", "unlogged"):
                j += 1
            if j + 1 < len(low) and low[j] == "table":
                j += 1
                if low[j:j + 3] == ["if", "not", "exists"]:
                    j += 3
                if j < len(toks):
                    s.creates.append(toks[j][1])
            elif j + 1 < len(low) and low[j] in ("role", "user"):
                s.makes_roles.append(toks[j + 1][1])
        if toks[i][0] == "id" and t.startswith("shared_") and low[i + 1:i + 2] == ["("] \
                and i + 2 < len(toks) and toks[i + 2][0] == "str":
            name = string_value(toks[i + 2])
            if re.search(r"create|attach", t):
                s.makes_shared.append(name)
            else:
                s.shared.append(name)
            if t in ("shared_grant", "shared_revoke") and i + 4 < len(toks) \
                    and toks[i + 3][1] == "," and toks[i + 4][0] == "str":
                s.roles.append(string_value(toks[i + 4]))
    s.equality = None
    depth, eqs = 0, []
    for i, t in enumerate(low):
        depth += {"(": 1, ")": -1}.get(t, 0)
        if depth == 0 and t == "=":
            eqs.append(i)
    if low[:1] == ["select"] and len(eqs) == 1 and "from" not in low:
        m = list(TOKEN.finditer(s.code))
        ms = [x for x in m if x.lastgroup]
        cut = ms[eqs[0]]
        s.equality = (s.code[ms[1].start():cut.start()].strip(), s.code[cut.end():].strip())

# ---- what a comment states

NUM = r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"

def value_of(item):
    """A checkable value (kind, text), or None for prose."""
    t = item.strip()
    if re.fullmatch(r"(?i)true|false|t|f", t):
        return ("bool", "t" if t.lower() in ("true", "t") else "f")
    if re.fullmatch(r"(?i)null", t):
        return ("null", "")
    if t in ("on", "off"):
        return ("text", t)      # a boolean setting as SHOW gives it
    m = re.fullmatch(r"about (" + NUM + ")", t)
    if m:
        return ("about", m.group(1))
    if re.fullmatch(NUM, t):
        return ("number", t)
    if re.fullmatch(r"\S+\.\.\.", t) and (re.fullmatch(NUM + r"\.\.\.", t) or re.search(r"[\d_<>\[\]{}\\]", t)):
        return ("prefix", t[:-3])
    if re.fullmatch(r"\S+", t) and re.search(r"[\d_<>\[\]{}\\]", t):
        return ("text", t)
    return None


def plan_lines(lines):
    """Lines of output, EXPLAIN's in the form of every major: PostgreSQL 17
    names an InitPlan's output (InitPlan 1).col1 instead of $0 and drops its
    "(returns $0)"; 18 prints actual rows with two decimals, and buffers (with
    a "Planning:" heading) by default."""
    out = []
    for l in lines:
        if l.startswith("Buffers: ") or l == "Planning:":
            continue
        l = re.sub(r"\(InitPlan \d+\)\.col\d+|\$\d+", "$n", l)
        l = re.sub(r" \(returns [$n, ]+\)", "", l)
        out.append(re.sub(r"\brows=(\d+)\.00\b", r"rows=\1", l))
    return out


def stated(text):
    """(values, note) for a comment stating a result; values is a list,
    ("json", value) or ("error", SQLSTATE); None for prose."""
    t = text.strip()
    m = re.fullmatch(r"ERROR ([0-9A-Z]{5})(?:: .*|\s+\(.*\))?", t)
    if m:
        return ("error", m.group(1)), None
    if t[:1] in "{[":
        try:
            return ("json", json.loads(t)), None
        except ValueError:
            pass                # an array's text form, {1,2,3}, is a token
    note = None
    if ": " in t:
        t, note = t.split(": ", 1)
    m = re.fullmatch(r"(.*?)\s+\(.*\)", t)
    if m:
        t = m.group(1)
    values = [value_of(x) for x in t.split(", ")]
    if not values or None in values:
        return None
    return values, note

def matches(want, got):
    kind, text = want
    if kind == "about":
        try:
            return abs(float(got) - float(text)) <= ABOUT * abs(float(text))
        except ValueError:
            return False
    if kind == "prefix":
        return got.startswith(text)
    if got == text:
        return True
    if kind == "number":
        try:
            return float(got) == float(text)
        except ValueError:
            return False
    return False

def shown(want):
    kind, text = want
    return {"about": "about " + text, "prefix": text + "...", "null": "NULL"}.get(kind, text)

# ---- running

def psql(script, db=None):
    return subprocess.run(["psql", "-X", "-q", "-A", "-t", "-F", "\x1f", "-v", "ON_ERROR_STOP=1",
                           "-d", db or DB, "-f", "-"],
                          input=script, capture_output=True, text=True)

def must(script, db=None):
    out = psql(script, db)
    if out.returncode:
        sys.exit(f"FAILED: {script.strip()}: {out.stderr.strip()}")
    return out.stdout

def remove_paths():
    for f in glob.glob(PATHS + "*"):
        os.remove(f)

def fresh_database():
    """A fresh database with the extension, no roles of ROLES, no files under PATHS."""
    cleanup()
    must(f"CREATE DATABASE {DB};\nALTER DATABASE {DB} SET synchronous_commit = on;\n", "postgres")
    must("CREATE EXTENSION sketchshare;\n")

def cleanup():
    """Shared objects live in files outside the database: drop them with it."""
    if psql("SELECT 1;\n").returncode == 0 \
            and must("SELECT to_regclass('shared_objects') IS NOT NULL;\n").strip() == "t":
        must("SELECT count(shared_drop(name)) FROM shared_objects;\n")
    must(f"DROP DATABASE IF EXISTS {DB};\n" + "".join(f"DROP ROLE IF EXISTS {r};\n" for r in ROLES), "postgres")
    remove_paths()

def existing(names):
    """The names that are relations in the fresh database."""
    if not names:
        return set()
    arr = ", ".join("'" + n.replace("'", "''") + "'" for n in sorted(names))
    return set(must(f"SELECT n FROM unnest(ARRAY[{arr}]) n WHERE to_regclass(n) IS NOT NULL;\n").split())

def run_file(path):
    """Runs one file's examples in a fresh database: (checked, ran, failures)."""
    NAME = path[len(ROOT):] if path.startswith(ROOT) else path
    fresh_database()
    blocks = read_blocks(path)
    stmts = []
    for bi, (_, lines) in enumerate(blocks):
        stmts += split_block(bi, lines)
    for s in stmts:
        analyse(s)

    tables = existing({n for s in stmts for n in s.uses})
    shared, roles = set(), set()
    tainted = {}           # name -> the line of a skipped statement that named it
    for s in stmts:
        for r in s.uses:
            if r not in tables:
                s.skip.append(f"{r} is never created")
        expects_error = any((stated(c) or [[None]])[0][0] == "error" for _, c in s.comments)
        for o in s.shared:
            if o not in shared and not expects_error:
                s.skip.append(f"shared object '{o}' is never created")
        for r in s.roles:
            if r not in roles:
                s.skip.append(f"role {r} is never created")
        for r in s.makes_roles:
            if r not in ROLES:
                s.skip.append(f"role {r} is not one the test drops (ROLES in {sys.argv[0]})")
        for p in s.paths:
            if not p.startswith(PATHS):
                s.skip.append(f"server path {p} (use one under {PATHS})")
        if s.placeholder:
            s.skip.insert(0, "a '...' placeholder")
        if s.skip:
            for name in s.uses + s.creates + ["'%s'" % o for o in s.shared + s.makes_shared]:
                tainted.setdefault(name, s.first)
        else:
            tables.update(s.creates)
            shared.update(s.makes_shared)
            roles.update(s.makes_roles)
        s.taint = [(n, tainted[n]) for n in s.uses + ["'%s'" % o for o in s.shared] if n in tainted]

    checked, failures = [], []
    ran = 0
    log = []               # (line, what became of it), printed in file order

    def where(s):
        return f"{NAME}:{s.first}" if s.first == s.last else f"{NAME}:{s.first}-{s.last}"

    for s in stmts:
        if s.unclosed and (stated(" ".join(c for _, c in s.unclosed)) is not None
                           or all("|" in c for _, c in s.unclosed)):
            # a heading that states a result or reads as rows (a|b): output
            # that lacks its blank line?
            failures.append(f"{NAME}:{s.unclosed[0][0]}: -- {s.unclosed[0][1]}: comment lines right below a "
                            "statement and right above the next: end its output with a blank line, or "
                            "separate the heading from the statement above by one")
        if s.comments and s.output:
            failures.append(f"{where(s)}: -- {s.output[0][1]}: output lines below a statement whose lines carry "
                            "comments too: state its result one way")
        comments = s.comments or s.output
        s.want, s.lines_out = None, None
        if s.skip:
            failures.append(f"{where(s)}: {s.head()}: not self-contained: {'; '.join(s.skip)}")
            continue
        ran += 1
        if not comments:
            continue
        if s.output and not s.comments:
            parsed = stated(" ".join(c for _, c in s.output))
            if parsed is None:
                s.lines_out = [c for _, c in s.output]
                parsed = (None, None)
        else:
            parts = [stated(c) for _, c in s.comments]
            parsed = None
            if None not in parts and not any(p[0][0] in ("json", "error") for p in parts):
                parsed = ([v for p in parts for v in p[0]], parts[-1][1])
            elif len(parts) == 1 and parts[0] is not None:
                parsed = parts[0]
        text = " / ".join(c for _, c in comments)
        if parsed is None:
            failures.append(f"{where(s)}: -- {text}: prose, not a result (state a checkable result, "
                            "or move the words to a heading comment above the statement)")
        elif s.taint:
            name, line = s.taint[0]
            failures.append(f"{where(s)}: -- {text}: reads {name}, which the failed statement of line {line} names")
        else:
            s.want = parsed

    def check(s, rows):
        """None when rows are what s states, else what differs."""
        if s.lines_out is not None:
            got = plan_lines(" ".join("|".join(r).split()) for r in rows)
            want = plan_lines(" ".join(l.split()) for l in s.lines_out)
            if got == want:
                return None
            return "expected the lines\n      " + "\n      ".join(want) + "\n    got\n      " + "\n      ".join(got)
        want, note = s.want
        if want[0] == "json":
            if len(rows) != 1 or len(rows[0]) != 1:
                return f"expected one value, got {len(rows)} rows"
            try:
                got = json.loads(rows[0][0])
            except ValueError:
                return f"expected the JSON {json.dumps(want[1])}, got {rows[0][0]}"
            return None if got == want[1] else f"expected {json.dumps(want[1], sort_keys=True)}, got {json.dumps(got, sort_keys=True)}"
        if len(rows) == 1 and len(rows[0]) > 1 and len(want) == 1 and want[0][0] in ("text", "prefix"):
            got = ["|".join(rows[0])]          # a row as psql shows it: a|b|c
            pairs = list(zip(want, got))
        elif len(rows) == 1 and len(rows[0]) == len(want):
            got = rows[0]
            pairs = list(zip(want, got))
        elif len(want) > 1 and len(rows) == len(want) and all(len(r) == 1 for r in rows):
            got = sorted(r[0] for r in rows)
            pairs = list(zip(sorted(want, key=lambda w: w[1]), got))
        else:
            shape = f"{len(rows)} row(s) of {len(rows[0]) if rows else 0} column(s)"
            return f"expected {', '.join(map(shown, want))}, got {shape}: {rows}"
        if all(matches(w, g) for w, g in pairs):
            return None
        return f"expected {', '.join(map(shown, want))}, got {', '.join('NULL' if g == '' else g for g in got)}"

    def errs(s):
        return s.want is not None and s.lines_out is None and s.want[0][0] == "error"

    remove_paths()
    for bi, (start, _) in enumerate(blocks):
        run = [s for s in stmts if s.block == bi and not s.skip]
        if not run:
            continue
        script, extra = "", {}
        for k, s in enumerate(run):
            script += f"\\echo @@ {k}\n"
            if errs(s):
                # an error it expects: the block goes on, and its SQLSTATE is the result
                script += f"\\set ON_ERROR_STOP 0\n{s.code.strip()};\n\\set ON_ERROR_STOP 1\n"
                script += f"\\echo @@ {k}e\n\\echo :SQLSTATE\n"
                continue
            script += f"{s.code.strip()};\n"
            note = s.want[1] if s.want and s.lines_out is None else None
            v = stated(note) if note else None
            if s.want and s.lines_out is None and s.want[0] and s.want[0][0] == ("bool", "t") and v \
                    and len(v[0]) == 1 and v[0] is not None and v[0][0] not in ("json", "error") and s.equality:
                # `SELECT a = b; -- true: V`: a and b each give V
                extra[k] = v[0]
                for side, expr in zip("ab", s.equality):
                    script += f"\\echo @@ {k}{side}\nSELECT {expr};\n"
        script += "\\echo @@ end\n"
        out = psql(script)
        results, key = {}, None
        for line in out.stdout.split("\n")[:-1]:   # (the last newline ends the output)
            if line.startswith("@@ "):
                key = line[3:]
                results[key] = []
            elif key is not None:
                results[key].append(line.split("\x1f"))
        if out.returncode != 0 or "end" not in results:
            s = run[int(re.match(r"\d+", key).group())] if key and key != "end" else run[0]
            error = "\n    ".join(l for l in out.stderr.strip().split("\n") if l)
            failures.append(f"{where(s)}: {s.head()}: failed (the block at line {start} stops here):\n    {error}")
        for k, s in enumerate(run):
            if not s.want or str(k) not in results or str(k + 1 if k + 1 < len(run) else "end") not in results:
                continue
            if errs(s):
                got = results.get(f"{k}e", [[""]])
                code = got[0][0] if got and got[0] else ""
                problem = None if code == s.want[0][1] else \
                    f"expected ERROR {s.want[0][1]}, got " + ("no error" if code == "00000" else f"SQLSTATE {code!r}")
            else:
                problem = check(s, results[str(k)])
            if problem is None and k in extra:
                for side, expr in zip("ab", s.equality):
                    got = results.get(f"{k}{side}", [])
                    if not (len(got) == 1 and len(got[0]) == 1 and all(matches(w, got[0][0]) for w in extra[k])):
                        problem = (f"the comment says both sides give {shown(extra[k][0])}, but {expr} gives "
                                   + " / ".join("|".join(r) for r in got))
            if problem:
                failures.append(f"{where(s)}: {s.head()}: {problem}")
            else:
                checked.append(s)
                log.append((s.first, f"ok: {where(s)}: {s.head()}  -- {' / '.join(c for _, c in (s.comments or s.output))}"))

    cleanup()
    for _, message in sorted(log, key=lambda x: x[0]):
        print(message)
    if not checked:
        failures.append(f"{NAME}: no example was checked (did its format change?)")
    print(f"{NAME}: {len(checked)} checked; statements: {ran} ran, {len(stmts) - ran} not self-contained; "
          f"{len(failures)} failed")
    return len(checked), ran, len(stmts) - ran, failures

total_checked, total_ran, total_not, all_failures = 0, 0, 0, []
for path in sys.argv[1:]:
    c, r, n, f = run_file(path)
    total_checked, total_ran, total_not = total_checked + c, total_ran + r, total_not + n
    all_failures += f
print(f"doc examples: {total_checked} checked, 0 skipped, in {len(sys.argv) - 1} files; "
      f"statements: {total_ran} ran, {total_not} not self-contained; {len(all_failures)} failures")
for f in all_failures:
    print(f"FAILED: {f}")
if all_failures:
    sys.exit(1)
PY

for f in "$PATHS"*; do
    if [ -e "$f" ]; then fail "$f is left over"; fi
done
exit $status
