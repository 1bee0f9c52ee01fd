-- wrk: photo check-ins (a ~100 KB JPEG with GPS and the device fix), photos from VSH_BENCH_PHOTOS
-- (one file name a line), players' tokens from VSH_BENCH_TOKENS; at the Welcome sign, naming its hunt
-- as the web app does.
--
-- Every request sends a picture no one sent before, as players' photos are: a picture the league
-- already holds is refused as a copy (`unique_photo`), which is not what a check-in costs. The
-- photos (Benchmarks/make_photos.py) have the same headers and a restart marker after each row of
-- blocks, so a row of one can stand in for the same row of another: each request takes each row
-- from a photo picked at random, a new picture (new pixels, so new pixel and perceptual hashes)
-- out of more than 8^20.
local common = dofile(os.getenv("VSH_BENCH_LUA") .. "/common.lua")
local tokens = common.lines(os.getenv("VSH_BENCH_TOKENS"))

-- A photo cut into its header (up to the scan's data), its rows (each with its restart marker)
-- and its end.
local function rows(photo, path)
  local at = 3
  while true do
    assert(photo:byte(at) == 0xFF, path .. ": not a JPEG segment at byte " .. at)
    local marker = photo:byte(at + 1)
    local length = photo:byte(at + 2) * 256 + photo:byte(at + 3)
    at = at + 2 + length
    if marker == 0xDA then break end
  end
  local header, cut, start = photo:sub(1, at - 1), {}, at
  while true do
    local found = photo:find("\255[\208-\215]", start)
    if not found then break end
    cut[#cut + 1] = photo:sub(start, found + 1)
    start = found + 2
  end
  local last = photo:find("\255\217", start, true)
  assert(last, path .. ": no end of image")
  cut[#cut + 1] = photo:sub(start, last - 1)
  return header, cut
end

local header, variants = nil, {}
for _, path in ipairs(common.lines(os.getenv("VSH_BENCH_PHOTOS"))) do
  local f = assert(io.open(path, "rb")); local photo = f:read("*a"); f:close()
  local head, cut = rows(photo, path)
  assert(#cut > 1, path .. ": no restart markers (make_photos.py makes them)")
  assert(header == nil or head == header, path .. ": its headers differ from the first photo's")
  assert(#variants == 0 or #cut == #variants[1], path .. ": another number of rows")
  header = head
  variants[#variants + 1] = cut
end

local counter = 0
local seeded = false
local fixTime = os.getenv("VSH_BENCH_FIX_TIME")

-- A picture of its own: each row from one of the photos.
local function picture()
  local parts = {header}
  for row = 1, #variants[1] do
    parts[#parts + 1] = variants[math.random(#variants)][row]
  end
  parts[#parts + 1] = "\255\217"
  return table.concat(parts)
end

setup = common.setup

request = function()
  if not seeded then
    math.randomseed((offset or 0) * 7919 + os.time())
    seeded = true
  end
  counter = counter + 1
  local n = counter + (offset or 0)
  local body = common.form("vshbenchphoto",
    {{"lat", "36.082014"}, {"lon", "-115.172734"}, {"accuracy_m", "8"}, {"fix_time", fixTime}, {"hunt", "strip-classics"}}, picture())
  return common.checkin(tokens[(n % #tokens) + 1], "vshbenchphoto", body, (key_prefix or "bench-") .. counter)
end

done = common.done
