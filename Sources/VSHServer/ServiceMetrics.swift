import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
public import Prometheus
import Synchronization
import VSHEngine

/// What the service reports through swift-metrics, and the Prometheus endpoint that shows it:
/// `GET /metrics` on its own listener (`--metrics-host`, loopback by default, `--metrics-port`),
/// never on the public port. Labels are route templates, methods, statuses, verdicts, rules and
/// limits' names: never a player, an address or a path as sent.
public enum ServiceMetrics {
    /// Whether metrics are reported (`bootstrap` was called): without, nothing is made per request.
    private static let enabled = Atomic<Bool>(false)

    /// Counts an answered request and its duration.
    static func request(method: String, route: String, status: Int, duration: Duration) {
        guard enabled.load(ordering: .relaxed) else { return }
        Counter(
            label: "vsh_http_requests_total",
            dimensions: [("method", method), ("route", route), ("status", String(status))]
        ).increment()
        let (seconds, attoseconds) = duration.components
        Metrics.Timer(
            label: "vsh_http_request_duration_seconds", dimensions: [("method", method), ("route", route)]
        )
        .recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Counts a request refused by a rate limit (its kind: `sign-in`, `register`, `check-in`, ...).
    static func rateLimited(_ key: String) {
        guard enabled.load(ordering: .relaxed) else { return }
        let kind = key.split(separator: "|", maxSplits: 1).first.map(String.init) ?? "other"
        Counter(label: "vsh_rate_limited_total", dimensions: [("limit", kind)]).increment()
    }

    /// The live-update streams open now.
    static func streams(_ count: Int) {
        guard enabled.load(ordering: .relaxed) else { return }
        Gauge(label: "vsh_event_streams").record(count)
    }

    /// Makes Prometheus the process's metrics system (once; later calls return the same registry).
    public static func bootstrap() -> PrometheusCollectorRegistry {
        registryOnce
    }

    private static let registryOnce: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Requests and database work take milliseconds; a slow photo upload, seconds.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        factory.valueHistogramBuckets["vsh_group_commit_size"] = [1, 2, 4, 8, 16, 32, 64, 128, 256]
        MetricsSystem.bootstrap(factory)
        enabled.store(true, ordering: .relaxed)
        EngineMetrics.enable()
        return registry
    }()

    /// The metrics listener: `GET /metrics` in the Prometheus text format, nothing else (404).
    static func application(
        host: String, port: Int, registry: PrometheusCollectorRegistry, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ -> Response in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(16_384)
            registry.emit(into: &bytes)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
