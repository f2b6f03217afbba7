-- sketch_hash against PostgreSQL's own 64-bit hashes over the same rows.
-- @name hashint8extended
SELECT count(hashint8extended(x, 0)) FROM t;
-- @name sketch_hash_bigint vs hashint8extended
SELECT count(sketch_hash(x)) FROM t;
-- @name hashtextextended
SELECT count(hashtextextended(s, 0)) FROM t;
-- @name sketch_hash_text vs hashtextextended
SELECT count(sketch_hash(s)) FROM t;
