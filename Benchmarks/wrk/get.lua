-- wrk: plain GETs of the URL given, summarised in one RESULT line.
done = function(summary, latency, requests)
  io.write(string.format("RESULT requests=%d seconds=%.3f rate=%.1f p50_ms=%.2f p99_ms=%.2f non2xx=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
