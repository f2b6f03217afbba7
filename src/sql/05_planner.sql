-- The planner support function of the functions the prefetching scan reads
-- ahead for (docs/performance.md, "The prefetching scan"). It changes no plan by itself: the
-- planner calling it loads the library, whose planner hook then sees the
-- query that named the function.
CREATE FUNCTION sketchshare_support(internal) RETURNS internal
AS 'MODULE_PATHNAME', 'sketchshare_support' LANGUAGE C STRICT;
COMMENT ON FUNCTION sketchshare_support(internal) IS
'planner support of the lookup functions: loads the library at planning so the prefetching scan can be planned';
