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
#include "shared_objects/registry/shared_registry.hpp"
#include "shared_objects/transactional/transactional_adds.hpp"

extern "C" {
#include "access/detoast.h"
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
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
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

// A filter from another table is read by the scan itself only while that
// table is small: kMaxJoinedRows rows at most, matched to this table's rows
// by a key; without a key every row of this one is read ahead in each of
// them, kMaxUnkeyedRows at most.
constexpr int kMaxJoinedRows = 4096;
constexpr int kMaxUnkeyedRows = 4;
// A keyed lookup's filters, when their stored values come to at most this
// much, are fetched by the scan and held for the query: the function then
// finds each row's filter held instead of fetching it again whenever the rows
// turn to another key (it keeps kRecentFilters of its own).
constexpr uint64_t kJoinedFetchBytes = uint64_t(256) << 20;

// ---- execution ----

// One row of the other table of a joined lookup: its filter (a stored
// value's TOAST pointer, or an object's name) and its key.
struct JoinedFilter {
    Datum filter;
    Datum key;
    uint32 key_hash;
    FetchedFilter fetched;  // a stored value filter, shared with the function's copy
    PrefetchTarget target;
    MoreTargets more;
    bool resolved;
    bool prefetch;
    StoredId answers;  // as Probe's
};

// A lookup whose filter is a column of another table (prefetch_plan.cpp,
// joined_probe): that table's rows as the scan read them at its first page,
// and a hash table from key to row when the query joins the two on a key.
struct Joined {
    Oid relid;
    AttrNumber filter_att;
    AttrNumber key_att;        // in the scanned table; 0: no key
    AttrNumber other_key_att;  // in the other table
    Oid key_op;
    bool read;
    int n;  // rows usable (0 after a refusal: too many, row security)
    JoinedFilter* rows;
    int* slots;  // keyed: indexes into rows by key hash, -1 free
    uint32 mask;
    TypeCacheEntry* key_type;
    Oid key_collation;
    bool fetch;  // keyed, of values within kJoinedFetchBytes: the scan fetches them itself
};

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
    Joined* joined;    // a filter from another table, else nullptr
};

// The first probe's digest of one row of the page, with the filter it was
// made for (a joined lookup's filters differ by row).
struct Digest {
    bool valid;  // false: none (a null or toasted item, the probe not resolved)
    Datum item;
    sketch::Hash128 h;
    uint64_t seed;
    StoredId answers;
    const PrefetchTarget* target;
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
        p->joined = nullptr;
        if (list_length(planned) > 3) {
            p->joined = static_cast<Joined*>(palloc0(sizeof(Joined)));
            p->joined->relid = Oid(list_nth_int(planned, 3));
            p->joined->filter_att = AttrNumber(list_nth_int(planned, 4));
            p->joined->key_att = AttrNumber(list_nth_int(planned, 5));
            p->joined->other_key_att = AttrNumber(list_nth_int(planned, 6));
            p->joined->key_op = Oid(list_nth_int(planned, 7));
        }
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

bool is_value_filter(Kind kind) { return kind == Kind::bloom_value || kind == Kind::cbf_value; }

uint64_t target_bytes(const PrefetchTarget& t, const MoreTargets& more) {
    uint64_t bytes = t.bytes;
    for (int j = 0; j < more.n; ++j) bytes += more.t[j].bytes;
    return bytes;
}

// What the scan prefetches for one filter (or object name) d of a lookup.
struct Resolution {
    FetchedFilter* fetched;
    PrefetchTarget* target;
    MoreTargets* more;
    bool* resolved;
    bool* prefetch;
    StoredId* answers;
};

// Sets r's target for filter d (a stored value fetched first when `fetch`).
// Unresolved until shown otherwise: a target, a prefetch or answers kept
// from an earlier filter (a rescan's) would name that filter's memory.
void resolve_filter(PrefetchScanState* st, const Probe* p, Datum d, bool fetch, const Resolution& r) {
    const Kind kind = prefetchable(p->known).kind;
    *r.resolved = *r.prefetch = false;
    r.more->n = 0;
    r.answers->valueid = InvalidOid;
    MemoryContext cxt = st->css.ss.ps.state->es_query_cxt;
    switch (kind) {
        case Kind::bloom_value: *r.resolved = bloom_value_target(d, &p->hasher, r.fetched, cxt, fetch, r.target); break;
        case Kind::cbf_value: *r.resolved = cbf_value_target(d, &p->hasher, r.fetched, cxt, fetch, r.target); break;
        case Kind::shared_bloom:
        case Kind::shared_cbf: {
            auto* v = reinterpret_cast<struct varlena*>(DatumGetPointer(d));  // the object's name
            if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v)) return;
            *r.resolved = (kind == Kind::shared_bloom ? shared_bloom_target : shared_cbf_target)(
                VARDATA_ANY(v), int(VARSIZE_ANY_EXHDR(v)), prefetchable(p->known).need, r.target, r.more);
            break;
        }
    }
    *r.prefetch = *r.resolved && target_bytes(*r.target, *r.more) >= kPrefetchFromBytes;
    // A stored value's lookups have no side effects and its identity is its
    // TOAST pointer; an in-memory value's address may hold another one later.
    // A joined lookup's filters answer even when small: their rows take turns
    // among them, which the function's own copies follow poorly.
    auto* raw = reinterpret_cast<struct varlena*>(DatumGetPointer(d));
    if (*r.resolved && (*r.prefetch || p->joined != nullptr) && is_value_filter(kind)) *r.answers = stored_id(raw);
}

