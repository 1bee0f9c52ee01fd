-- wrk: device-fix check-ins (multipart/form-data) from 200 players, their tokens in VSH_BENCH_TOKENS.
-- Each request: the next player's token and a landmark of the shipped hunts, fixed a minute before
-- the server's --now, naming the landmark's hunt as the web app does when the player has chosen one.
-- Every request is decided by the rules and recorded (accepted or not).
local common = dofile(os.getenv("VSH_BENCH_LUA") .. "/common.lua")
local tokens = common.lines(os.getenv("VSH_BENCH_TOKENS"))
local places = {
  {"36.082014", "-115.172734", "strip-classics"}, {"36.120560", "-115.161390", "strip-classics"},
  {"36.112630", "-115.174000", "strip-classics"}, {"36.170720", "-115.144530", "downtown-fremont"},
  {"36.172823", "-115.141252", "downtown-fremont"}, {"36.095700", "-115.174100", "strip-classics"},
}
local counter = 0
local fixTime = os.getenv("VSH_BENCH_FIX_TIME")

setup = common.setup

request = function()
  counter = counter + 1
  local place = places[(counter % #places) + 1]
  local body = common.form("vshbench", {{"lat", place[1]}, {"lon", place[2]}, {"accuracy_m", "8"}, {"fix_time", fixTime}, {"hunt", place[3]}})
  return common.checkin(tokens[((counter + (offset or 0)) % #tokens) + 1], "vshbench", body, (key_prefix or "bench-") .. counter)
end

done = common.done
