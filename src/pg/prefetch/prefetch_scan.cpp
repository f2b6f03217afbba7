// The prefetching scan's execution: it reads heap pages as a Seq Scan does,
// hashes the items of the next rows and prefetches the filter lines their
// lookups will touch, and publishes each returned row's digest (row_digest).
// What the scan is: prefetch_scan.hpp; its planning: prefetch_plan.cpp.
#include <algorithm>
#include <cstring>

#include "module.hpp"
#include "pg.hpp"
#include "pg_compat.hpp"
#include "prefetch/prefetch.hpp"
#include "prefetch/prefetch_scan.hpp"
#include "shared_objects/shared_registry.hpp"
#include "shared_objects/transactional_adds.hpp"

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
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"
#include "optimizer/restrictinfo.h"
#include "storage/bufmgr.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace sketch_pg {
RowDigest row_digest;
}

using namespace sketch_pg;

namespace sketch_pg::prefetch_scan {

namespace {

extern const CustomExecMethods kExecMethods;

// The lines in flight ahead of the returned row: enough to cover a memory
// latency with the executor's own work on the rows between, well inside L1,
// and requested a row's worth at a time (requesting many at once stalls the
// core until the memory system takes them). kMinAhead rows at least.
constexpr uint32_t kLinesAhead = 56;
constexpr int kMinAhead = 4;
// A filter this small stays in a core's second-level cache (1-2 MiB on
// current servers): the scan does not read ahead for it, as hashing ahead
// would cost more than the lookups wait. A larger one loses its lines to the
// scan's own page traffic even where the last-level cache could hold it, so
// reading ahead pays from there on (bench/README.md measures both sides).
constexpr uint64_t kPrefetchFromBytes = uint64_t(1) << 20;
// Reading ahead pays only if each row's item is looked up as the scan
// returns the row (not after a sort or a join reorders rows, nor when most
// rows never reach the lookup). Once it has read ahead for kJudgeRows rows,
// if under a quarter of them were looked up (row_digest.hits), it pauses
// reading ahead for `backoff` pages, doubling up to kMaxBackoff.
constexpr uint64_t kJudgeRows = 64;
constexpr int kMinBackoff = 8;
constexpr int kMaxBackoff = 1024;

// ---- execution ----

struct Probe {
    int known;
    AttrNumber attno;
    ExprState* filter;  // a Const or PARAM_EXTERN: evaluated; PARAM_EXEC: read when computed
    int exec_param;     // PARAM_EXEC's id, or -1
    ItemHasher hasher;
    FetchedFilter fetched;  // a stored value filter, shared with the function's copy
    PrefetchTarget target;
    MoreTargets more;  // a grown shared object's other sub-filters
    bool resolved;  // target is set for this (re)scan
    bool prefetch;  // its filter is large enough to prefetch for
    StoredId answers;  // the stored value filter whose lookups row_answer serves, valueid InvalidOid: none
};

// The first probe's digest of one row of the page.
struct Digest {
    bool valid;  // false: none (a null or toasted item, the probe not resolved)
    Datum item;
    sketch::Hash128 h;
};

struct PrefetchScanState {
    CustomScanState css;
    int nprobes;
    Probe probes[kMaxProbes];
    BlockNumber block;  // the page `rows` describes
    bool reading;       // this page reads ahead
    int window;         // its rows read ahead of the returned one
    int ahead;          // its next row (index in rs_vistuples) to read ahead
    Digest rows[MaxHeapTuplesPerPage];  // by row of the page (index in rs_vistuples)
    uint64_t published;  // rows whose digest was published since the last judgement
    uint64_t hits_at;    // row_digest.hits then
    int paused;          // pages left without reading ahead
    int backoff;
    // What EXPLAIN ANALYZE reports (this process's scan only: a parallel
    // worker's counts are not included), plain increments.
    uint64_t n_rows_ahead;    // rows read ahead (hashed, their lines requested)
    uint64_t n_pages_ahead;   // pages that read ahead
    uint64_t n_pages_paused;  // pages that did not, paused by the backoff
    uint64_t n_filters;       // filters resolved to prefetch for (value: per scan, shared object: per page)
};

PrefetchScanState* state_of(CustomScanState* node) { return reinterpret_cast<PrefetchScanState*>(node); }

Node* create_state(CustomScan* cs) {
    auto* st = static_cast<PrefetchScanState*>(palloc0(sizeof(PrefetchScanState)));
    NodeSetTag(st, T_CustomScanState);
    st->css.methods = &kExecMethods;
    return reinterpret_cast<Node*>(st);
}

// PostgreSQL 15 gives a custom scan a virtual scan slot and compiles its qual
// and projection for one (they then never deform a tuple). The heap hands
// out buffer tuples, so the scan gets the table's own kind of slot and they
// are compiled again for it (the first ones are left unused). The node's
// subPlan list must then name the SubPlans of the new projection and qual,
// both: ExecReScan passes changed outer parameters on to them through it
// (a SubPlan of the select list that hashes or materializes rows depending
// on an outer parameter would otherwise reuse them stale), and EXPLAIN shows
// them from it.
void use_table_slot(CustomScanState* node, EState* estate, const CustomScan* cs) {
    Relation rel = node->ss.ss_currentRelation;
    node->ss.ps.subPlan = NIL;  // the first projection's and qual's: set up again below
    ExecInitScanTupleSlot(estate, &node->ss, RelationGetDescr(rel), table_slot_callbacks(rel));
    ExecAssignScanProjectionInfoWithVarno(&node->ss, cs->scan.scanrelid);
    node->ss.ps.qual = ExecInitQual(cs->scan.plan.qual, &node->ss.ps);
}

void begin_scan(CustomScanState* node, EState* estate, int) {
    PrefetchScanState* st = state_of(node);
    auto* cs = reinterpret_cast<CustomScan*>(node->ss.ps.plan);
    use_table_slot(node, estate, cs);
    st->nprobes = list_length(cs->custom_exprs);
    for (int i = 0; i < st->nprobes; ++i) {
        Probe* p = &st->probes[i];
        List* planned = static_cast<List*>(list_nth(cs->custom_private, i));
        auto* filter = static_cast<Expr*>(list_nth(cs->custom_exprs, i));
        p->known = linitial_int(planned);
        p->attno = AttrNumber(lsecond_int(planned));
        p->filter = ExecInitExpr(filter, &node->ss.ps);
        p->exec_param = -1;
        if (IsA(filter, Param) && reinterpret_cast<Param*>(filter)->paramkind == PARAM_EXEC)
            p->exec_param = reinterpret_cast<Param*>(filter)->paramid;
        item_hasher_init(&p->hasher, Oid(lthird_int(planned)), estate->es_query_cxt);
    }
    st->block = InvalidBlockNumber;
    st->backoff = kMinBackoff;
    // The scan reads the shared objects it looks up in before the functions
    // of its statement run: their files are checked again first.
    shared::begin_check_round();
}

// The filter argument's value, if the scan may read it now.
bool filter_value(PrefetchScanState* st, Probe* p, Datum* value) {
    ExprContext* econtext = st->css.ss.ps.ps_ExprContext;
    bool isnull;
    if (p->exec_param >= 0) {
        const ParamExecData* prm = &econtext->ecxt_param_exec_vals[p->exec_param];
        if (prm->execPlan != nullptr) return false;  // an InitPlan not run yet: the function runs it
        *value = prm->value;
        isnull = prm->isnull;
    } else {
        *value = ExecEvalExprSwitchContext(p->filter, econtext, &isnull);
    }
    return !isnull;
}

// Sets p's target if its filter can be read now; value filters once per
// (re)scan, shared objects at every page (the entry the function opened may
// have been replaced since).
void resolve(PrefetchScanState* st, Probe* p) {
    const Kind kind = prefetchable(p->known).kind;
    const bool value_filter = kind == Kind::bloom_value || kind == Kind::cbf_value;
    if (p->resolved && value_filter) return;
    Datum d;
    // Unresolved until shown otherwise: a target, a prefetch or answers kept
    // from an earlier filter (a rescan's) would name that filter's memory.
    p->resolved = p->prefetch = false;
    p->more.n = 0;
    p->answers.valueid = InvalidOid;
    if (!filter_value(st, p, &d)) return;
    MemoryContext cxt = st->css.ss.ps.state->es_query_cxt;
    switch (kind) {
        case Kind::bloom_value: p->resolved = bloom_value_target(d, &p->hasher, &p->fetched, cxt, &p->target); break;
        case Kind::cbf_value: p->resolved = cbf_value_target(d, &p->hasher, &p->fetched, cxt, &p->target); break;
        case Kind::shared_bloom:
        case Kind::shared_cbf: {
            auto* v = reinterpret_cast<struct varlena*>(DatumGetPointer(d));  // the object's name
            if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v)) return;
            p->resolved = (kind == Kind::shared_bloom ? shared_bloom_target : shared_cbf_target)(
                VARDATA_ANY(v), int(VARSIZE_ANY_EXHDR(v)), prefetchable(p->known).need, &p->target, &p->more);
            break;
        }
    }
    uint64_t bytes = p->target.bytes;
    for (int j = 0; j < p->more.n; ++j) bytes += p->more.t[j].bytes;
    p->prefetch = p->resolved && bytes >= kPrefetchFromBytes;
    // A stored value's lookups have no side effects and its identity is its
    // TOAST pointer; an in-memory value's address may hold another one later.
    auto* raw = reinterpret_cast<struct varlena*>(DatumGetPointer(d));
    if (p->prefetch && value_filter) p->answers = stored_id(raw);
}

