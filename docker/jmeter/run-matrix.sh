#!/bin/sh
# Runs the study's matrix (DESIGN §5) from the jmeter container against the API containers: every
# case x API x framework, with the project's parametrized plans (jmeter-plans/rest.jmx,
# graphql.jmx, with testbed.properties for the JTL format, as ./testbed run passes them) and the
# seeder's id files. One JTL per run under RESULTS/RUN_ID/, laid out like
# ./testbed run's results: <framework>/<api>/case-NN/iter-NN/results.jtl.
#
# Settings, all from the environment (docker-compose.yml passes them from .env):
#   TARGETS     framework=host:port:api,api ... (set by docker-compose.yml from the manifests)
#   FRAMEWORKS  comma-separated subset of TARGETS' frameworks (default: all)
#   APIS        comma-separated subset of rest,graphql (default: both)
#   CASES       "all" or comma-separated case numbers from cases.csv (default: all)
#   ITERATIONS  runs of the whole matrix (default 1)
#   RAMPUP_S, WARMUP_S, DURATION_S  JMeter ramp-up, excluded warm-up, measured window (1, 5, 10:
#               the `quick` profile)
#   THREAD_CAP  at most this many JMeter threads per case (default: the case's own load)
#   RUN_ID      results folder name (default: UTC time + "-docker")
#   DRY_RUN=1   print the JMeter commands instead of running them
# A case's frameworks run back to back, so both meet the same machine state; the apps are not
# restarted between cases (a container cannot restart its neighbours), unlike `./testbed run`.
set -eu

PLANS=${PLANS:-/plans}
IDS=${IDS:-/ids}
RESULTS=${RESULTS:-/results}
TARGETS=${TARGETS:-}
APIS=${APIS:-rest,graphql}
CASES=${CASES:-all}
ITERATIONS=${ITERATIONS:-1}
RAMPUP_S=${RAMPUP_S:-1}
WARMUP_S=${WARMUP_S:-5}
DURATION_S=${DURATION_S:-10}
THREAD_CAP=${THREAD_CAP:-}
RUN_ID=${RUN_ID:-$(date -u +%Y%m%d-%H%M%S)-docker}
DRY_RUN=${DRY_RUN:-}

fail() {
    echo "run-matrix: $*" >&2
    exit 2
}

words() { echo "$1" | tr ',' ' '; }

seconds() {
    case $2 in
        '' | *[!0-9]*) fail "$1 must be a whole number of seconds, not '$2'." ;;
    esac
}

whole_number() {
    case $2 in
        '' | *[!0-9]* | 0*) fail "$1 must be a whole number from 1 up, not '$2'." ;;
    esac
}

# host:port:apis of a framework in TARGETS, or nothing.
target_of() {
    for entry in $TARGETS; do
        case $entry in "$1="*) echo "${entry#*=}"; return ;; esac
    done
}

check_settings() {
    [ -n "$TARGETS" ] || fail "TARGETS is empty; start this through docker-compose.yml."
    all=""
    for entry in $TARGETS; do all="$all${all:+,}${entry%%=*}"; done
    FRAMEWORKS=${FRAMEWORKS:-$all}
    for fw in $(words "$FRAMEWORKS"); do
        [ -n "$(target_of "$fw")" ] || fail "unknown framework '$fw' in FRAMEWORKS; known: $all."
    done
    for api in $(words "$APIS"); do
        case $api in rest | graphql) ;; *) fail "unknown API '$api' in APIS; known: rest,graphql." ;; esac
        [ -f "$PLANS/$api.jmx" ] || fail "$PLANS/$api.jmx is missing (mount jmeter-plans/ at $PLANS)."
    done
    for file in cases.csv testbed.properties; do
        [ -f "$PLANS/$file" ] || fail "$PLANS/$file is missing (mount jmeter-plans/ at $PLANS)."
    done
    if [ "$CASES" != all ]; then
        for case in $(words "$CASES"); do
            whole_number CASES "$case"
            grep -q "^$case," "$PLANS/cases.csv" || fail "no case $case in cases.csv (CASES=$CASES)."
        done
    fi
    whole_number ITERATIONS "$ITERATIONS"
    whole_number DURATION_S "$DURATION_S"
    seconds RAMPUP_S "$RAMPUP_S"
    seconds WARMUP_S "$WARMUP_S"
    [ -z "$THREAD_CAP" ] || whole_number THREAD_CAP "$THREAD_CAP"
    [ -n "$DRY_RUN" ] && return
    for file in comment_ids.csv user_ids.csv; do
        [ -s "$IDS/$file" ] || fail "$IDS/$file is missing: the seed service has not completed."
    done
    if ! mkdir -p "$RESULTS/$RUN_ID" 2>/dev/null || [ ! -w "$RESULTS/$RUN_ID" ]; then
        fail "cannot write to $RESULTS/$RUN_ID; on the host: mkdir -p results/docker, and set HOST_UID/HOST_GID in .env to your id -u / id -g."
    fi
}

