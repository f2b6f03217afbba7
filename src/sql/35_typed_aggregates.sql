
-- ==== the item aggregates for common item types (docs/citus.md) ====
-- bloom_agg, cbf_agg, reservoir_sample and reservoir_agg take anycompatible
-- items. Citus runs an aggregate on its workers through worker_partial_agg,
-- which refuses one whose declared argument type differs from the actual one
-- and calls the support functions without any expression to resolve a
-- polymorphic type from. So each has an overload per common item type, whose
-- transition (and reservoir_sample's final) function declares that type: the
-- C functions read it from their own declaration. A call picks the overload
-- of its item's type exactly; every type that converts implicitly to one of
-- these has an overload of its own, so no call changes type or hash (a
-- domain over one of them now takes its base type's: a sample of it is an
-- array of the base type).

DO $typed$
DECLARE
    t text;
    item_types CONSTANT text[] := ARRAY['smallint', 'integer', 'bigint', 'numeric', 'real', 'double precision',
        'boolean', 'text', 'character varying', 'character', 'name', '"char"', 'bytea', 'uuid', 'date',
        'timestamp without time zone', 'timestamp with time zone'];
    -- (name, extra arguments, state, transition function, final function or '', C transition symbol, volatility, SSPACE, comment)
    aggs CONSTANT text[][] := ARRAY[
        ['bloom_agg', 'n bigint, fpr float8', 'bloom', 'bloom_agg_trans', 'bloom_agg_final', 'bloom_agg_trans', 'IMMUTABLE', '131072',
         'Bloom filter of the items, sized for n items at false-positive rate fpr in the default layout'],
        ['bloom_agg', 'n bigint, fpr float8, layout text', 'bloom', 'bloom_agg_trans', 'bloom_agg_final', 'bloom_agg_trans', 'IMMUTABLE', '131072',
         'Bloom filter of the items, sized for n items at false-positive rate fpr in the given layout'],
        ['cbf_agg', 'capacity bigint', 'cbf', 'cbf_agg_trans', 'cbf_agg_final', 'cbf_agg_trans', 'IMMUTABLE', '12336',
         'counting Bloom filter of the items (fpr 0.01); NULL items are skipped'],
        ['cbf_agg', 'capacity bigint, fpr float8', 'cbf', 'cbf_agg_trans', 'cbf_agg_final', 'cbf_agg_trans', 'IMMUTABLE', '12336',
         'counting Bloom filter of the items sized for capacity and fpr; NULL items are skipped'],
        ['cbf_agg', 'capacity bigint, fpr float8, layout text', 'cbf', 'cbf_agg_trans', 'cbf_agg_final', 'cbf_agg_trans', 'IMMUTABLE', '12336',
         'counting Bloom filter of the items in a layout (classic, block, ...) sized for capacity and fpr; NULL items are skipped'],
        ['reservoir_sample', 'k integer', 'reservoir', 'reservoir_sample_trans', '', 'reservoir_trans', 'VOLATILE', '1024',
         'A uniform random sample of k of the non-NULL values (all of them when fewer), as an array'],
        ['reservoir_sample', 'k integer, weight double precision', 'reservoir', 'reservoir_sample_trans', '', 'reservoir_trans', 'VOLATILE', '1024',
         'A weighted random sample of k values without replacement, as an array; weights must be finite and > 0'],
        ['reservoir_agg', 'k integer', 'reservoir', 'reservoir_sample_trans', 'reservoir_agg_final', 'reservoir_trans', 'VOLATILE', '1024',
         'A uniform random sample of k of the values as a reservoir value'],
        ['reservoir_agg', 'k integer, weight double precision', 'reservoir', 'reservoir_sample_trans', 'reservoir_agg_final', 'reservoir_trans', 'VOLATILE', '1024',
         'A weighted random sample of k of the values as a reservoir value']];
    args text;
    final text;
    sampling boolean;
BEGIN
    FOREACH t IN ARRAY item_types LOOP
        FOR i IN 1 .. pg_catalog.array_length(aggs, 1) LOOP
            args := pg_catalog.format('item %s, %s', t, aggs[i][2]);
            sampling := aggs[i][1] OPERATOR(pg_catalog.=) 'reservoir_sample';
            -- the transition function of the item type (reservoir_sample and reservoir_agg share theirs)
            EXECUTE pg_catalog.format('CREATE OR REPLACE FUNCTION @extschema@.%s(state @extschema@.%s, %s) RETURNS @extschema@.%s AS %L, %L LANGUAGE C %s CALLED ON NULL INPUT PARALLEL SAFE',
                           aggs[i][4], aggs[i][3], args, aggs[i][3], 'MODULE_PATHNAME', aggs[i][6], aggs[i][7]);
            EXECUTE pg_catalog.format('COMMENT ON FUNCTION @extschema@.%s(state @extschema@.%s, %s) IS %L', aggs[i][4], aggs[i][3], args,
                           pg_catalog.format('transition function of %s for %s items',
                                  CASE WHEN aggs[i][3] OPERATOR(pg_catalog.=) 'reservoir' THEN 'reservoir_sample and reservoir_agg'
                                       ELSE aggs[i][1] END, t));
            final := aggs[i][5];
            IF sampling THEN
                -- the final function declares the array type the aggregate returns, which Citus checks
                final := 'reservoir_sample_final';
                EXECUTE pg_catalog.format('CREATE FUNCTION @extschema@.%s(@extschema@.reservoir, %s) RETURNS %s[] AS %L, %L LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE',
                               final, args, t, 'MODULE_PATHNAME', 'reservoir_sample_final');
                EXECUTE pg_catalog.format('COMMENT ON FUNCTION @extschema@.%s(@extschema@.reservoir, %s) IS %L', final, args,
                               pg_catalog.format('reservoir_sample final function for %s items', t));
            END IF;
            EXECUTE pg_catalog.format('CREATE AGGREGATE @extschema@.%s(%s) (SFUNC = @extschema@.%s, STYPE = @extschema@.%s, FINALFUNC = @extschema@.%s%s, COMBINEFUNC = @extschema@.%s_combine, SSPACE = %s, PARALLEL = SAFE)',
                           aggs[i][1], args, aggs[i][4], aggs[i][3], final,
                           CASE WHEN sampling THEN ', FINALFUNC_EXTRA' ELSE '' END,
                           CASE WHEN aggs[i][3] OPERATOR(pg_catalog.=) 'reservoir' THEN 'reservoir' ELSE aggs[i][3] OPERATOR(pg_catalog.||) '_agg' END,
                           aggs[i][8]);
            EXECUTE pg_catalog.format('COMMENT ON AGGREGATE @extschema@.%s(%s) IS %L', aggs[i][1], args,
                           pg_catalog.format('%s (the overload for %s items)', aggs[i][9], t));
        END LOOP;
    END LOOP;
END
$typed$;
