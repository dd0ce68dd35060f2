-- wrk script for a loopback load test of POST /api/rag/search:
--   go run ./examples/chatserver -addr 127.0.0.1:8080 -rate 1000000 -burst 1000000 &
--   wrk -t2 -c8 -d30s --latency -s examples/chatserver/testdata/search.lua http://127.0.0.1:8080/api/rag/search
-- Requests cycle through hybrid catalog, FAQ and document queries. With
-- SPOOF_XFF=left each request sends "X-Forwarded-For: <random>, 127.0.0.1"
-- (a client choosing the left end); SPOOF_XFF=right sends a random address
-- alone (a client choosing the whole header). PACE_MS=n waits n ms before
-- each request of a connection (-c8 with PACE_MS=2000: 4 requests/s). The
-- summary counts 200, 429, other 4xx and 5xx responses.
local queries = {
  '{"query":"tem fungicida para videira?","limit":5}',
  '{"query":"herbicida pos-emergente para soja","limit":5}',
  '{"query":"lagarta no milho","limit":5}',
  '{"query":"adubo foliar para cafe","limit":5,"fusion":"rrf"}',
  '{"query":"inseticida para percevejo","limit":10,"mode":"lexical"}',
  '{"query":"prazo de entrega","kind":"faq","limit":5}',
  '{"query":"ferrugem asiatica na soja","kind":"doc","limit":5}',
  '{"query":"fungisida para batata","limit":5}',
}
local i = 0
local spoof = os.getenv("SPOOF_XFF")
local pace = tonumber(os.getenv("PACE_MS") or "")
if pace then
  delay = function() return pace end
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

local function randomIP()
  return string.format("%d.%d.%d.%d", math.random(1, 223), math.random(0, 255), math.random(0, 255), math.random(1, 254))
end

request = function()
  i = i + 1
  -- wrk.format sends the headers given instead of wrk.headers.
  local h = { ["Content-Type"] = "application/json" }
  if spoof == "left" then
    h["X-Forwarded-For"] = randomIP() .. ", 127.0.0.1"
  elseif spoof == "right" then
    h["X-Forwarded-For"] = randomIP()
  end
  return wrk.format(nil, nil, h, queries[(i % #queries) + 1])
end

local threads = {}
setup = function(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

ok, limited, other4, fivexx = 0, 0, 0, 0
init = function(args)
  math.randomseed(os.time() + id * 7919)
end
response = function(status, headers, body)
  if status == 200 then ok = ok + 1
  elseif status == 429 then limited = limited + 1
  elseif status >= 500 then fivexx = fivexx + 1
  else other4 = other4 + 1 end
end

done = function(summary, latency, requests)
  local t = { ok = 0, limited = 0, other4 = 0, fivexx = 0 }
  for _, th in ipairs(threads) do
    for k, _ in pairs(t) do t[k] = t[k] + (th:get(k) or 0) end
  end
  io.write(string.format("requests=%d 200=%d 429=%d other4xx=%d 5xx=%d socket_errors=%d p50=%.2fms p90=%.2fms p99=%.2fms max=%.2fms\n",
    summary.requests, t.ok, t.limited, t.other4, t.fivexx,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