void resolve_joined(PrefetchScanState* st, Probe* p);

// Sets p's target if its filter can be read now; value filters once per
// (re)scan, shared objects at every page (the entry the function opened may
// have been replaced since). A joined lookup's filters likewise, each row's.
void resolve(PrefetchScanState* st, Probe* p) {
    const bool value_filter = is_value_filter(prefetchable(p->known).kind);
    if (p->joined != nullptr) {
        resolve_joined(st, p);
        return;
    }
    if (p->resolved && value_filter) return;
    const Resolution r{&p->fetched, &p->target, &p->more, &p->resolved, &p->prefetch, &p->answers};
    Datum d;
    if (!filter_value(st, p, &d)) {
        p->resolved = p->prefetch = false;
        p->answers.valueid = InvalidOid;
        return;
    }
    resolve_filter(st, p, d, false, r);
}

// ---- joined lookups: the other table's filters ----

uint32 key_hash(const Joined* j, Datum key) {
    return DatumGetUInt32(FunctionCall1Coll(&j->key_type->hash_proc_finfo, j->key_collation, key));
}

// The row of j whose key equals `key`, or nullptr.
JoinedFilter* joined_by_key(const Joined* j, Datum key) {
    const uint32 h = key_hash(j, key);
    for (uint32 i = h & j->mask;; i = (i + 1) & j->mask) {
        const int r = j->slots[i];
        if (r < 0) return nullptr;
        JoinedFilter* f = &j->rows[r];
        if (f->key_hash == h &&
            DatumGetBool(FunctionCall2Coll(&j->key_type->eq_opr_finfo, j->key_collation, f->key, key)))
            return f;
    }
}

// Whether a key is the type's own hashable equality, whose functions the
// scan can call: set up j->key_type and key_collation if so.
bool usable_key(Joined* j, Relation rel) {
    const Form_pg_attribute a = TupleDescAttr(RelationGetDescr(rel), j->other_key_att - 1);
    j->key_type = lookup_type_cache(a->atttypid, TYPECACHE_HASH_PROC_FINFO | TYPECACHE_EQ_OPR_FINFO);
    j->key_collation = a->attcollation;
    return j->key_type->eq_opr == j->key_op && OidIsValid(j->key_type->hash_proc);
}

