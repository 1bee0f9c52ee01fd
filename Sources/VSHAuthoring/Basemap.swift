import Foundation
public import VSHCore
public import VSHXML

/// An organiser's base layer for vsh's own maps (`hunts/basemap.json`): the streets, footpaths,
/// buildings and water of a hunt's area, from an OpenStreetMap extract or GeoJSON, as one GeoJSON
/// FeatureCollection whose features have `kind` (and a street's `name`), positions at 6 decimals.
public enum Basemap {
    /// The file's name in the hunts folder (not `.geojson`: that is a hunt file).
    public static let fileName = "basemap.json"
    /// A basemap file at most.
    public static let maxFileBytes = 32 << 20
    /// OpenStreetMap's attribution, which every map drawn over its data shows.
    public static let osmAttribution = "© OpenStreetMap contributors (ODbL)"

    /// The basemap file's text.
    public static func text(_ features: [BasemapFeature], attribution: String?, source: String) -> String {
        func position(_ c: Coordinate) -> JSONValue {
            .array([.double(rounded(c.longitude)), .double(rounded(c.latitude))])
        }
        let items: [JSONValue] = features.map { feature in
            var properties: [(key: String, value: JSONValue)] = [("kind", .string(feature.kind.rawValue))]
            if let name = feature.name { properties.append(("name", .string(name))) }
            let coordinates = JSONValue.array(feature.points.map(position))
            return .object([
                "type": .string("Feature"), "properties": .object(JSONObject(properties)),
                "geometry": .object([
                    "type": .string(feature.isArea ? "Polygon" : "LineString"),
                    "coordinates": feature.isArea ? .array([coordinates]) : coordinates,
                ]),
            ])
        }
        var members: [(key: String, value: JSONValue)] = [("type", .string("FeatureCollection"))]
        if let attribution { members.append(("attribution", .string(attribution))) }
        members.append(("source", .string(source)))
        members.append(("features", .array(items)))
        // One feature a line: a diff of two imports stays readable.
        let lines = items.map { "  " + $0.compactText }
        let head = JSONValue.object(JSONObject(members.filter { $0.key != "features" })).compactText
            .dropLast()
        return head + ",\"features\":[\n" + lines.joined(separator: ",\n") + "\n]}\n"
    }

    static func rounded(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 }

    /// The features of a GeoJSON file: ones written by `vsh-master basemap import` (`kind`), or
    /// with OpenStreetMap's tags as properties (`osmium export`, QGIS, overpass-turbo).
    /// - Throws: `InputProblem` naming the file and what is wrong.
    public static func features(geoJSON bytes: [UInt8], file: String) throws -> [BasemapFeature] {
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes)
        } catch {
            throw BasemapFileError(file: file, reason: "malformed JSON at \(error)")
        }
        guard case .object(let root) = document, case .array(let items)? = root["features"] else {
            throw BasemapFileError(file: file, reason: "not a GeoJSON FeatureCollection")
        }
        var features: [BasemapFeature] = []
        for item in items {
            guard case .object(let feature) = item, case .object(let geometry)? = feature["geometry"],
                case .string(let type)? = geometry["type"], let coordinates = geometry["coordinates"]
            else { continue }
            var tags: [String: String] = [:]
            if case .object(let properties)? = feature["properties"] {
                for key in properties.keys { if case .string(let v)? = properties[key] { tags[key] = v } }
            }
            let lines: [[Coordinate]]
            let isArea: Bool
            switch type {
            case "LineString": (lines, isArea) = ([positions(coordinates)], false)
            case "MultiLineString": (lines, isArea) = (coordinates.arrayItems.map(positions), false)
            case "Polygon": (lines, isArea) = (Array(coordinates.arrayItems.prefix(1)).map(positions), true)
            case "MultiPolygon":
                (lines, isArea) = (
                    coordinates.arrayItems.compactMap { $0.arrayItems.first }.map(positions), true
                )
            default: continue
            }
            let classified: (BasemapFeature.Kind, Bool)?
            if let kind = tags["kind"].flatMap(BasemapFeature.Kind.init(rawValue:)) {
                classified = (kind, isArea)
            } else {
                classified = BasemapFeature.classify(tags, closed: isArea)
            }
            guard let (kind, _) = classified else { continue }
            for points in lines where points.count >= (isArea ? 4 : 2) {
                features.append(
                    BasemapFeature(kind: kind, name: tags["name"], points: points, isArea: isArea))
                if features.count > OSMReader.maxFeatures {
                    throw BasemapError.tooLarge(
                        file: file, what: "streets, paths, buildings and waters", limit: OSMReader.maxFeatures
                    )
                }
            }
        }
        return features
    }

    static func positions(_ value: JSONValue) -> [Coordinate] {
        value.arrayItems.compactMap { position in
            let numbers = position.arrayItems
            guard numbers.count >= 2, case .number(let lon, _) = numbers[0],
                case .number(let lat, _) = numbers[1]
            else { return nil }
            return try? Coordinate(latitude: lat, longitude: lon)
        }
    }
}

/// A basemap file that is not usable GeoJSON.
public struct BasemapFileError: Error, Sendable, CustomStringConvertible, ClassifiedError {
    /// The file.
    public var file: String
    /// What is wrong.
    public var reason: String

    /// `file: reason`.
    public var description: String { "\(file): \(reason)" }

    /// Bad input data.
    public var errorKind: ErrorKind { .invalidData }
}

extension JSONValue {
    fileprivate var arrayItems: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }
}
