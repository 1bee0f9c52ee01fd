public import Foundation
import VSHCore

extension TestSupport {
    /// The shipped hunts' file names.
    public static let shippedHuntFiles = [
        "strip-classics.geojson", "downtown-fremont.geojson", "badges.json",
    ]

    /// Copies the shipped hunts (hunts/) into `folder`. With `freePace` (the default) their pace
    /// rules are lifted: any speed up to the impossible one, no least duration, no stop that asks
    /// for a photo of its own, so that a test of scoring, leaderboards or the service may check in
    /// at stop after stop in a few simulated minutes. Tests of the pace rules copy them as shipped.
    public static func copyShippedHunts(to folder: URL, freePace: Bool = true) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in shippedHuntFiles {
            let source = packageRoot.appendingPathComponent("hunts/\(name)")
            let target = folder.appendingPathComponent(name)
            guard freePace, name.hasSuffix(".geojson") else {
                try FileManager.default.copyItem(at: source, to: target)
                continue
            }
            try Data(freePaced(try Data(contentsOf: source)).utf8).write(to: target)
        }
    }

    /// A hunt file's text with its pace rules lifted (see `copyShippedHunts`), in vsh-master's form.
    public static func freePaced(_ bytes: Data) throws -> String {
        var hunt = try HuntFile.read(Array(bytes), file: "hunt", expectedID: nil, inspector: Shipped())
            .get()
        hunt.maxSpeedKmh = Hunt.impossibleSpeedKmh
        hunt.minDurationSeconds = nil
        for index in hunt.stops.indices { hunt.stops[index].proof = [] }
        return HuntFile.text(of: hunt)
    }

    /// The shipped hunts' stops are valid (`vsh-master validate` says so in its own test).
    private struct Shipped: GeofenceInspector {
        func inspect(_ geofence: Geofence) throws -> GeofenceInspection {
            GeofenceInspection(invalidReason: nil, areaSquareMeters: 1_000)
        }
    }

    /// A folder holding the shipped hunts with their pace rules lifted, made once per test process
    /// and removed when it exits.
    public static let freePacedHunts: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vsh-free-paced-hunts-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: folder)
        try! copyShippedHunts(to: folder)
        atexit { try? FileManager.default.removeItem(at: TestSupport.freePacedHunts) }
        return folder
    }()
}
