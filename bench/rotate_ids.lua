-- wrk script: GET <prefix><id> with ids taken in turn from a one-column CSV (header skipped), the
-- same fixed sequence the JMeter plans use; each thread starts at a different offset.
-- Usage: wrk -s rotate_ids.lua URL -- ids.csv /rest/comment/
local ids, prefix, position = {}, "/", 1
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("offset", threads)
end

function init(args)
  prefix = args[2]
  local first = true
  for line in io.lines(args[1]) do
    if first then first = false else ids[#ids + 1] = line end
  end
  position = (offset or 1) * 7919 % #ids + 1
end

function request()
  local id = ids[position]
  position = position % #ids + 1
  return wrk.format("GET", prefix .. id)
end

-- One machine-readable line for http_bench.py: requests, duration (us), errors, p99 (us).
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d\n", summary.requests, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout, latency:percentile(99)))
end
