-- wrk: device-fix check-ins, each a new player's first visit: accepted, with the stop's points and
-- whatever badges a first check-in earns, as at an event's start when every phone checks in at the
-- first stop. Tokens from VSH_BENCH_TOKENS, one a request (the two threads take alternate ones), at
-- the Welcome sign (which takes a device fix alone), fixed a minute before the server's --now,
-- naming its hunt as the web app does.
local common = dofile(os.getenv("VSH_BENCH_LUA") .. "/common.lua")
local tokens = common.lines(os.getenv("VSH_BENCH_TOKENS"))
local counter = 0
local fixTime = os.getenv("VSH_BENCH_FIX_TIME")

local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("lane", threads - 1)
  thread:set("key_prefix", string.format("first-%d-%d-", os.time(), threads))
end

request = function()
  local index = counter * 2 + (lane or 0)
  counter = counter + 1
  local body = common.form("vshbenchfirst",
    {{"lat", "36.082014"}, {"lon", "-115.172734"}, {"accuracy_m", "8"}, {"fix_time", fixTime}, {"hunt", "strip-classics"}})
  return common.checkin(tokens[(index % #tokens) + 1], "vshbenchfirst", body, (key_prefix or "first-") .. counter)
end

done = common.done
