-- bloom: bad input of every kind is a clear ERROR with a SQLSTATE.
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- n, fpr
SELECT pg_temp.err($$SELECT bloom_empty(0, 0.01)$$) AS n_zero;
SELECT pg_temp.err($$SELECT bloom_empty(-5, 0.01)$$) AS n_negative;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0)$$) AS fpr_zero;
SELECT pg_temp.err($$SELECT bloom_empty(10, 1)$$) AS fpr_one;
SELECT pg_temp.err($$SELECT bloom_empty(10, 1.5)$$) AS fpr_above_one;
SELECT pg_temp.err($$SELECT bloom_empty(10, 'NaN')$$) AS fpr_nan;
SELECT pg_temp.err($$SELECT bloom_capacity_for(0, 0.01)$$) AS capacity_n_zero;
SELECT pg_temp.err($$SELECT bloom_fpr_for(-1, 100, 'classic<3>')$$) AS fpr_for_negative_n;
SELECT pg_temp.err($$SELECT bloom_fpr_for(1, -100, 'classic<3>')$$) AS fpr_for_negative_bits;
SELECT bloom_empty(NULL, 0.01) IS NULL AS null_n_is_null;
-- a NULL layout is the default; a NULL seed is NULL, as for bloom_empty_bits, not seed 0
SELECT bloom_empty(10, 0.01, NULL) = bloom_empty(10, 0.01) AS null_layout_is_default,
       bloom_empty(10, 0.01, NULL, NULL) IS NULL AS null_seed_is_null,
       bloom_empty(10, 0.01, seed => NULL) IS NULL AS null_named_seed_is_null,
       bloom_empty_bits(64, 'classic<2>', NULL) IS NULL AS bits_null_seed_is_null;
