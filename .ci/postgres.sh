#!/usr/bin/env bash
# Start a throwaway PostgreSQL cluster for the warm-store contract tests.
#
#   bash .ci/postgres.sh [ENV_FILE]      # then: source ENV_FILE
#   source .ci/postgres.sh [ENV_FILE]    # also exports the variables into this shell
#
# - installs Debian's `postgresql` package when no server binaries are found;
# - runs initdb/pg_ctl in a fresh temp dir (as the `postgres` user when run as root),
#   listening on a Unix socket only (no TCP port to collide with), fsync off;
# - creates the database `rolling_graph_test`;
# - writes `export ROLLING_GRAPH_TEST_PG_DSN=…` and `export ROLLING_GRAPH_TEST_PG_STOP=…`
#   to ENV_FILE (default: <tempdir>/env.sh), appends them to $GITHUB_ENV when set, and
#   prints them.
set -euo pipefail

rg_pg_find_bindir() {
    local candidate dir
    if command -v pg_config >/dev/null 2>&1; then
        dir="$(pg_config --bindir 2>/dev/null || true)"
        if [[ -n "$dir" && -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
            echo "$dir"
            return 0
        fi
    fi
    # Debian keeps server binaries off PATH; prefer the newest major version.
    for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [[ -x "$candidate/initdb" && -x "$candidate/pg_ctl" ]]; then
            echo "$candidate"
            return 0
        fi
    done
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
        return 0
    fi
    return 1
}

rg_pg_install() {
    echo "rolling-graph: no PostgreSQL server binaries; installing Debian's postgresql" >&2
    local sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        sudo=(sudo)
    fi
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
}

rg_pg_main() {
    local env_file="${1:-}"
    local bindir
    if ! bindir="$(rg_pg_find_bindir)"; then
        rg_pg_install
        bindir="$(rg_pg_find_bindir)"
    fi

    local run_as=()
    if [[ "$(id -u)" == 0 ]]; then
        # initdb refuses to run as root: use the cluster owner account.
        if ! id postgres >/dev/null 2>&1; then
            useradd --system --create-home --shell /bin/bash postgres
        fi
        if command -v runuser >/dev/null 2>&1; then
            run_as=(runuser -u postgres --)
        else
            run_as=(su postgres -s /bin/bash -c)
        fi
    fi
    rg_pg_run() {
        if [[ "${run_as[0]:-}" == su ]]; then
            "${run_as[@]}" "$(printf '%q ' "$@")"
        elif [[ ${#run_as[@]} -gt 0 ]]; then
            "${run_as[@]}" "$@"
        else
            "$@"
        fi
    }

    local dir port db
    dir="$(mktemp -d "${TMPDIR:-/tmp}/rg-pg.XXXXXX")"
    port="${ROLLING_GRAPH_TEST_PG_PORT:-5432}"
    db="${ROLLING_GRAPH_TEST_PG_DB:-rolling_graph_test}"
    if [[ ${#run_as[@]} -gt 0 ]]; then
        chown postgres: "$dir"
    fi
    chmod 700 "$dir"

    rg_pg_run "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; return 1; }
    rg_pg_run "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-k $dir -p $port -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
        start >/dev/null \
        || { cat "$dir/server.log" >&2; return 1; }
    rg_pg_run "$bindir/createdb" -h "$dir" -p "$port" -U postgres "$db"

    local dsn="postgresql://postgres@/${db}?host=${dir}&port=${port}"
    local stop="${run_as[*]:+${run_as[*]} }$bindir/pg_ctl -D $dir/data -m fast stop"
    env_file="${env_file:-$dir/env.sh}"
    {
        printf 'export ROLLING_GRAPH_TEST_PG_DSN=%q\n' "$dsn"
        printf 'export ROLLING_GRAPH_TEST_PG_STOP=%q\n' "$stop"
    } >"$env_file"
    if [[ -n "${GITHUB_ENV:-}" ]]; then
        {
            echo "ROLLING_GRAPH_TEST_PG_DSN=$dsn"
            echo "ROLLING_GRAPH_TEST_PG_STOP=$stop"
        } >>"$GITHUB_ENV"
    fi
    cat "$env_file"
    echo "rolling-graph: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') up at $dir (env in $env_file)" >&2
    RG_PG_ENV_FILE="$env_file"
}

rg_pg_main "$@"
# When sourced, export the DSN into the caller's shell too.
# shellcheck disable=SC1090
source "$RG_PG_ENV_FILE"
