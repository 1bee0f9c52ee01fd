// swift-tools-version:6.1
import PackageDescription

/// Settings every Swift target shares (STYLE.md 14): Swift 6 mode plus the
/// upcoming features that make dependencies and existentials explicit.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "vsh",
    products: [
        .executable(name: "vsh", targets: ["vsh"]),
        .executable(name: "vsh-master", targets: ["vsh-master"]),
        .library(name: "VSHCore", targets: ["VSHCore"]),
        .library(name: "VSHSpatiaLite", targets: ["VSHSpatiaLite"]),
        .library(name: "VSHEngine", targets: ["VSHEngine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
    ],
    targets: [
        // C libraries: a module map and a shim each, nothing else (STYLE.md 3).
        // SpatiaLite, libheif, PROJ and libxml2 are not linked: their shims load them on first use (dlopen),
        // so that a command that does not need them (and their dozens of dependencies: curl,
        // GnuTLS, Kerberos, video codecs) does not load them at start-up. Their headers are in
        // the compiler's default paths; the loader they share is CLazyLoad.
        .target(name: "CLazyLoad"),
        .systemLibrary(name: "CSpatiaLite", providers: [.apt(["libspatialite-dev", "libsqlite3-dev"])]),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(name: "CHEIF", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CProj", providers: [.apt(["libproj-dev"])]),
        // libxml2 too is loaded on first use; its headers are in a folder of their own, given to
        // VSHXML below (pkg-config, which would give it, would also link the library).
        .systemLibrary(name: "CLibXML2", providers: [.apt(["libxml2-dev"])]),
        // QR codes of join codes and stop codes (Debian's libqrencode).
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),

        // Swift only, no C of its own and no I/O (docs/design.md): coordinates, geofences, hunts, the
        // hunt-file format, JSON, scoring, the store protocols; SHA-256 from swift-crypto.
        .target(
            name: "VSHCore", dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings),
        // Geodesics on the WGS84 ellipsoid through PROJ's geodesic.h (Karney).
        .target(
            name: "VSHGeodesy", dependencies: ["VSHCore", "CProj", "CLazyLoad"], swiftSettings: strictSettings
        ),
        // Photos: EXIF through libexif, JPEG structure and identity (no pixels decoded for those),
        // and libjpeg's scaled decoding and encoding for collages.
        .target(
            name: "VSHPhoto", dependencies: ["VSHCore", "CExif", "CJPEG", "VSHHEIF"],
            swiftSettings: strictSettings),
        // HEIC/HEIF photos (the iPhone camera's format) through libheif: the only importer of it.
        .target(name: "VSHHEIF", dependencies: ["CHEIF", "CLazyLoad"], swiftSettings: strictSettings),
        // GPX 1.0/1.1 and KML 2.2, streamed through libxml2's reader.
        .target(
            name: "VSHXML", dependencies: ["VSHCore", "CLibXML2", "CLazyLoad"],
            swiftSettings: strictSettings + [.unsafeFlags(["-Xcc", "-I/usr/include/libxml2"])]),
        // What vsh reads from its host at the edges, as the core's values: a folder of hunt files,
        // the environment (`VSH_BUSY_TIMEOUT`). The core itself does no I/O.
        .target(name: "VSHHost", dependencies: ["VSHCore"], swiftSettings: strictSettings),
        // SQL both SQL adapters spell alike: the conditions of a check-in's state, from the core's type.
        .target(name: "VSHSQL", dependencies: ["VSHCore"], swiftSettings: strictSettings),
        // The SpatiaLite adapter: every store protocol of the core on one SpatiaLite file
        // (GRDB, a pool of connections in WAL mode), and photos as files beside it.
        .target(
            name: "VSHSpatiaLite",
            dependencies: [
                "VSHCore", "VSHHost", "VSHGeodesy", "VSHConfusables", "VSHSQL", "CSpatiaLite", "CLazyLoad",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings),
        // The PostGIS adapter: every store protocol of the core on PostgreSQL 15 + PostGIS 3
        // (PostgresNIO; the only importer of it), photos in the database, for several `vsh serve`.
        .target(
            name: "VSHPostGIS",
            dependencies: [
                "VSHCore", "VSHHost", "VSHGeodesy", "VSHConfusables", "VSHSQL",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings),
        // ICU's spoof checker (libicu-dev's headers; the library is loaded on first use) behind
        // plain C types, and names that look alike (Unicode TR 39's confusable skeletons) on it.
        .target(name: "CICU", dependencies: ["CLazyLoad"]),
        .target(name: "VSHConfusables", dependencies: ["VSHCore", "CICU"], swiftSettings: strictSettings),
        // Every store protocol in memory: the test double for rule and scoring tests and parity checks.
        .target(
            name: "VSHMemoryStore", dependencies: ["VSHCore", "VSHHost", "VSHGeodesy", "VSHConfusables"],
            swiftSettings: strictSettings),
        // Accounts: passwords hashed with bcrypt (the only importer of it), session tokens.
        .target(
            name: "VSHAccounts",
            dependencies: ["VSHCore", .product(name: "HummingbirdBcrypt", package: "hummingbird-auth")],
            swiftSettings: strictSettings),
        // `vsh serve`: the HTTP service (Hummingbird 2; the only importer of it). Translates, decides nothing.
        .target(
            name: "VSHServer",
            dependencies: [
                "VSHCore", "VSHHost", "VSHAccounts", "VSHEngine", "VSHPhoto", "VSHAuthoring",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            resources: [.copy("Web")],
            swiftSettings: strictSettings),
        // Engine pieces on the store protocols (no database of their own): the verifier's rules,
        // the check-in pipeline, the fence tracker and replays, batch locate, collages, output shapes.
        .target(
            name: "VSHEngine",
            dependencies: [
                "VSHCore", "VSHGeodesy", "VSHPhoto", "VSHXML", "CQREncode",
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings),
        // vsh-master's work: editing hunt folders, stop geometry from walks, photos,
        // circles and files, lint warnings, export and import.
        .target(
            name: "VSHAuthoring",
            dependencies: ["VSHCore", "VSHHost", "VSHGeodesy", "VSHPhoto", "VSHXML"],
            swiftSettings: strictSettings),
        // What both executables share: options, exit codes, output.
        .target(
            name: "VSHCommandSupport",
            dependencies: [
                "VSHCore", "VSHHost", "VSHAuthoring", "VSHSpatiaLite", "VSHPostGIS", "VSHEngine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "vsh",
            dependencies: [
                "VSHCore", "VSHAccounts", "VSHServer", "VSHSpatiaLite", "VSHPostGIS", "VSHPhoto", "VSHEngine",
                "VSHXML",
                "VSHCommandSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "vsh-master",
            dependencies: [
                "VSHCore", "VSHHost", "VSHGeodesy", "VSHSpatiaLite", "VSHAuthoring", "VSHEngine", "VSHXML",
                "VSHCommandSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings),
        // The mutation fuzzer for the EXIF, GPX and hunt-file readers (`make fuzz`).
        .executableTarget(
            name: "vsh-fuzz",
            dependencies: ["VSHCore", "VSHPhoto", "VSHSpatiaLite", "VSHXML", "VSHTestSupport"],
            swiftSettings: strictSettings),

        .target(
            name: "VSHTestSupport", dependencies: ["VSHCore"], path: "Tests/VSHTestSupport",
            swiftSettings: strictSettings),
        .testTarget(
            name: "VSHCoreTests", dependencies: ["VSHCore", "VSHTestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "VSHGeodesyTests", dependencies: ["VSHCore", "VSHGeodesy", "VSHTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "VSHPhotoTests", dependencies: ["VSHCore", "VSHPhoto", "VSHTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "VSHXMLTests", dependencies: ["VSHCore", "VSHXML", "VSHEngine", "VSHTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "VSHEngineTests",
            dependencies: [
                "VSHCore", "VSHEngine", "VSHGeodesy", "VSHSpatiaLite", "VSHPhoto", "VSHTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "VSHSpatiaLiteTests",
            dependencies: [
                "VSHCore", "VSHGeodesy", "VSHSpatiaLite", "VSHTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings),
        // The store contract, the same tests on every backend (memory, SpatiaLite, PostGIS): hunts and
        // lookups, accounts, sessions, overturns, group commits, and the parity of whole leagues.
        .testTarget(
            name: "StoreConformanceTests",
            dependencies: [
                "VSHCore", "VSHHost", "VSHGeodesy", "VSHMemoryStore", "VSHSpatiaLite", "VSHPostGIS",
                "VSHEngine",
                "VSHTestSupport",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "VSHMemoryStoreTests",
            dependencies: [
                "VSHCore", "VSHMemoryStore", "VSHSpatiaLite", "VSHPostGIS", "VSHEngine",
                "VSHTestSupport",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "VSHAccountsTests", dependencies: ["VSHCore", "VSHAccounts"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "VSHServerTests",
            dependencies: [
                "VSHCore", "VSHServer", "VSHMemoryStore", "VSHSpatiaLite", "VSHPhoto", "VSHTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "VSHAuthoringTests",
            dependencies: ["VSHCore", "VSHAuthoring", "VSHGeodesy", "VSHSpatiaLite", "VSHTestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "VSHCommandSupportTests",
            dependencies: ["VSHCore", "VSHHost", "VSHCommandSupport", "VSHSpatiaLite"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "vsh", "vsh-master", "VSHCore", "VSHGeodesy", "VSHAccounts", "VSHSpatiaLite",
                "VSHTestSupport",
            ],
            swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