// Hashes row `index` of the current page for every probe and starts loading
// the lines its lookups will touch; records the first probe's digest.
void prefetch_row(PrefetchScanState* st, HeapScanDesc hs, int index) {
    st->rows[index].valid = false;
    const Page page = BufferGetPage(hs->rs_cbuf);
    const ItemId lp = PageGetItemId(page, hs->rs_vistuples[index]);
    HeapTupleData tuple;
    tuple.t_data = reinterpret_cast<HeapTupleHeader>(PageGetItem(page, lp));
    tuple.t_len = ItemIdGetLength(lp);
    const TupleDesc desc = RelationGetDescr(st->css.ss.ss_currentRelation);
    for (int i = 0; i < st->nprobes; ++i) {
        const Probe* p = &st->probes[i];
        if (!p->prefetch && !(i == 0 && p->resolved)) continue;  // the first probe's digest serves row_digest
        bool isnull;
        const Datum d = heap_getattr(&tuple, p->attno, desc, &isnull);
        if (isnull) continue;  // (no function hashes a NULL item)
        if (TupleDescAttr(desc, p->attno - 1)->attlen == -1) {
            auto* v = reinterpret_cast<struct varlena*>(DatumGetPointer(d));
            if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v)) continue;  // the function detoasts it
        }
        const sketch::Hash128 h = hash_item(&p->hasher, d, p->target.seed);
        if (p->prefetch) {
            prefetch_item(p->target, h);
            for (int j = 0; j < p->more.n; ++j) prefetch_item(p->more.t[j], h);
            if (p->target.object != nullptr) shared::prefetch_pending(p->target.object, h);
        }
        if (i == 0) st->rows[index] = Digest{true, d, h};
    }
}

