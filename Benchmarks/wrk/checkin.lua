-- wrk: device-fix check-ins (multipart/form-data) from 200 players, their tokens in tokens.txt.
-- Each request: the next player's token and a landmark of the shipped hunts, fixed a minute before
-- the server's --now. Every request is decided by the rules and recorded (accepted or not).
local tokens = {}
for line in io.lines(os.getenv("VSH_BENCH_TOKENS")) do tokens[#tokens + 1] = line end
local places = {
  {"36.082014", "-115.172734"}, {"36.120560", "-115.161390"}, {"36.112630", "-115.174000"},
  {"36.170720", "-115.144530"}, {"36.172823", "-115.141252"}, {"36.095700", "-115.174100"},
}
local counter = 0
local boundary = "vshbench"
local fixTime = os.getenv("VSH_BENCH_FIX_TIME")

function setup(thread)
  thread:set("offset", math.random(1, 1000))
end

request = function()
  counter = counter + 1
  local token = tokens[((counter + (offset or 0)) % #tokens) + 1]
  local place = places[(counter % #places) + 1]
  local body = ""
  for _, field in ipairs({{"lat", place[1]}, {"lon", place[2]}, {"accuracy_m", "8"}, {"fix_time", fixTime}}) do
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
