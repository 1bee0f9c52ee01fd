-- wrk: plain GETs of the URL given, summarised in one RESULT line.
local common = dofile(os.getenv("VSH_BENCH_LUA") .. "/common.lua")
done = common.done