// Rows to read ahead: kLinesAhead over the lines of one row's lookups.
int window_rows(const PrefetchScanState* st) {
    uint32_t lines = 0;
    for (int i = 0; i < st->nprobes; ++i)
        if (st->probes[i].prefetch) {
            lines += lines_per_item(st->probes[i].target);
            for (int j = 0; j < st->probes[i].more.n; ++j) lines += lines_per_item(st->probes[i].more.t[j]);
        }
    return std::max(kMinAhead, int(kLinesAhead / std::max(lines, 1u)));
}

// At a page change: judges the page that read ahead (see kJudgeRows) and
// decides whether this one does.
void start_page(PrefetchScanState* st, BlockNumber block) {
    if (st->reading && st->published >= kJudgeRows) {
        const bool looked_up = (row_digest.hits - st->hits_at) * 4 >= st->published;
        st->paused = looked_up ? 0 : st->backoff;
        st->backoff = looked_up ? kMinBackoff : std::min(st->backoff * 2, kMaxBackoff);
        st->published = 0;
        st->hits_at = row_digest.hits;
    }
    const bool was_reading = st->reading;
    st->reading = false;
    if (st->paused > 0) {
        --st->paused;
        ++st->n_pages_paused;
    } else {
        for (int i = 0; i < st->nprobes; ++i) {
            const bool was_resolved = st->probes[i].resolved;
            resolve(st, &st->probes[i]);
            st->reading |= st->probes[i].prefetch;
            const Kind kind = prefetchable(st->probes[i].known).kind;
            const bool value_filter = kind == Kind::bloom_value || kind == Kind::cbf_value;
            if (st->probes[i].prefetch && !(value_filter && was_resolved)) ++st->n_filters;
        }
        if (st->reading) ++st->n_pages_ahead;
    }
    if (st->reading && !was_reading) {
        st->published = 0;
        st->hits_at = row_digest.hits;
    }
    st->block = block;
    if (st->reading) st->window = window_rows(st);
}

