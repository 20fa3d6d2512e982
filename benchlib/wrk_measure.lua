-- wrk as a measuring load generator (collect/load/wrk_batch.py): one wrk thread per connection, so each
-- thread's requests and responses pair up and every request is kept as a JMeter JTL row (start,
-- elapsed, code, success, thread). The same window rules as JMeter's plans (benchlib/run_plans.py
-- group_clock): connections start over the ramp-up, the warm-up counts from when the last one runs,
-- lasts at least WRK_WARMUP_MS and until every connection has completed a request (at most
-- WRK_WARMUP_CAP_MS), then the window runs WRK_DURATION_MS; its instants go to WRK_WINDOW as
-- "w0 w1 warmup_ms" (epoch ms). The driver stops wrk with SIGINT after the window and done()
-- writes every request that completed from w0 on to WRK_JTL (benchlib/jtl.py counts by completion
-- inside the window, as for JMeter's), and each connection's request still in flight then, as a
-- failed row ending at the stop: it completed nothing in the window, but it occupied it (the
-- window's in-flight figures count it; JMeter's threads would have waited for it). Every response is checked: status, and the body's shape and
-- ids (the JMeter plans' assertions, by plain string search).
--
-- Configuration (environment): WRK_IDS (the seeder's id list, or -), WRK_METHOD, WRK_PATH, WRK_BODY
-- (- for none; ${comment_id} / ${user_id} are replaced by the id), WRK_API, WRK_CHECK (comment,
-- comments, user-comment, user-comments or status), WRK_ROWS, WRK_STATUS, WRK_LABEL,
-- WRK_CONNECTIONS, WRK_RAMPUP_MS, WRK_WARMUP_MS, WRK_WARMUP_CAP_MS, WRK_DURATION_MS, WRK_WINDOW,
-- WRK_JTL.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } wrk_timespec;
int clock_gettime(int clock, wrk_timespec *tp);
int usleep(unsigned int usec);
void *calloc(size_t n, size_t size);
int pthread_mutex_init(void *mutex, const void *attr);
int pthread_mutex_lock(void *mutex);
int pthread_mutex_unlock(void *mutex);
/* One block shared by every thread's Lua state (they live in one process): the window's clock. */
typedef struct {
  char mutex[64];   /* a pthread_mutex_t (40 bytes on glibc x86-64) */
  double t_full;    /* epoch ms: every connection runs (0 until the last thread is set up) */
  double w0;        /* epoch ms: the window's start (0 until the warm-up ends) */
  int32_t served;   /* connections that have completed a request */
  int32_t decided;
} wrk_shared;
]]

local env = os.getenv
local CONNECTIONS = tonumber(env("WRK_CONNECTIONS"))
local RAMPUP, WARMUP = tonumber(env("WRK_RAMPUP_MS")), tonumber(env("WRK_WARMUP_MS"))
local CAP, DURATION = math.max(WARMUP, tonumber(env("WRK_WARMUP_CAP_MS"))), tonumber(env("WRK_DURATION_MS"))
local METHOD, PATH, BODY = env("WRK_METHOD"), env("WRK_PATH"), env("WRK_BODY")
local API, CHECK, ROWS = env("WRK_API"), env("WRK_CHECK"), tonumber(env("WRK_ROWS"))
local STATUS, LABEL = tonumber(env("WRK_STATUS")), env("WRK_LABEL")
if BODY == "-" then BODY = nil end

local ts = ffi.new("wrk_timespec")
local function now_ms()
  ffi.C.clock_gettime(0, ts) -- CLOCK_REALTIME: the samplers and the JTL share the wall clock
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

-- The main state: sets every thread up, then writes the JTL ----------------------------------------
local threads, shared, t_first = {}, nil, nil

