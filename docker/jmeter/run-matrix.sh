#!/bin/sh
# The jmeter container's entry point: the matrix against the API containers, written in the
# standard run layout (manifest.json, summary.csv, <framework>/<api>/case-NN/iter-NN/run.json and
# results.jtl) by collect/external_run.py, so `./testbed report` reads it. Timings come from the
# profiles of `./testbed run` (collect/profiles.py).
#
# Settings, all from the environment (docker-compose.yml passes them from .env):
#   TARGETS     framework=host:port:api,api ... (set by docker-compose.yml from the framework.json files)
#   FRAMEWORKS  comma-separated subset of TARGETS' frameworks (default: all)
#   APIS        comma-separated subset of rest,graphql (default: both)
#   CASES       "all" or comma-separated case numbers from cases.csv (default: all)
#   PROFILE     smoke, quick or study (default quick): threads, ramp-up, warm-up, window, iterations
#   ITERATIONS  override the profile's iterations (default: the profile's)
#   RUN_ID      results folder name (default: UTC time + "-<profile>-docker")
#   IDS, RESULTS  the seeder's id files and where runs go (default /ids, /results)
#   DRY_RUN=1   print the JMeter commands instead of running them
#   PYTHON      the interpreter (default python3)
set -eu
exec "${PYTHON:-python3}" -m collect.external_run \
    --targets "${TARGETS:-}" --frameworks "${FRAMEWORKS:-}" --apis "${APIS:-rest,graphql}" \
    --cases "${CASES:-all}" --profile "${PROFILE:-quick}" --iterations "${ITERATIONS:-}" \
    --ids-dir "${IDS:-/ids}" --results-dir "${RESULTS:-/results}" --run-id "${RUN_ID:-}" \
    ${DRY_RUN:+--dry-run}
