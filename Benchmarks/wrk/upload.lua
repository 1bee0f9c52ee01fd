-- wrk: photo check-ins (a ~100 KB JPEG with GPS and the device fix), photos from VSH_BENCH_PHOTOS
-- (one file name a line), players' tokens from VSH_BENCH_TOKENS.
local tokens = {}
for line in io.lines(os.getenv("VSH_BENCH_TOKENS")) do tokens[#tokens + 1] = line end
local photos = {}
for path in io.lines(os.getenv("VSH_BENCH_PHOTOS")) do
  local f = assert(io.open(path, "rb")); photos[#photos + 1] = f:read("*a"); f:close()
end
local counter = 0
local boundary = "vshbenchphoto"
local fixTime = os.getenv("VSH_BENCH_FIX_TIME")

function setup(thread)
  thread:set("offset", math.random(1, 1000))
end

request = function()
  counter = counter + 1
  local n = counter + (offset or 0)
  local token = tokens[(n % #tokens) + 1]
  local photo = photos[(n % #photos) + 1]
  local body = "--" .. boundary .. "\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n" .. photo .. "\r\n"
  for _, field in ipairs({{"lat", "36.082014"}, {"lon", "-115.172734"}, {"accuracy_m", "8"}, {"fix_time", fixTime}}) do
    body = body .. "--" .. boundary .. "\r\nContent-Disposition: form-data; name=\"" .. field[1] .. "\"\r\n\r\n" .. field[2] .. "\r\n"
  end
  body = body .. "--" .. boundary .. "--\r\n"
  return wrk.format("POST", "/v1/checkins", {
    ["Authorization"] = "Bearer " .. token,
    ["Content-Type"] = "multipart/form-data; boundary=" .. boundary,
  }, body)
end

done = function(summary, latency, requests)
  io.write(string.format("RESULT requests=%d seconds=%.3f rate=%.1f p50_ms=%.2f p99_ms=%.2f non2xx=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
