-- sketchshare 0.1.0 -> 0.2.0 (ALTER EXTENSION sketchshare UPDATE)
\echo Use "ALTER EXTENSION sketchshare UPDATE" to load this file. \quit

-- Each change of 0.2.0 to the SQL objects adds its statements here, so that an
-- updated database ends with the objects a fresh 0.2.0 install creates
-- (test/scripts/upgrade.sh compares the two catalogs). The packaging of 0.2.0
-- (license, META.json, the Debian package) changes no SQL object.
