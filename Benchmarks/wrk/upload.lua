-- wrk: photo check-ins (a ~100 KB JPEG with GPS and the device fix), photos from VSH_BENCH_PHOTOS
-- (one file name a line), players' tokens from VSH_BENCH_TOKENS; at the Welcome sign, naming its hunt
-- as the web app does.
local common = dofile(os.getenv("VSH_BENCH_LUA") .. "/common.lua")
local tokens = common.lines(os.getenv("VSH_BENCH_TOKENS"))
local photos = {}
for _, path in ipairs(common.lines(os.getenv("VSH_BENCH_PHOTOS"))) do
  local f = assert(io.open(path, "rb")); photos[#photos + 1] = f:read("*a"); f:close()
end
local counter = 0
local fixTime = os.getenv("VSH_BENCH_FIX_TIME")

setup = common.setup

request = function()
  counter = counter + 1
  local n = counter + (offset or 0)
  local body = common.form("vshbenchphoto",
    {{"lat", "36.082014"}, {"lon", "-115.172734"}, {"accuracy_m", "8"}, {"fix_time", fixTime}, {"hunt", "strip-classics"}}, photos[(n % #photos) + 1])
  return common.checkin(tokens[(n % #tokens) + 1], "vshbenchphoto", body, (key_prefix or "bench-") .. counter)
end

done = common.done