// Publishes the digest of the row being returned, if it was read ahead. Runs
// at every row, and before any lookup can see it: row_digest never names an
// item of a page the scan has let go of.
void publish(PrefetchScanState* st, int current) {
    const Digest& d = st->rows[current];
    if (!st->reading || !d.valid) {
        row_digest.typid = InvalidOid;
        return;
    }
    row_digest.item = d.item;
    row_digest.typid = st->probes[0].hasher.typid;
    row_digest.seed = st->probes[0].target.seed;
    row_digest.h = d.h;
    row_digest.filter = st->probes[0].answers;
    row_digest.target = &st->probes[0].target;
    ++st->published;
}

// Called with the row just fetched as the page's current one: keeps the
// window of rows from it read ahead, and publishes its digest.
void read_ahead(PrefetchScanState* st, HeapScanDesc hs) {
    if ((hs->rs_base.rs_flags & SO_ALLOW_PAGEMODE) == 0) {
        row_digest.typid = InvalidOid;
        return;
    }
    const int current = hs->rs_cindex;
    if (hs->rs_cblock != st->block) {
        start_page(st, hs->rs_cblock);
        st->ahead = current;
    }
    if (st->reading) {
        const int last = std::min(current + st->window, int(hs->rs_ntuples) - 1);  // uint32 from 18
        if (st->ahead <= last) {
            MemoryContext old = MemoryContextSwitchTo(st->css.ss.ps.ps_ExprContext->ecxt_per_tuple_memory);
            st->n_rows_ahead += uint64_t(last + 1 - st->ahead);
            for (; st->ahead <= last; ++st->ahead) prefetch_row(st, hs, st->ahead);
            MemoryContextSwitchTo(old);
        }
    }
    publish(st, current);
}

TupleTableSlot* next_row(ScanState* ss) {
    EState* estate = ss->ps.state;
    if (ss->ss_currentScanDesc == nullptr)
        ss->ss_currentScanDesc = table_beginscan(ss->ss_currentRelation, estate->es_snapshot, 0, nullptr);
    TupleTableSlot* slot = ss->ss_ScanTupleSlot;
    const bool got = table_scan_getnextslot(ss->ss_currentScanDesc, estate->es_direction, slot);
    auto* st = reinterpret_cast<PrefetchScanState*>(ss);
    if (got && ScanDirectionIsForward(estate->es_direction)) {
        read_ahead(st, reinterpret_cast<HeapScanDesc>(ss->ss_currentScanDesc));
    } else {
        // The heap may read this page again before the scan moves forward
        // (and prune it meanwhile): its rows are read ahead afresh then.
        row_digest.typid = InvalidOid;
        st->block = InvalidBlockNumber;
    }
    return got ? slot : nullptr;
}

bool recheck_row(ScanState*, TupleTableSlot*) { return true; }

TupleTableSlot* exec_scan(CustomScanState* node) {
    return ExecScan(&node->ss, next_row, recheck_row);
}

void end_scan(CustomScanState* node) {
    PrefetchScanState* st = state_of(node);
    row_digest.typid = InvalidOid;
    for (int i = 0; i < st->nprobes; ++i) release_filter(&st->probes[i].fetched);
    if (node->ss.ss_currentScanDesc != nullptr) table_endscan(node->ss.ss_currentScanDesc);
}

