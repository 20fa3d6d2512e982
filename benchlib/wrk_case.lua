-- wrk script: a case's request (benchlib/wrk.py), its id taken in turn from the seeder's id list, the
-- same sequence the JMeter plans use; each wrk thread starts at an offset of its own.
-- Usage: wrk -s wrk_case.lua URL -- IDS_CSV METHOD PATH BODY   (BODY "-" for none; ${comment_id}
-- and ${user_id} in PATH and BODY are replaced by the id)
local ids, position, method, path, body = {}, 1, "GET", "/", nil
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("offset", threads)
end

function init(args)
  method, path = args[2], args[3]
  if args[4] ~= "-" then body = args[4] end
  local first = true
  for line in io.lines(args[1]) do
    if first then first = false else ids[#ids + 1] = line end
  end
  position = (offset or 1) * 7919 % #ids + 1
end

local function with_id(text, id)
  text = text:gsub("%${comment_id}", id)
  return (text:gsub("%${user_id}", id))
end

function request()
  local id = ids[position]
  position = position % #ids + 1
  local headers = {["Accept"] = "application/json"}
  if body then headers["Content-Type"] = "application/json" end
  return wrk.format(method, with_id(path, id), headers, body and with_id(body, id) or nil)
end

-- One machine-readable line: requests, duration (us), errors, mean (us), p99 (us).
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %.1f %d\n", summary.requests, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout, latency.mean, latency:percentile(99)))
end
