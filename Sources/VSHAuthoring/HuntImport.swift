import Foundation
public import VSHCore
import VSHXML

/// `vsh-master import`: a hunt from KML (Google Earth, or vsh's own export) or GeoJSON.
///
/// vsh's own exports carry every field (KML in ExtendedData), so export then
/// import gives the same hunt file byte for byte. Files drawn elsewhere need
/// `--id` and `--name`; stops take their id from the Placemark or feature id
/// (else a slug of their name) and `defaultPoints` when they say none.
public enum HuntImport {
    public struct Options: Sendable {
        public var id: String?
        public var name: String?
        public var defaultPoints = 10

        public init(id: String? = nil, name: String? = nil, defaultPoints: Int = 10) {
            self.id = id
            self.name = name
            self.defaultPoints = defaultPoints
        }
    }

    public static func read(path: String, options: Options) throws -> (hunt: Hunt, notes: [String]) {
        switch (path as NSString).pathExtension.lowercased() {
        case "kml": return try fromKML(path: path, options: options)
        case "geojson", "json": return try fromGeoJSON(path: path, options: options)
        default: throw AuthoringError.unsupportedImportFormat(file: path)
        }
    }

    /// A slug from a name: lower-case letters and digits joined by hyphens.
    public static func slug(_ text: String) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
            .lowercased()
        var out = ""
        for scalar in folded.unicodeScalars {
            if ("a"..."z").contains(Character(scalar)) || ("0"..."9").contains(Character(scalar)) {
                out.unicodeScalars.append(scalar)
            } else if !out.isEmpty && out.last != "-" {
                out += "-"
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return String(out.prefix(Slug.maxLength))
    }

    static func fromKML(path: String, options: Options) throws -> (hunt: Hunt, notes: [String]) {
        let document = try KMLReader.read(path: path)
        let data = document.data
        guard let id = options.id ?? data["id"] ?? document.name.map(slug), Slug.isValid(id) else {
            throw AuthoringError.missingHuntID(file: path)
        }
        guard let name = options.name ?? document.name, !name.isEmpty else {
            throw AuthoringError.missingHuntName(file: path)
        }
        var hunt = Hunt(id: id, name: name, description: document.description ?? "")
        if let value = data["difficulty"], let d = Hunt.Difficulty(rawValue: value) { hunt.difficulty = d }
        if let value = data["bonus_points"].flatMap(Int.init) { hunt.bonusPoints = value }
        if let value = data["ordered"] { hunt.ordered = value == "true" }
        if let value = data["timezone"], !value.isEmpty { hunt.timeZone = value }
        hunt.startsAt = data["starts_at"].flatMap(RFC3339.parse)
        hunt.endsAt = data["ends_at"].flatMap(RFC3339.parse)
        if let value = data["max_accuracy_m"].flatMap(Double.init) { hunt.maxAccuracyMeters = value }
        if let value = data["max_photo_age_s"].flatMap(Double.init) { hunt.maxPhotoAgeSeconds = value }
        if let value = data["tolerance_m"].flatMap(Double.init) { hunt.toleranceMeters = value }
        if let value = data["image"], !value.isEmpty { hunt.image = value }
        if let value = data["max_fix_age_s"].flatMap(Double.init) { hunt.maxFixAgeSeconds = value }
        if let value = data["late_grace_s"].flatMap(Double.init) { hunt.lateGraceSeconds = value }
        if let value = data["proof"] { hunt.setProof(text: value) }
        if let value = data["max_speed_kmh"].flatMap(Double.init) { hunt.maxSpeedKmh = value }
        hunt.minDurationSeconds = data["min_duration_s"].flatMap(Double.init)
        for placemark in document.placemarks {
            let stopName = placemark.name ?? placemark.id ?? "stop"
            let stopID = placemark.data["id"] ?? placemark.id ?? slug(stopName)
            let polygons = try placemark.polygons.map { rings -> Polygon in
                let built = try rings.enumerated().map { index, ring in try LinearRing(ring, index: index) }
                return Polygon(shell: built[0], holes: Array(built.dropFirst()))
            }
            let kind: Geofence.Kind =
                placemark.data["geometry"] == "MultiPolygon" || polygons.count > 1 ? .multiPolygon : .polygon
            hunt.stops.append(
                Stop(
                    id: stopID, huntID: id, name: stopName, description: placemark.description ?? "",
                    points: placemark.data["points"].flatMap(Int.init) ?? options.defaultPoints,
                    image: placemark.data["image"].flatMap { $0.isEmpty ? nil : $0 },
                    geofence: HuntFile.rounded(try Geofence(kind: kind, polygons: polygons)),
                    featured: placemark.data["featured"] == "true",
                    sponsor: placemark.data["sponsor"].flatMap { $0.isEmpty ? nil : $0 },
                    proof: placemark.data["proof"].flatMap(StopProof.parse) ?? []))
        }
        return (hunt, document.skipped.map { "\(path):\($0.line): \($0.reason): left out" })
    }

    static func fromGeoJSON(path: String, options: Options) throws -> (hunt: Hunt, notes: [String]) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AuthoringError.unreadableFile(file: path)
        }
        let root: JSONValue
        do {
            root = try JSONValue.parse([UInt8](data))
        } catch {
            throw AuthoringError.malformedJSON(file: path, error: "\(error)")
        }
        guard case .object(var collection) = root, collection["type"] == .string("FeatureCollection") else {
            throw AuthoringError.notAFeatureCollection(file: path)
        }
        // A plain FeatureCollection from a GIS tool: make it a hunt file first.
        if collection["hunt"] == nil {
            guard let id = options.id, Slug.isValid(id), let name = options.name else {
                throw AuthoringError.notAHuntFile(file: path)
            }
            collection["hunt"] = .object(["id": .string(id), "name": .string(name)])
            if case .array(let features)? = collection["features"] {
                collection["features"] = .array(
                    features.map { feature in
                        guard case .object(var f) = feature else { return feature }
                        var properties: JSONObject = [:]
                        if case .object(let p)? = f["properties"] { properties = p }
                        let featureName: String
                        if case .string(let n)? = properties["name"] {
                            featureName = n
                        } else {
                            featureName = "stop"
                        }
                        if properties["points"] == nil { properties["points"] = .int(options.defaultPoints) }
                        if properties["name"] == nil { properties["name"] = .string(featureName) }
                        if case .string? = f["id"] {} else { f["id"] = .string(slug(featureName)) }
                        f["properties"] = .object(properties)
                        return .object(f)
                    })
            }
        } else if let id = options.id, case .object(var meta)? = collection["hunt"] {
            meta["id"] = .string(id)
            collection["hunt"] = .object(meta)
        }
        let expected: String?
        if case .object(let meta)? = collection["hunt"], case .string(let id)? = meta["id"] {
            expected = id
        } else {
            expected = nil
        }
        let text = JSONValue.object(collection).compactText
        switch HuntFile.read(Array(text.utf8), file: path, expectedID: expected, inspector: AcceptAll()) {
        case .success(var hunt):
            hunt.stops = hunt.stops.map { stop in
                var s = stop
                s.geofence = HuntFile.rounded(stop.geofence)
                return s
            }
            return (hunt, [])
        case .failure(let errors): throw errors
        }
    }

    /// Structure only: topology and areas are checked when the folder is saved.
    struct AcceptAll: GeofenceInspector {
        func inspect(_ geofence: Geofence) throws -> GeofenceInspection {
            GeofenceInspection(invalidReason: nil, areaSquareMeters: 1_000)
        }
    }
}