// Reads the other table of j with the query's snapshot, once: its rows'
// filters (and keys), with a hash table by key; whether the scan fetches
// them itself (kJoinedFetchBytes). Not where row security applies to it, a
// key the scan cannot hash, or past the row limits: then there is nothing to
// read ahead (n = 0).
void read_joined(PrefetchScanState* st, Joined* j, int known) {
    j->read = true;
    j->n = 0;
    if (check_enable_rls(j->relid, InvalidOid, true) == RLS_ENABLED) return;
    EState* estate = st->css.ss.ps.state;
    MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);
    Relation rel = table_open(j->relid, AccessShareLock);
    const bool keyed = j->key_att != 0;
    if (!keyed || usable_key(j, rel)) {
        const int limit = keyed ? kMaxJoinedRows : kMaxUnkeyedRows;
        int room = 4;
        j->rows = static_cast<JoinedFilter*>(palloc0(sizeof(JoinedFilter) * room));
        TupleTableSlot* slot = table_slot_create(rel, nullptr);
        TableScanDesc scan = table_beginscan(rel, estate->es_snapshot, 0, nullptr);
        const Form_pg_attribute fa = TupleDescAttr(RelationGetDescr(rel), j->filter_att - 1);
        while (table_scan_getnextslot(scan, ForwardScanDirection, slot)) {
            bool null_filter, null_key = false;
            const Datum filter = slot_getattr(slot, j->filter_att, &null_filter);
            const Datum key = keyed ? slot_getattr(slot, j->other_key_att, &null_key) : Datum(0);
            if (null_filter || null_key) continue;  // no lookup reads it
            if (j->n == limit) {
                j->n = 0;  // too many to read ahead for
                break;
            }
            if (j->n == room) {
                j->rows = static_cast<JoinedFilter*>(repalloc(j->rows, sizeof(JoinedFilter) * room * 2));
                for (int i = room; i < room * 2; ++i) j->rows[i] = JoinedFilter{};
                room *= 2;
            }
            JoinedFilter* f = &j->rows[j->n++];
            f->filter = datumCopy(filter, fa->attbyval, fa->attlen);
            if (keyed) f->key = datumCopy(key, j->key_type->typbyval, j->key_type->typlen);
        }
        table_endscan(scan);
        ExecDropSingleTupleTableSlot(slot);
    }
    table_close(rel, NoLock);
    if (keyed && is_value_filter(prefetchable(known).kind)) {
        uint64_t stored = 0;
        for (int r = 0; r < j->n; ++r) stored += toast_raw_datum_size(j->rows[r].filter);
        j->fetch = stored <= kJoinedFetchBytes;
    }
    if (keyed && j->n > 0) {
        uint32 size = 2;
        while (size < uint32(j->n) * 2) size <<= 1;
        j->mask = size - 1;
        j->slots = static_cast<int*>(palloc(sizeof(int) * size));
        std::memset(j->slots, -1, sizeof(int) * size);
        for (int r = 0; r < j->n; ++r) {
            JoinedFilter* f = &j->rows[r];
            f->key_hash = key_hash(j, f->key);
            uint32 i = f->key_hash & j->mask;
            while (j->slots[i] >= 0) i = (i + 1) & j->mask;
            j->slots[i] = r;
        }
    }
    MemoryContextSwitchTo(old);
}

// Resolves each row of p's other table (read at the first call), and
// prefetches for them once their filters come to kPrefetchFromBytes in all.
// The probe's own target stands for their shape (window_rows).
void resolve_joined(PrefetchScanState* st, Probe* p) {
    Joined* j = p->joined;
    if (!j->read) read_joined(st, j, p->known);
    const bool value_filter = is_value_filter(prefetchable(p->known).kind);
    uint64_t bytes = 0;
    p->resolved = p->prefetch = false;
    for (int i = 0; i < j->n; ++i) {
        JoinedFilter* f = &j->rows[i];
        if (!(f->resolved && value_filter))
            resolve_filter(st, p, f->filter, j->fetch,
                           Resolution{&f->fetched, &f->target, &f->more, &f->resolved, &f->prefetch, &f->answers});
        if (!f->resolved) continue;
        if (!p->resolved) p->target = f->target;
        p->resolved = true;
        bytes += target_bytes(f->target, f->more);
    }
    p->prefetch = bytes >= kPrefetchFromBytes;
    for (int i = 0; i < j->n; ++i) j->rows[i].prefetch = p->prefetch && j->rows[i].resolved;
}

