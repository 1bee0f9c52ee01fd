-- wrk: device-fix check-ins (multipart/form-data) from 200 players, their tokens in VSH_BENCH_TOKENS.
-- Each request: the next player's token and a landmark of the shipped hunts, fixed a minute before
-- the server's --now. Every request is decided by the rules and recorded (accepted or not).
local common = dofile(os.getenv("VSH_BENCH_LUA") .. "/common.lua")
local tokens = common.lines(os.getenv("VSH_BENCH_TOKENS"))
local places = {
  {"36.082014", "-115.172734"}, {"36.120560", "-115.161390"}, {"36.112630", "-115.174000"},
  {"36.170720", "-115.144530"}, {"36.172823", "-115.141252"}, {"36.095700", "-115.174100"},
}
local counter = 0
local fixTime = os.getenv("VSH_BENCH_FIX_TIME")

function setup(thread) thread:set("offset", math.random(1, 1000)) end

request = function()
  counter = counter + 1
  local place = places[(counter % #places) + 1]
  local body = common.form("vshbench", {{"lat", place[1]}, {"lon", place[2]}, {"accuracy_m", "8"}, {"fix_time", fixTime}})
  return common.checkin(tokens[((counter + (offset or 0)) % #tokens) + 1], "vshbench", body)
end

done = common.done
