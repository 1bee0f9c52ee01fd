-- Shared by the wrk scripts: players' tokens, a multipart form, and the one-line summary that
-- Benchmarks/serve.sh reads.
local common = {}

function common.lines(path)
  local out = {}
  for line in io.lines(path) do out[#out + 1] = line end
  return out
end

-- A multipart/form-data body: an optional photo part, then text fields in order.
function common.form(boundary, fields, photo)
  local body = ""
  if photo then
    body = "--" .. boundary .. "\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n" .. photo .. "\r\n"
  end
  for _, field in ipairs(fields) do
    body = body .. "--" .. boundary .. "\r\nContent-Disposition: form-data; name=\"" .. field[1] .. "\"\r\n\r\n" .. field[2] .. "\r\n"
  end
  return body .. "--" .. boundary .. "--\r\n"
end

-- A check-in as the web app sends it: with an Idempotency-Key of its own (`key`, unique in the run).
function common.checkin(token, boundary, body, key)
  return wrk.format("POST", "/v1/checkins", {
    ["Authorization"] = "Bearer " .. token,
    ["Content-Type"] = "multipart/form-data; boundary=" .. boundary,
    ["Idempotency-Key"] = key,
  }, body)
end

-- For each wrk thread, in `setup`: a number of its own, for keys unique in the run.
local threads = 0
function common.setup(thread)
  threads = threads + 1
  thread:set("offset", math.random(1, 1000))
  thread:set("key_prefix", string.format("bench-%d-%d-", os.time(), threads))
end

function common.done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d seconds=%.3f rate=%.1f p50_ms=%.2f p99_ms=%.2f non2xx=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end

return common
