#!/usr/bin/env bash
# sketchshare.max_shared_object_size set by a superuser (server, database,
# role) holds against every way another role has to set it: a connection
# option (PGOPTIONS), SET before or after the library is loaded in its
# session, set_config, a function's SET clause, ALTER ROLE of itself. Each
# psql below is a new session, in which the library is not loaded yet.
set -euo pipefail
source "$SKETCH_ROOT/test/scripts/lib/common.sh"
start_test sketchshare_size_limit "DROP ROLE IF EXISTS sketchshare_limited" \
    "LOAD 'sketchshare'" "ALTER SYSTEM RESET sketchshare.max_shared_object_size" "SELECT pg_reload_conf()"

q "CREATE ROLE sketchshare_limited LOGIN" >/dev/null
q "GRANT EXECUTE ON FUNCTION shared_cbf_create(text, bigint, float8, text, int) TO sketchshare_limited" >/dev/null
q "GRANT CREATE ON SCHEMA public TO sketchshare_limited" >/dev/null
big="SELECT shared_cbf_create('big', 10000000)"  # a 64 MiB file
small="SELECT shared_cbf_create('small', 1000)"  # 20 kB

# refused_everywhere LABEL LIMIT: the 64 MiB create is refused
# however the limited role tries to lift the limit.
refused_everywhere() {
    local label=$1 limit=$2 out
    out=$(PGUSER=sketchshare_limited psql -X -At -c "SHOW sketchshare.max_shared_object_size; $big" 2>&1) &&
        fail "$label: no error: $out"
    grep -q "over the limit of $limit" <<<"$out" || fail "$label: plain session: $out"
    out=$(PGUSER=sketchshare_limited PGOPTIONS="-c sketchshare.max_shared_object_size=-1" psql -X -At -c "$big" 2>&1) &&
        fail "$label: PGOPTIONS=-1 lifted the limit: $out"
    grep -q "max_shared_object_size" <<<"$out" || fail "$label: PGOPTIONS=-1: $out"
    echo "ok: $label: PGOPTIONS -1 refused: $(grep ERROR <<<"$out")"
    out=$(PGUSER=sketchshare_limited PGOPTIONS="-c sketchshare.max_shared_object_size=2GB" psql -X -At -c "$small" 2>&1) &&
        fail "$label: PGOPTIONS=2GB allowed a create: $out"
    echo "ok: $label: PGOPTIONS 2GB refused even a small create: $(grep ERROR <<<"$out")"
    out=$(PGUSER=sketchshare_limited psql -X -At -c "SET sketchshare.max_shared_object_size = -1" -c "$big" 2>&1) &&
        fail "$label: SET before load lifted the limit: $out"
    grep -q "over the limit of $limit" <<<"$out" || fail "$label: SET before load: $out"
    echo "ok: $label: SET before the library loads: $(grep ERROR <<<"$out")"
    out=$(PGUSER=sketchshare_limited psql -X -At -c "SELECT shared_cbf_contains('nosuch', 1)" \
        -c "SET sketchshare.max_shared_object_size = -1" -c "$big" 2>&1) && fail "$label: SET after load: $out"
    grep -q 'permission denied to set parameter' <<<"$out" || fail "$label: SET after load: $out"
    echo "ok: $label: SET after the library loads refused"
    out=$(PGUSER=sketchshare_limited psql -X -At -c "SELECT set_config('sketchshare.max_shared_object_size', '-1', false)" \
        -c "$big" 2>&1) && fail "$label: set_config: $out"
    grep -q "over the limit of $limit\|permission denied to set parameter" <<<"$out" || fail "$label: set_config: $out"
    echo "ok: $label: set_config refused"
    out=$(PGUSER=sketchshare_limited psql -X -At -c "CREATE FUNCTION public.lift() RETURNS void LANGUAGE sql
            SET sketchshare.max_shared_object_size = -1 AS \$\$ $big \$\$" 2>&1) &&
        fail "$label: a function with a SET clause was created: $out"
    grep -q 'permission denied to set parameter' <<<"$out" || fail "$label: function SET clause: $out"
    echo "ok: $label: a function SET clause refused (library not loaded)"
    out=$(PGUSER=sketchshare_limited psql -X -At -c "SELECT shared_cbf_contains('nosuch', 1)" \
        -c "CREATE FUNCTION public.lift() RETURNS void LANGUAGE sql
            SET sketchshare.max_shared_object_size = -1 AS \$\$ $big \$\$" 2>&1) &&
        fail "$label: a function with a SET clause was created: $out"
    grep -q 'permission denied to set parameter' <<<"$out" || fail "$label: function SET clause: $out"
    echo "ok: $label: a function SET clause refused (library loaded)"
    out=$(PGUSER=sketchshare_limited psql -X -At -c "ALTER ROLE sketchshare_limited SET sketchshare.max_shared_object_size = -1" 2>&1) &&
        fail "$label: ALTER ROLE of itself: $out"
    echo "ok: $label: ALTER ROLE of itself refused: $(grep ERROR <<<"$out")"
    [ "$(q "SELECT count(*) FROM sketchshare_shared.objects")" = 0 ] || fail "$label: an object was made"
}

# A function that a superuser made with a SET clause does not lift it for
# another role either.
q "CREATE FUNCTION public.lift_by_superuser() RETURNS void LANGUAGE sql
   SET sketchshare.max_shared_object_size = -1 AS \$\$ $big \$\$" >/dev/null
q "GRANT EXECUTE ON FUNCTION public.lift_by_superuser() TO sketchshare_limited" >/dev/null

q "ALTER DATABASE $DB SET sketchshare.max_shared_object_size = '1MB'" >/dev/null
refused_everywhere "database limit" 1MB
check_error "database limit: a superuser's function with a SET clause" "over the limit of 1MB" \
    "SET ROLE sketchshare_limited; SELECT public.lift_by_superuser()"
# In a session whose connection option hid the limit, a limit that a
# superuser sets again (here a SECURITY DEFINER function's SET clause) holds.
q "CREATE FUNCTION public.create_as_admin(n bigint) RETURNS void LANGUAGE sql SECURITY DEFINER
   SET sketchshare.max_shared_object_size = '1MB' AS \$\$ SELECT shared_cbf_create('by_admin_' || n, n) \$\$" >/dev/null
q "GRANT EXECUTE ON FUNCTION public.create_as_admin(bigint) TO sketchshare_limited" >/dev/null
out=$(PGUSER=sketchshare_limited PGOPTIONS="-c sketchshare.max_shared_object_size=-1" psql -X -At \
    -c "SELECT public.create_as_admin(1000)" -c "SELECT public.create_as_admin(10000000)" 2>&1) &&
    fail "a superuser's SET clause: no error: $out"
grep -q 'over the limit of 1MB' <<<"$out" || fail "a superuser's SET clause: $out"
check "a superuser's SET clause: the small object was made, the large one refused" \
    "SELECT array_agg(name) = '{by_admin_1000}' FROM shared_objects"
q "SELECT shared_drop('by_admin_1000')" >/dev/null
q "ALTER DATABASE $DB RESET sketchshare.max_shared_object_size" >/dev/null

q "ALTER ROLE sketchshare_limited SET sketchshare.max_shared_object_size = '2MB'" >/dev/null
refused_everywhere "role limit" 2MB
q "ALTER ROLE sketchshare_limited RESET sketchshare.max_shared_object_size" >/dev/null

psql -X -q -c "LOAD 'sketchshare'" -c "ALTER SYSTEM SET sketchshare.max_shared_object_size = '3MB'" \
    -c "SELECT pg_reload_conf()" >/dev/null
sleep 1
refused_everywhere "server limit" 3MB
psql -X -q -c "LOAD 'sketchshare'" -c "ALTER SYSTEM RESET sketchshare.max_shared_object_size" \
    -c "SELECT pg_reload_conf()" >/dev/null
sleep 1

# The default bounds a new object too (1GB), and a superuser's connection
# option is honoured.
[ "$(PGUSER=sketchshare_limited psql -X -At -c "SELECT sketch_hash(1)" -c "SHOW sketchshare.max_shared_object_size" |
    tail -1)" = 1GB ] ||
    fail "the default is not 1GB"
echo "ok: the default is 1GB"
out=$(PGOPTIONS="-c sketchshare.max_shared_object_size=1MB" psql -X -At -c "$big" 2>&1) && fail "superuser option: $out"
grep -q "over the limit of 1MB" <<<"$out" || fail "superuser option: $out"
echo "ok: a superuser's connection option applies"
PGUSER=sketchshare_limited q "$small" >/dev/null
check "the limited role creates what fits" "SELECT count(*) = 1 FROM shared_objects WHERE name = 'small'"
q "REVOKE CREATE ON SCHEMA public FROM sketchshare_limited" >/dev/null
q "DROP OWNED BY sketchshare_limited" >/dev/null
