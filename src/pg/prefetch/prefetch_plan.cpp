// The prefetching scan's planning: which calls it serves (the functions
// registered by the face files), the lookups a query makes on a table, and
// the scan's paths and plan. What the scan is: prefetch_scan.hpp.
#include <algorithm>
#include <cstring>

#include "module.hpp"
#include "pg.hpp"
#include "pg_compat.hpp"
#include "prefetch/prefetch.hpp"
#include "prefetch/prefetch_scan.hpp"
#include "shared_objects/registry/shared_registry.hpp"

extern "C" {
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "lib/stringinfo.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "storage/bufmgr.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace sketch_pg {
bool prefetch_enabled = true;
}  // namespace sketch_pg

using namespace sketch_pg;

namespace sketch_pg::prefetch_scan {

// ---- the functions the scan serves, registered by their face files ----

constexpr int kMaxPrefetchable = 16;
Prefetchable registered[kMaxPrefetchable];
int nregistered = 0;

const Prefetchable& prefetchable(int known) { return registered[known]; }

}  // namespace sketch_pg::prefetch_scan

namespace sketch_pg {

void register_prefetchable(const char* symbol, PrefetchKind kind, uint8 need) {
    using prefetch_scan::nregistered;
    if (nregistered == prefetch_scan::kMaxPrefetchable) elog(ERROR, "too many prefetchable functions");
    prefetch_scan::registered[nregistered++] = prefetch_scan::Prefetchable{symbol, kind, need};
}

}  // namespace sketch_pg

namespace sketch_pg::prefetch_scan {

namespace {

// ---- which functions are ours (pg_proc by OID, remembered per backend) ----

struct KnownFunction {
    Oid funcid;
    int known;  // index in registered, or kNotKnown
};
KnownFunction recent[16];
int recent_next = 0;

void forget_functions(Datum, int, uint32) { std::memset(recent, 0, sizeof recent); }

int lookup_known(Oid funcid) {
    HeapTuple tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
    if (!HeapTupleIsValid(tup)) return kNotKnown;
    int found = kNotKnown;
    if (reinterpret_cast<Form_pg_proc>(GETSTRUCT(tup))->prolang == ClanguageId) {
        bool null_bin, null_src;
        Datum bin = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &null_bin);
        Datum src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &null_src);
        if (!null_bin && !null_src) {
            char* lib = TextDatumGetCString(bin);
            char* symbol = TextDatumGetCString(src);
            const char* base = strrchr(lib, '/');
            if (strcmp(base != nullptr ? base + 1 : lib, "sketchshare") == 0)
                for (int i = 0; i < nregistered; ++i)
                    if (strcmp(symbol, registered[i].symbol) == 0) found = i;
            pfree(lib);
            pfree(symbol);
        }
    }
    ReleaseSysCache(tup);
    return found;
}

int known_function(Oid funcid) {
    for (const KnownFunction& r : recent)
        if (r.funcid == funcid) return r.known;
    const int known = lookup_known(funcid);
    recent[recent_next] = KnownFunction{funcid, known};
    recent_next = (recent_next + 1) % int(lengthof(recent));
    return known;
}

// ---- planning: the lookups a query makes on one table ----

Node* strip_relabel(Node* n) {
    while (n != nullptr && IsA(n, RelabelType)) n = reinterpret_cast<Node*>(reinterpret_cast<RelabelType*>(n)->arg);
    return n;
}

// What the filter argument may be: something whose value the scan can read
// without evaluating anything (a literal, a parameter).
bool readable_filter(Node* n) {
    if (IsA(n, Const)) return !reinterpret_cast<Const*>(n)->constisnull;
    if (!IsA(n, Param)) return false;
    const ParamKind k = reinterpret_cast<Param*>(n)->paramkind;
    return k == PARAM_EXTERN || k == PARAM_EXEC;
}

// A filter column of another table of the query: the scan can read it only
// as a parameter of a nested loop over that table.
bool outer_column(Node* n, Index rti) {
    if (!IsA(n, Var)) return false;
    const Var* v = reinterpret_cast<const Var*>(n);
    return v->varno != int(rti) && v->varlevelsup == 0 && v->varattno > 0;
}

// The lookups found so far; in the plan, each one's filter expression is in
// custom_exprs and the rest an integer list in custom_private. outer: the
// tables whose columns are filters (their lookups are in filters and probes
// too). keys: the equalities between columns of two tables (`f.day =
// e.day`), each an integer list (table, column, table, column, operator).
struct ProbeSearch {
    Index rti;
    List* filters;  // Node*
    List* probes;   // of integer lists (known, attno, item type[, joined: see joined_probe])
    Relids outer;
    List* keys;
};

void consider_call(ProbeSearch* s, Oid funcid, List* args) {
    if (list_length(args) < 2 || list_length(s->filters) >= kMaxProbes) return;
    const int known = known_function(funcid);
    if (known == kNotKnown) return;
    Node* filter = strip_relabel(static_cast<Node*>(linitial(args)));
    Node* item = strip_relabel(static_cast<Node*>(lsecond(args)));
    if (filter == nullptr || item == nullptr || !IsA(item, Var)) return;
    const bool outer = outer_column(filter, s->rti);
    if (!outer && !readable_filter(filter)) return;
    const Var* v = reinterpret_cast<const Var*>(item);
    if (v->varno != int(s->rti) || v->varlevelsup != 0 || v->varattno <= 0) return;
    const Oid item_type = exprType(static_cast<Node*>(lsecond(args)));
    if (hashes_by_output(item_type)) return;
    for (int i = 0; i < list_length(s->filters); ++i) {
        List* p = static_cast<List*>(list_nth(s->probes, i));
        if (linitial_int(p) == known && lsecond_int(p) == v->varattno && equal(list_nth(s->filters, i), filter))
            return;
    }
    s->filters = lappend(s->filters, filter);
    s->probes = lappend(s->probes, list_make3_int(known, v->varattno, int(item_type)));
    if (outer) s->outer = bms_add_member(s->outer, reinterpret_cast<const Var*>(filter)->varno);
}

bool is_heap_table(Oid relid) {
    HeapTuple tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
    if (!HeapTupleIsValid(tup)) return false;
    const Form_pg_class c = reinterpret_cast<Form_pg_class>(GETSTRUCT(tup));
    const bool heap = c->relam == HEAP_TABLE_AM_OID &&
                      (c->relkind == RELKIND_RELATION || c->relkind == RELKIND_MATVIEW);
    ReleaseSysCache(tup);
    return heap;
}

// An equality of two columns of different tables of this query level, of one
// type, whose operator can hash: a key the scan may match filters by.
void consider_key(ProbeSearch* s, const OpExpr* o) {
    if (list_length(o->args) != 2) return;
    Node* a = strip_relabel(static_cast<Node*>(linitial(o->args)));
    Node* b = strip_relabel(static_cast<Node*>(lsecond(o->args)));
    if (a == nullptr || b == nullptr || !IsA(a, Var) || !IsA(b, Var)) return;
    const Var* va = reinterpret_cast<const Var*>(a);
    const Var* vb = reinterpret_cast<const Var*>(b);
    if (va->varlevelsup != 0 || vb->varlevelsup != 0 || va->varattno <= 0 || vb->varattno <= 0 ||
        va->varno == vb->varno || va->vartype != vb->vartype || !op_hashjoinable(o->opno, va->vartype))
        return;
    s->keys = lappend(s->keys, list_make5_int(int(va->varno), va->varattno, int(vb->varno), vb->varattno, int(o->opno)));
}

// The lookup `probe` of s, whose filter is column `filter` of another table,
// made one that the scan serves by reading that table itself: its rows' filters,
// matched to a row of this one by a key when the query joins the two on one
// (keys), else all of them. The integer list gains (the other table's oid,
// its filter column, the key column here, the key column there, the key's
// operator; the key columns 0 without a key). False when that table is no
// plain heap table.
bool joined_probe(PlannerInfo* root, const ProbeSearch& s, const Var* filter, List** probe) {
    const RangeTblEntry* rte = planner_rt_fetch(filter->varno, root);
    if (rte->rtekind != RTE_RELATION || rte->inh || rte->tablesample != nullptr || !is_heap_table(rte->relid))
        return false;
    int here = 0, there = 0, opno = 0;
    ListCell* lc;
    foreach (lc, s.keys) {
        List* k = static_cast<List*>(lfirst(lc));
        const int ra = list_nth_int(k, 0), rb = list_nth_int(k, 2);
        if (ra == int(s.rti) && rb == int(filter->varno)) {
            here = list_nth_int(k, 1), there = list_nth_int(k, 3), opno = list_nth_int(k, 4);
        } else if (rb == int(s.rti) && ra == int(filter->varno)) {
            here = list_nth_int(k, 3), there = list_nth_int(k, 1), opno = list_nth_int(k, 4);
        } else {
            continue;
        }
        break;
    }
    *probe = list_concat(list_copy(*probe),
                         list_make5_int(int(rte->relid), filter->varattno, here, there, opno));
    return true;
}

// The lookups of s that the scan can serve without a nested loop: a filter
// it can read as it is, or one from another table that it reads itself. A
// joined filter's place in custom_exprs holds a NULL of its type.
ProbeSearch unparameterized(PlannerInfo* root, const ProbeSearch& s) {
    ProbeSearch r{s.rti, NIL, NIL, nullptr, NIL};
    for (int i = 0; i < list_length(s.filters); ++i) {
        Node* filter = static_cast<Node*>(list_nth(s.filters, i));
        List* probe = static_cast<List*>(list_nth(s.probes, i));
        if (outer_column(filter, s.rti)) {
            if (!joined_probe(root, s, reinterpret_cast<const Var*>(filter), &probe)) continue;
            filter = reinterpret_cast<Node*>(makeNullConst(exprType(filter), exprTypmod(filter), exprCollation(filter)));
        }
        r.filters = lappend(r.filters, filter);
        r.probes = lappend(r.probes, probe);
    }
    return r;
}

bool find_calls(Node* n, ProbeSearch* s) {
    if (n == nullptr) return false;
    if (IsA(n, FuncExpr)) {
        auto* f = reinterpret_cast<FuncExpr*>(n);
        consider_call(s, f->funcid, f->args);
    } else if (IsA(n, OpExpr)) {
        auto* o = reinterpret_cast<OpExpr*>(n);
        consider_call(s, OidIsValid(o->opfuncid) ? o->opfuncid : get_opcode(o->opno), o->args);
        consider_key(s, o);
    } else if (IsA(n, Query)) {
        return false;  // a subquery's Vars index its own range table
    }
    return expression_tree_walker(n, SKETCH_TREE_WALKER(find_calls), s);
}

extern const CustomPathMethods kPathMethods;

// The scan in place of a Seq Scan path: same rows, same cost. It reads the
// filters too, so it may run in a worker only if they can be read there.
Path* prefetching(Path* seq, ProbeSearch* s, bool filters_parallel_safe) {
    CustomPath* cp = makeNode(CustomPath);
    cp->path = *seq;
    cp->path.type = T_CustomPath;
    cp->path.pathtype = T_CustomScan;
    cp->path.parallel_safe = seq->parallel_safe && filters_parallel_safe;
    // The heap scans both ways, as a Seq Scan does: a cursor that may move
    // backward needs no Material above it (prefetching is forward only).
    cp->flags = CUSTOMPATH_SUPPORT_PROJECTION | CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
    cp->custom_private = list_make2(s->filters, s->probes);
    cp->methods = &kPathMethods;
    return &cp->path;
}

// The scan parameterized by the tables of s.outer, beside the Seq Scan paths:
// the planner takes it for the inner side of a nested loop over them. It is
// costed one operator evaluation a row below the Seq Scan, for the lookups
// whose memory waits it overlaps: a cost within 1% of another path's would
// lose to the unparameterized Seq Scan.
void add_parameterized(PlannerInfo* root, RelOptInfo* rel, ProbeSearch* s) {
    // (a table with lateral references needs its own parameters too)
    Relids outer = bms_union(s->outer, rel->lateral_relids);
    Path* p = prefetching(create_seqscan_path(root, rel, outer, 0), s, false);
    p->total_cost -= cpu_operator_cost * p->rows;
    add_path(rel, p);
}

void replace_seq_scans(List* paths, ProbeSearch* s, bool filters_parallel_safe) {
    ListCell* lc;
    foreach (lc, paths) {
        Path* p = static_cast<Path*>(lfirst(lc));
        if (p->pathtype == T_SeqScan && IsA(p, Path)) lfirst(lc) = prefetching(p, s, filters_parallel_safe);
    }
}

set_rel_pathlist_hook_type previous_hook = nullptr;

void on_rel_pathlist(PlannerInfo* root, RelOptInfo* rel, Index rti, RangeTblEntry* rte) {
    if (previous_hook != nullptr) previous_hook(root, rel, rti, rte);
    if (!prefetch_enabled || rel->reloptkind != RELOPT_BASEREL || rte->rtekind != RTE_RELATION || rte->inh ||
        rte->tablesample != nullptr || !is_heap_table(rte->relid))
        return;
    ProbeSearch found{rti, NIL, NIL, nullptr, NIL};
    query_tree_walker(root->parse, SKETCH_TREE_WALKER(find_calls), &found,
                      QTW_IGNORE_RANGE_TABLE);
    if (found.outer != nullptr) add_parameterized(root, rel, &found);
    ProbeSearch s = unparameterized(root, found);
    if (s.filters == NIL) return;
    // (a parameter set per outer row is not available in a worker)
    const bool filters_parallel_safe = is_parallel_safe(root, reinterpret_cast<Node*>(s.filters));
    replace_seq_scans(rel->pathlist, &s, filters_parallel_safe);
    if (filters_parallel_safe) replace_seq_scans(rel->partial_pathlist, &s, true);
}

// Whether the scan may return the table's rows whole, as a Seq Scan does when
// its parent takes any target list (the planner decides that for a Seq Scan,
// not for a custom scan). Then it hands on the heap tuple itself instead of
// projecting each row. Granted here in one shape known to be safe: a plain
// aggregate over this table alone, where the scan's parent is the Agg (or a
// partial Agg, or a Gather under it), which reads its input by column.
bool whole_rows_ok(PlannerInfo* root, RelOptInfo* rel) {
    const Query* q = root->parse;
    if (q->commandType != CMD_SELECT || !q->hasAggs || q->groupClause != NIL || q->groupingSets != NIL ||
        q->hasWindowFuncs || q->hasTargetSRFs || q->distinctClause != NIL || q->sortClause != NIL ||
        q->setOperations != nullptr || q->rowMarks != NIL || root->placeholder_list != NIL ||
        bms_membership(root->all_baserels) != BMS_SINGLETON)
        return false;
    for (int i = rel->min_attr; i <= 0; ++i)  // system columns, the whole row
        if (!bms_is_empty(rel->attr_needed[i - rel->min_attr])) return false;
    return true;
}

Plan* plan_scan(PlannerInfo* root, RelOptInfo* rel, CustomPath* best, List* tlist, List* clauses, List*) {
    CustomScan* cs = makeNode(CustomScan);
    List* whole = whole_rows_ok(root, rel) ? build_physical_tlist(root, rel) : NIL;
    cs->scan.plan.targetlist = whole != NIL ? whole : tlist;  // NIL: a dropped or added column
    cs->scan.plan.qual = extract_actual_clauses(clauses, false);
    cs->scan.scanrelid = rel->relid;
    cs->flags = best->flags;
    cs->custom_exprs = static_cast<List*>(linitial(best->custom_private));
    cs->custom_private = static_cast<List*>(lsecond(best->custom_private));
    cs->methods = &kScanMethods;
    return &cs->scan.plan;
}

const CustomPathMethods kPathMethods = {"SketchPrefetch", plan_scan, nullptr};

}  // namespace

void planner_init() {
    CacheRegisterSyscacheCallback(PROCOID, forget_functions, 0);
    previous_hook = set_rel_pathlist_hook;
    set_rel_pathlist_hook = on_rel_pathlist;
}

}  // namespace sketch_pg::prefetch_scan

// The planner support function of every function registered with
// register_prefetchable. It simplifies
// nothing; calling it loads this library while the query that names such a
// function is planned, so the planner hook is in place before that query's
// paths are made (otherwise a session's first such query would plan without it).
SKETCH_FUNCTION(sketchshare_support) { PG_RETURN_POINTER(nullptr); }