-- layouts
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'foo')$$) AS unknown_layout;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, '')$$) AS empty_layout;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'block<uint128,3>')$$) AS unknown_block;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'block<uint64[3],3>')$$) AS bad_array_block;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'block<uint64,0>')$$) AS kp_zero;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'multiblock<uint64,33>')$$) AS kp_too_big;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, '33*block<uint64,3>')$$) AS k_too_big;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'classic<0>')$$) AS classic_k_zero;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'classic<99999999999999999999>')$$) AS classic_k_huge;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'cbf')$$) AS cbf_without_k;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'block<uint64,5>/9')$$) AS stride_too_big;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'block<uint64,5>/0')$$) AS stride_zero;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'fast_multiblock32<8>x')$$) AS trailing_text;
SELECT pg_temp.err($$SELECT bloom_empty_bits(100, 'fast_multiblock32')$$) AS bits_need_kp;
SELECT pg_temp.err($$SELECT bloom_empty_bits(0, 'classic<3>')$$) AS bits_zero;
-- sizes beyond the limit
SELECT pg_temp.err($$SELECT bloom_empty(1000000000000, 1e-9)$$) AS too_many_items;
SELECT pg_temp.err($$SELECT bloom_empty(10000000000, 0.01, 'cbf<7>')$$) AS cbf_too_big;
SELECT pg_temp.err($$SELECT bloom_empty_bits(1099511627776, 'classic<3>')$$) AS too_many_bits;
-- the limit keeps the text form within 1 GB: one bit more, or a cbf<k> array
-- whose power of two would pass it, is refused
SELECT pg_temp.err($$SELECT bloom_empty_bits(4294934529, 'classic<7>')$$) AS one_bit_too_many;
SELECT pg_temp.err($$SELECT bloom_empty_bits(4294934528, 'cbf<3>')$$) AS cbf_rounds_past_limit;
SELECT pg_temp.err($$SELECT bloom_capacity_for(1000000000000, 1e-9, 'block<uint64,5>')$$) AS capacity_too_big;
-- combining different filters
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'classic<3>') | bloom_empty(10, 0.01, 'classic<4>')$$) AS union_layouts;
SELECT pg_temp.err($$SELECT bloom_empty(10, 0.01, 'classic<3>') & bloom_empty(1000, 0.01, 'classic<3>')$$) AS intersect_sizes;
SELECT pg_temp.err($$SELECT bloom_union(bloom_empty(10, 0.01, NULL, 1), bloom_empty(10, 0.01, NULL, 2))$$) AS union_seeds;
SELECT pg_temp.err($$SELECT bloom_union_agg(f) FROM (VALUES (bloom_empty(10, 0.01)), (bloom_empty(20, 0.01))) t(f)$$) AS union_agg_sizes;
SELECT pg_temp.err($$SELECT bloom_intersect_agg(f) FROM (VALUES (bloom_empty(10, 0.01)), (bloom_empty(10, 0.01, 'classic'))) t(f)$$) AS intersect_agg_layouts;
SELECT bloom_empty(10, 0.01) = bloom_empty(10, 0.01, 'classic') AS different_layouts_are_unequal;
-- aggregate arguments
SELECT pg_temp.err($$SELECT bloom_agg(i, i, 0.01) FROM generate_series(1, 3) i$$) AS agg_varying_n;
SELECT pg_temp.err($$SELECT bloom_agg(i, NULL, 0.01) FROM generate_series(1, 3) i$$) AS agg_null_n;
SELECT pg_temp.err($$SELECT bloom_agg(i, 0, 0.01) FROM generate_series(1, 3) i$$) AS agg_n_zero;
SELECT pg_temp.err($$SELECT bloom_agg(i, 10, 0.01, 'nope') FROM generate_series(1, 3) i$$) AS agg_bad_layout;
SELECT pg_temp.err($$SELECT bloom_agg_trans(NULL, 1, 10, 0.01)$$) AS trans_outside_aggregate;
SELECT pg_temp.err($$SELECT bloom_union_trans(bloom_empty(10, 0.01), bloom_empty(10, 0.01))$$) AS union_trans_outside;
-- malformed text
SELECT pg_temp.err($$SELECT 'abc'::bloom$$) AS no_prefix;
SELECT pg_temp.err($$SELECT '\x0'::bloom$$) AS odd_digits;
SELECT pg_temp.err($$SELECT '\xzz'::bloom$$) AS not_hex;
SELECT pg_temp.err($$SELECT 'b64:AQA'::bloom$$) AS base64_not_in_groups;
SELECT pg_temp.err($$SELECT 'b64:AQ=A'::bloom$$) AS base64_padding_inside;
SELECT pg_temp.err($$SELECT 'b64:AR=='::bloom$$) AS base64_bits_past_the_end;
SELECT pg_temp.err($$SELECT 'B64:AQAA'::bloom$$) AS base64_prefix_case;
-- a bad digit deep in a long value, in either form (hex is decoded 16 bytes
-- at a time, base64 checked once after its loop), and the text form of a
-- large filter read back unchanged, as base64 and as 0.1.0's hex in either case
SELECT pg_temp.err($$SELECT overlay(bloom_empty(1000, 0.01)::bytea::text placing 'G' from 301)::bloom$$) AS not_hex_deep;
SELECT pg_temp.err($$SELECT overlay(bloom_empty(1000, 0.01)::text placing '*' from 301)::bloom$$) AS not_base64_deep;
SELECT f::text::bloom = f AS text_round_trip, f::bytea::text::bloom = f AS hex_input,
       ('\x' || upper(substr(f::bytea::text, 3)))::bloom = f AS upper_case_hex_input,
       f::text = 'b64:' || translate(encode(f::bytea, 'base64'), E'\n', '') AS same_as_encode
