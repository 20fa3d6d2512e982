#!/bin/sh
# The jmeter container's entry point: the matrix against the API containers, measured by
# `./testbed run`'s run loop through collect/run/external_run.py and written in the standard run layout
# (manifest.json, state.json, summary.csv, <framework>/<api>/case-NN/iter-NN/run.json and
# results.jtl), so `./testbed report` reads it. Timings come from the profiles of `./testbed run`
# (collect/items/profiles.py). Ctrl-C or `docker stop` leaves a run that RESUME continues.
#
# Settings, all from the environment (docker-compose.yml passes them from .env):
#   TARGETS     framework=host:port:api,api ... (set by docker-compose.yml from the framework.json files)
#   FRAMEWORKS  comma-separated subset of TARGETS' frameworks (default: all)
#   APIS        comma-separated subset of rest,graphql (default: both)
#   CASES       "all" or case numbers and ranges from cases.csv, e.g. 1,4,7-9 (default: all)
#   PROFILE     smoke, quick, study or latency (default quick): threads, ramp-up, warm-up, window,
#               iterations (the rounds only: no extra rounds, cross-check, memory or latency pass)
#   ITERATIONS  override the profile's iterations (default: the profile's)
#   RUN_ID      results folder name (default: UTC time + "-<profile>-docker")
#   RESUME      the id of a run that was cut short: measures what it has left, with its recorded
#               settings and targets (the other settings are then ignored)
#   IDS, RESULTS  the seeder's id files and where runs go (default /ids, /results)
#   DRY_RUN=1   print the JMeter commands instead of running them
#   PYTHON      the interpreter (default python3)
set -eu
exec "${PYTHON:-python3}" -m collect.run.external_run \
    --targets "${TARGETS:-}" --frameworks "${FRAMEWORKS:-}" --apis "${APIS:-rest,graphql}" \
    --cases "${CASES:-all}" --profile "${PROFILE:-quick}" --iterations "${ITERATIONS:-}" \
    --ids-dir "${IDS:-/ids}" --results-dir "${RESULTS:-/results}" --run-id "${RUN_ID:-}" \
    --resume "${RESUME:-}" ${DRY_RUN:+--dry-run}