// As a Seq Scan's rescan, ExecScanReScan included (it clears the scan slot,
// which WHERE CURRENT OF reads, and EvalPlanQual's per-relation state).
void rescan(CustomScanState* node) {
    PrefetchScanState* st = state_of(node);
    row_digest.typid = InvalidOid;
    st->block = InvalidBlockNumber;
    for (int i = 0; i < st->nprobes; ++i) st->probes[i].resolved = false;  // parameters may have changed
    if (node->ss.ss_currentScanDesc != nullptr) table_rescan(node->ss.ss_currentScanDesc, nullptr);
    ExecScanReScan(&node->ss);
}

// Parallel: the blocks are handed out as a Parallel Seq Scan hands them out.
Size estimate_dsm(CustomScanState* node, ParallelContext*) {
    return table_parallelscan_estimate(node->ss.ss_currentRelation, node->ss.ps.state->es_snapshot);
}

void initialize_dsm(CustomScanState* node, ParallelContext*, void* coordinate) {
    auto* pscan = static_cast<ParallelTableScanDesc>(coordinate);
    table_parallelscan_initialize(node->ss.ss_currentRelation, pscan, node->ss.ps.state->es_snapshot);
    node->ss.ss_currentScanDesc = table_beginscan_parallel(node->ss.ss_currentRelation, pscan);
}

void reinitialize_dsm(CustomScanState* node, ParallelContext*, void* coordinate) {
    table_parallelscan_reinitialize(node->ss.ss_currentRelation, static_cast<ParallelTableScanDesc>(coordinate));
}

void initialize_worker(CustomScanState* node, shm_toc*, void* coordinate) {
    node->ss.ss_currentScanDesc =
        table_beginscan_parallel(node->ss.ss_currentRelation, static_cast<ParallelTableScanDesc>(coordinate));
}

void explain_scan(CustomScanState* node, List*, ExplainState* es) {
    PrefetchScanState* st = state_of(node);
    const Oid relid = RelationGetRelid(node->ss.ss_currentRelation);
    StringInfoData s;
    initStringInfo(&s);
    for (int i = 0; i < st->nprobes; ++i)
        appendStringInfo(&s, "%s%s(%s)", i > 0 ? ", " : "", prefetchable(st->probes[i].known).symbol,
                         get_attname(relid, st->probes[i].attno, false));
    ExplainPropertyText("Prefetch", s.data, es);
    if (es->analyze) {
        ExplainPropertyInteger("Rows Read Ahead", nullptr, int64(st->n_rows_ahead), es);
        ExplainPropertyInteger("Pages Read Ahead", nullptr, int64(st->n_pages_ahead), es);
        ExplainPropertyInteger("Pages Paused", nullptr, int64(st->n_pages_paused), es);
        ExplainPropertyInteger("Filters Resolved", nullptr, int64(st->n_filters), es);
    }
}

const CustomExecMethods kExecMethods = {
    "SketchPrefetch", begin_scan,       exec_scan,        end_scan,          rescan,
    nullptr,          nullptr,          estimate_dsm,     initialize_dsm,    reinitialize_dsm,
    initialize_worker, nullptr,         explain_scan,
};

}  // namespace

const CustomScanMethods kScanMethods = {"SketchPrefetch", create_state};

}  // namespace sketch_pg::prefetch_scan

namespace sketch_pg {

// A scan ended by an error is not ended by the executor: its digest would
// name a page it no longer holds, where another value may come to sit.
static void forget_digest_at_xact_end(XactEvent, void*) { row_digest.typid = InvalidOid; }
static void forget_digest_at_subxact_abort(SubXactEvent event, SubTransactionId, SubTransactionId, void*) {
    if (event == SUBXACT_EVENT_ABORT_SUB) row_digest.typid = InvalidOid;
}

void prefetch_scan_init() {
    RegisterCustomScanMethods(&prefetch_scan::kScanMethods);
    RegisterXactCallback(forget_digest_at_xact_end, nullptr);
    RegisterSubXactCallback(forget_digest_at_subxact_abort, nullptr);
    prefetch_scan::planner_init();
}

}  // namespace sketch_pg