# case,requests,rows,joins lines of the selected cases, in the study's order.
selected_cases() {
    tail -n +2 "$PLANS/cases.csv" | while IFS=, read -r case requests rows joins; do
        if [ "$CASES" = all ] || echo ",$CASES," | tr -d ' ' | grep -q ",$case,"; then
            echo "$case,$requests,$rows,$joins"
        fi
    done
}

write_settings() {
    cat >"$RESULTS/$RUN_ID/settings.json" <<EOF
{"schema_version": 1, "run_id": "$RUN_ID", "runner": "docker-compose jmeter service",
 "targets": "$TARGETS", "frameworks": "$FRAMEWORKS", "apis": "$APIS", "cases": "$CASES",
 "iterations": $ITERATIONS, "rampup_s": $RAMPUP_S, "warmup_s": $WARMUP_S, "duration_s": $DURATION_S,
 "thread_cap": "${THREAD_CAP}", "api_cpus": "${API_CPUS:-}", "api_memory": "${API_MEMORY:-}",
 "restart_between_cases": false, "jmeter": "$(jmeter --version 2>/dev/null | grep -o '5\.[0-9.]*' | head -n 1)",
 "java": "$(java -version 2>&1 | head -n 1 | tr -d '"')", "started_at": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"}
EOF
}

# "N samples, E errors" of a JTL, warm-up samples left out.
tally() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "label") l = i; if ($i == "success") s = i }; next }
             $l !~ /^warmup / { n++; if ($s != "true") e++ }
             END { printf "%d samples, %d errors\n", n, e }' "$1"
}

run_one() { # framework api iteration case requests rows joins
    target=$(target_of "$1")
    host=${target%%:*}
    rest=${target#*:}
    port=${rest%%:*}
    offered=${rest#*:}
    case ",$offered," in *",$2,"*) ;; *)
        echo "skip $1 $2: not offered by $1 (TARGETS)"
        return ;;
    esac
    threads=$5
    if [ -n "$THREAD_CAP" ] && [ "$threads" -gt "$THREAD_CAP" ]; then threads=$THREAD_CAP; fi
    dir=$RESULTS/$RUN_ID/$1/$2/case-$(printf %02d "$4")/iter-$(printf %02d "$3")
    label="$1 $2 case $4 iteration $3"
    set -- jmeter -n -t "$PLANS/$2.jmx" -q "$PLANS/testbed.properties" \
        -l "$dir/results.jtl" -j "$dir/jmeter.log" \
        -Jhost="$host" -Jport="$port" -Jthreads="$threads" -Jrampup="$RAMPUP_S" \
        -Jwarmup="$WARMUP_S" -Jduration="$DURATION_S" -Jrows="$6" -Jjoins="$7" \
        -Jcomment_ids="$IDS/comment_ids.csv" -Juser_ids="$IDS/user_ids.csv"
    if [ -n "$DRY_RUN" ]; then
        echo "$*"
        return
    fi
    mkdir -p "$dir"
    "$@" >"$dir/jmeter.out" 2>&1 || fail "JMeter failed on $label; see $dir/jmeter.out."
    echo "$label: $(tally "$dir/results.jtl")" | tee -a "$RESULTS/$RUN_ID/summary.txt"
}

main() {
    check_settings
    [ -n "$DRY_RUN" ] || write_settings
    iteration=1
    while [ "$iteration" -le "$ITERATIONS" ]; do
        for line in $(selected_cases); do
            IFS=, read -r case requests rows joins <<EOF
$line
EOF
            for api in $(words "$APIS"); do
                for fw in $(words "$FRAMEWORKS"); do
                    run_one "$fw" "$api" "$iteration" "$case" "$requests" "$rows" "$joins"
                done
            done
        done
        iteration=$((iteration + 1))
    done
    [ -n "$DRY_RUN" ] || echo "run-matrix: results in results/docker/$RUN_ID/ on the host."
}

main