// The filters of j that row `tuple` of this table is looked up in: its key's
// row, or every row without a key. Returns how many it put in out.
int joined_filters_of(const Joined* j, HeapTuple tuple, TupleDesc desc, JoinedFilter** out) {
    if (j->key_att == 0) {
        for (int i = 0; i < j->n; ++i) out[i] = &j->rows[i];
        return j->n;
    }
    bool isnull;
    const Datum key = heap_getattr(tuple, j->key_att, desc, &isnull);
    if (isnull) return 0;
    if (TupleDescAttr(desc, j->key_att - 1)->attlen == -1) {
        auto* v = reinterpret_cast<struct varlena*>(DatumGetPointer(key));
        if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v)) return 0;
    }
    out[0] = joined_by_key(j, key);
    return out[0] != nullptr ? 1 : 0;
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
        JoinedFilter* joined[kMaxUnkeyedRows];
        const int nfilters = p->joined != nullptr ? joined_filters_of(p->joined, &tuple, desc, joined) : 1;
        for (int k = 0; k < nfilters; ++k) {
            // (a joined row's fields stand in for the probe's)
            const JoinedFilter* f = p->joined != nullptr ? joined[k] : nullptr;
            if (f != nullptr && !f->resolved) continue;
            const PrefetchTarget& target = f != nullptr ? f->target : p->target;
            const MoreTargets& more = f != nullptr ? f->more : p->more;
            const sketch::Hash128 h = hash_item(&p->hasher, d, target.seed);
            if (f != nullptr ? f->prefetch : p->prefetch) {
                prefetch_item(target, h);
                for (int j = 0; j < more.n; ++j) prefetch_item(more.t[j], h);
                if (target.object != nullptr) shared::prefetch_pending(target.object, h);
            }
            if (i == 0 && k == 0)
                st->rows[index] = Digest{true, d, h, target.seed, f != nullptr ? f->answers : p->answers, &target};
        }
    }
}

// Rows to read ahead: kLinesAhead over the lines of one row's lookups.
int window_rows(const PrefetchScanState* st) {
    uint32_t lines = 0;
    for (int i = 0; i < st->nprobes; ++i) {
        const Probe* p = &st->probes[i];
        if (!p->prefetch) continue;
        uint32_t one = lines_per_item(p->target);
        for (int j = 0; j < p->more.n; ++j) one += lines_per_item(p->more.t[j]);
        // (a joined lookup without a key reads each row ahead in every filter)
        lines += p->joined != nullptr && p->joined->key_att == 0 ? one * uint32_t(p->joined->n) : one;
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
    row_digest.seed = d.seed;
    row_digest.h = d.h;
    row_digest.filter = d.answers;
    row_digest.target = d.target;
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
    for (int i = 0; i < st->nprobes; ++i) {
        release_filter(&st->probes[i].fetched);
        if (const Joined* j = st->probes[i].joined)
            for (int r = 0; r < j->n; ++r) release_filter(&j->rows[r].fetched);
    }
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
    for (int i = 0; i < st->nprobes; ++i) {
        const Probe* p = &st->probes[i];
        appendStringInfo(&s, "%s%s(%s)", i > 0 ? ", " : "", prefetchable(p->known).symbol,
                         get_attname(relid, p->attno, false));
        if (const Joined* j = p->joined) {
            appendStringInfo(&s, " in %s.%s", quote_identifier(get_rel_name(j->relid)),
                             quote_identifier(get_attname(j->relid, j->filter_att, false)));
            if (j->key_att != 0)
                appendStringInfo(&s, " by %s", quote_identifier(get_attname(relid, j->key_att, false)));
        }
    }
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
