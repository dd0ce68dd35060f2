-- wrk script for a loopback load test of POST /api/rag/search:
--   go run ./examples/chatserver -addr 127.0.0.1:8080 -rate 1000000 -burst 1000000 &
--   wrk -t2 -c8 -d30s --latency -s examples/chatserver/testdata/search.lua http://127.0.0.1:8080/api/rag/search
-- Requests cycle through hybrid catalog, FAQ and document queries; the
-- summary counts non-2xx responses and 5xx ones separately.
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
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

request = function()
  i = i + 1
  return wrk.format(nil, nil, nil, queries[(i % #queries) + 1])
end

local threads = {}
setup = function(thread)
  table.insert(threads, thread)
end

local fivexx = 0
response = function(status, headers, body)
  if status >= 500 then fivexx = fivexx + 1 end
end

init = function(args)
  fivexx = 0
end

done = function(summary, latency, requests)
  local total5 = 0
  for _, t in ipairs(threads) do total5 = total5 + (t:get("fivexx") or 0) end
  io.write(string.format("requests=%d non2xx=%d 5xx=%d p50=%.2fms p90=%.2fms p99=%.2fms max=%.2fms\n",
    summary.requests, summary.errors.status, total5,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