FROM (SELECT bloom_agg(i, 5000, 0.01) AS f FROM generate_series(1, 3000) i) s;
SELECT pg_temp.err($$SELECT '\x'::bloom$$) AS empty;
SELECT pg_temp.err($$SELECT '\x01'::bloom$$) AS short_header;
-- a valid classic<2> of 64 bits, then the same with one field broken
SELECT '\x010000020100000000000000400000000000000000000000000000000000000000000000'::bloom IS NOT NULL AS valid;
SELECT pg_temp.err($$SELECT '\x040000020100000000000000400000000000000000000000000000000000000000000000'::bloom$$) AS bad_version;
SELECT pg_temp.err($$SELECT '\x010900020100000000000000400000000000000000000000000000000000000000000000'::bloom$$) AS bad_kind;
SELECT pg_temp.err($$SELECT '\x010009020100000000000000400000000000000000000000000000000000000000000000'::bloom$$) AS bad_block;
SELECT pg_temp.err($$SELECT '\x010000000100000000000000400000000000000000000000000000000000000000000000'::bloom$$) AS k_zero;
SELECT pg_temp.err($$SELECT '\x010000022100000000000000400000000000000000000000000000000000000000000000'::bloom$$) AS kp_too_big;
SELECT pg_temp.err($$SELECT '\x010000020100010000000000400000000000000000000000000000000000000000000000'::bloom$$) AS stride_bad;
SELECT pg_temp.err($$SELECT '\x010000020101000000000000400000000000000000000000000000000000000000000000'::bloom$$) AS reserved_set;
SELECT pg_temp.err($$SELECT '\x010000020100000001000000400000000000000000000000000000000000000000000000'::bloom$$) AS reserved_field;
SELECT pg_temp.err($$SELECT '\x010000020100000000000000410000000000000000000000000000000000000000000000'::bloom$$) AS bits_not_bytes;
SELECT pg_temp.err($$SELECT '\x010000020100000000000000800000000000000000000000000000000000000000000000'::bloom$$) AS size_mismatch;
SELECT pg_temp.err($$SELECT '\x01000002010000000000000040000000000000000000000000000000000000000000000000'::bloom$$) AS trailing_byte;
SELECT pg_temp.err($$SELECT '\x01040303010000000000000060000000000000000000000000000000000000000000000000000000'::bloom$$) AS cbf_not_power_of_two;
SELECT pg_temp.err($$SELECT '\x0104030301000000000000002000000000000000000000000000000000000000'::bloom$$) AS cbf_too_small;
SELECT pg_temp.err($$SELECT '\x0102030104000000000000008000000000000000000000000000000000000000000000000000000000000000'::bloom$$) AS fm32_wrong_block;
SELECT pg_temp.err($$SELECT '\x01000301050000000000000048000000000000000000000000000000000000000000000000'::bloom$$) AS block_not_multiple;
-- malformed binary (bytea cast and recv share the validation)
SELECT pg_temp.err($$SELECT '\x00'::bytea::bloom$$) AS bytea_short;
SELECT pg_temp.err($$SELECT '\x040000020100000000000000400000000000000000000000000000000000000000000000'::bytea::bloom$$) AS bytea_version;
SELECT pg_temp.err($$SELECT bloom_from_bytea('\x0100000201000000000000004000000000000000000000000000000000000000000000'::bytea)$$) AS bytea_truncated;
-- version 3 headers whose n or fpr size no filter, and one cut short, are refused (binary and text)
SELECT pg_temp.err($$SELECT overlay(bloom_empty(100, 0.01)::bytea PLACING '\x0000000000000000' FROM 29 FOR 8)::bloom$$) AS v3_n_zero,
       pg_temp.err($$SELECT overlay(bloom_empty(100, 0.01)::bytea PLACING '\x000000000000f87f' FROM 37 FOR 8)::bloom$$) AS v3_fpr_nan,
       pg_temp.err($$SELECT overlay(bloom_empty(100, 0.01)::bytea PLACING '\x000000000000f07f' FROM 37 FOR 8)::bloom$$) AS v3_fpr_inf;
SELECT pg_temp.err($$SELECT overlay(bloom_empty(100, 0.01)::bytea PLACING '\x0000000000000000' FROM 37 FOR 8)::bloom$$) AS v3_fpr_zero,
       pg_temp.err($$SELECT overlay(bloom_empty(100, 0.01)::bytea PLACING '\x000000000000e0bf' FROM 37 FOR 8)::bloom$$) AS v3_fpr_negative,
       pg_temp.err($$SELECT overlay(bloom_empty(100, 0.01)::bytea PLACING '\x000000000000f03f' FROM 37 FOR 8)::bloom$$) AS v3_fpr_one;
SELECT pg_temp.err($$SELECT substr(bloom_empty(100, 0.01)::bytea, 1, 40)::bloom$$) AS v3_cut,
       pg_temp.err($$SELECT ('b64:' || translate(encode(overlay(bloom_empty(100, 0.01)::bytea PLACING '\x0000000000000000' FROM 29 FOR 8), 'base64'), E'\n', ''))::bloom$$) AS v3_text_n_zero;