local function read_ids(path)
  local ids, first = {}, true
  if path ~= "-" then
    for line in io.lines(path) do
      if first then first = false else ids[#ids + 1] = line end
    end
  end
  return ids
end

local all_ids
function setup(thread)
  if not shared then
    shared = ffi.cast("wrk_shared *", ffi.C.calloc(1, ffi.sizeof("wrk_shared")))
    ffi.C.pthread_mutex_init(shared.mutex, nil)
    all_ids = read_ids(env("WRK_IDS"))
    t_first = now_ms()
  end
  local index = #threads + 1
  threads[index] = thread
  -- Each thread takes its own run of the id list, so together they send most of it once.
  local per = math.max(1, math.min(2000, math.floor(#all_ids / CONNECTIONS)))
  local mine = {}
  for k = 1, math.min(per, #all_ids) do mine[k] = all_ids[((index - 1) * per + k - 1) % #all_ids + 1] end
  thread:set("ids", mine)
  thread:set("index", index)
  thread:set("shared_at", tonumber(ffi.cast("uintptr_t", shared)))
  thread:set("start_at", t_first + RAMPUP * (index - 1) / CONNECTIONS)
  if index == CONNECTIONS then
    shared.t_full = math.max(now_ms(), t_first + RAMPUP)
  end
end

function done(summary, latency, requests)
  local w0, stopped = shared.w0, math.floor(now_ms())
  local out = assert(io.open(env("WRK_JTL"), "w"))
  out:write("timeStamp,elapsed,label,responseCode,success,failureMessage,threadName\n")
  for index, thread in ipairs(threads) do
    local waiting = thread:get("waiting_since")
    if waiting and w0 > 0 then
      local t0 = math.floor(waiting)
      out:write(t0, ",", stopped - t0, ",", LABEL, ",-,false,in flight when the load stopped,wrk ", index, "\n")
    end
    local starts, ends, codes, failures = thread:get("starts"), thread:get("ends"), thread:get("codes"),
      thread:get("failures")
    for k = 1, #ends do
      local t1 = math.floor(ends[k])
      if w0 > 0 and t1 >= math.floor(w0) then
        local t0 = math.floor(starts[k])
        local failure = failures[k]
        out:write(t0, ",", t1 - t0, ",", LABEL, ",", codes[k], ",", failure and "false" or "true", ",",
          failure or "", ",wrk ", index, "\n")
      end
    end
  end
  out:close()
  local e = summary.errors
  io.write(string.format("SOCKET_ERRORS connect=%d read=%d write=%d timeout=%d\n",
    e.connect, e.read, e.write, e.timeout))
end

-- A thread's state: one connection, its requests and their outcomes --------------------------------
starts, ends, codes, failures = {}, {}, {}, {}
waiting_since = nil -- the request in flight, if any (read by done())
local n, sent, id, mine, started, served = 0, 0, nil, nil, false, false

local function with_id(text)
  return (text:gsub("%${comment_id}", id):gsub("%${user_id}", id))
end

local function count(body, needle)
  local found, at = 0, 1
  while true do
    at = body:find(needle, at, true)
    if not at then return found end
    found, at = found + 1, at + #needle
  end
end

-- Why the body is not the answer to the request just sent (nil: it is), as JMeter's assertions
-- judge it (benchlib/plans.py json_check): the requested comment, comments 1..rows in order, or
-- `rows` comments each joined to the requested user.
local function wrong(body)
  local q = API == "graphql" and '"' or ""
  local open = API == "graphql" and '{"data":{"' or ""
  if CHECK == "comment" then
    local head = API == "graphql" and '{"data":{"commentById":{"id":"' .. id .. '"' or '{"id":' .. id .. ','
    return body:sub(1, #head) ~= head and "body: not comment " .. id or nil
  elseif CHECK == "user-comment" then
    return (body:sub(1, #open) ~= open or not body:find('"user":{"id":' .. q .. id .. q .. ',', 1, true))
      and "body: not the comment of user " .. id or nil
  elseif CHECK == "comments" then
    local first = '{"id":' .. q .. '1' .. q .. ','
    local last = '{"id":' .. q .. ROWS .. q .. ','
    return (not body:find(first, 1, true) or not body:find(last, 1, true) or count(body, '"threadId":') ~= ROWS)
      and "body: not comments 1-" .. ROWS or nil
  elseif CHECK == "user-comments" then
    return count(body, '"user":{"id":' .. q .. id .. q .. ',') ~= ROWS
      and "body: not " .. ROWS .. " comments of user " .. id or nil
  end
  return nil
end

local position = 0
function request()
  if not started then
    started = true
    mine = ids
    local wait = start_at - now_ms()
    if wait > 0 then ffi.C.usleep(wait * 1000) end -- the ramp-up: this thread's connection only
  end
  if #mine > 0 then
    position = position % #mine + 1
    id = mine[position]
  end
  local headers = { ["Accept"] = "application/json" }
  if BODY then headers["Content-Type"] = "application/json" end
  sent = now_ms()
  waiting_since = sent
  return wrk.format(METHOD, id and with_id(PATH) or PATH, headers, BODY and (id and with_id(BODY) or BODY) or nil)
end

local sh, decided = nil, false
function response(status, headers, body)
  local t = now_ms()
  waiting_since = nil
  n = n + 1
  starts[n], ends[n], codes[n] = sent, t, status
  if status ~= STATUS then
    failures[n] = "status " .. status .. " (expected " .. STATUS .. ")"
  elseif STATUS == 200 then
    failures[n] = wrong(body)
  end
  if decided then return end
  sh = sh or ffi.cast("wrk_shared *", shared_at)
  if not served then
    served = true
    ffi.C.pthread_mutex_lock(sh.mutex)
    sh.served = sh.served + 1
    ffi.C.pthread_mutex_unlock(sh.mutex)
  end
  local full = sh.t_full
  if full > 0 and t >= full + WARMUP and (sh.served >= CONNECTIONS or t >= full + CAP) then
    ffi.C.pthread_mutex_lock(sh.mutex)
    if sh.decided == 0 then
      sh.decided, sh.w0 = 1, t
      local window = assert(io.open(env("WRK_WINDOW") .. ".part", "w"))
      window:write(string.format("%d %d %d", math.floor(t), math.floor(t + DURATION), math.floor(t - full)))
      window:close()
      os.rename(env("WRK_WINDOW") .. ".part", env("WRK_WINDOW"))
    end
    ffi.C.pthread_mutex_unlock(sh.mutex)
  end
  decided = sh.decided ~= 0
end
