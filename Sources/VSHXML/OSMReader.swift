import Foundation
public import VSHCore

/// One line or area of a basemap: a street, a footpath, a building or water.
public struct BasemapFeature: Sendable, Equatable {
    /// What it is, as the maps draw it.
    public enum Kind: String, Sendable, CaseIterable {
        /// A road a car may use.
        case street
        /// A footway, path, pedestrian street, steps or cycleway.
        case footway
        /// A building's outline.
        case building
        /// A lake, pond, river or stream.
        case water
    }

    /// What it is.
    public var kind: Kind
    /// Its name (a street's), if it has one.
    public var name: String?
    /// Its positions; an area's first and last are the same.
    public var points: [Coordinate]
    /// Whether it is an area (buildings, lakes) rather than a line.
    public var isArea: Bool

    /// A feature from its parts.
    public init(kind: Kind, name: String?, points: [Coordinate], isArea: Bool) {
        self.kind = kind
        self.name = name
        self.points = points
        self.isArea = isArea
    }

    /// The kind OpenStreetMap tags describe, and whether it is an area; nil for what a basemap
    /// does not draw.
    public static func classify(_ tags: [String: String], closed: Bool) -> (Kind, Bool)? {
        if let building = tags["building"], building != "no", closed { return (.building, true) }
        if closed,
            tags["natural"] == "water" || tags["waterway"] == "riverbank"
                || ["reservoir", "basin"].contains(tags["landuse"] ?? "")
        {
            return (.water, true)
        }
        if let waterway = tags["waterway"], ["river", "stream", "canal", "drain", "ditch"].contains(waterway)
        {
            return (.water, false)
        }
        guard let highway = tags["highway"] else { return nil }
        if ["footway", "path", "pedestrian", "steps", "cycleway", "track", "bridleway", "corridor"].contains(
            highway)
        {
            return (.footway, false)
        }
        if [
            "motorway", "trunk", "primary", "secondary", "tertiary", "unclassified", "residential", "service",
            "living_street", "road", "motorway_link", "trunk_link", "primary_link", "secondary_link",
            "tertiary_link",
        ].contains(highway) {
            return (.street, false)
        }
        return nil
    }
}

/// Why an OpenStreetMap extract was not imported.
public enum BasemapError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    /// The extract is larger than a hunt's area needs.
    case tooLarge(file: String, what: String, limit: Int)

    /// The problem, with what to do.
    public var description: String {
        switch self {
        case .tooLarge(let file, let what, let limit):
            return
                "\(file): more than \(limit) \(what); cut the extract to the hunt's area first (osmium extract -b WEST,SOUTH,EAST,NORTH)"
        }
    }

    /// Input data too large to use.
    public var errorKind: ErrorKind { .invalidData }
}

/// OpenStreetMap XML (`.osm`, as `osmium cat` or the editors write it), streamed: the ways that
/// are streets, footpaths, buildings and water, with their nodes' positions. Relations (large
/// multipolygons) are not read.
public enum OSMReader {
    /// Nodes kept at most (their positions, for the ways that follow).
    public static let maxNodes = 3_000_000
    /// Features at most.
    public static let maxFeatures = 200_000

    /// - Throws: `XMLFileError` for an unreadable or malformed file or one whose root is not
    ///   `<osm>`; `BasemapError.tooLarge` past the limits.
    public static func read(path: String) throws -> [BasemapFeature] {
        let stream = try XMLStream(path: path, expectedRoot: "osm")
        var nodes: [Int64: Coordinate] = [:]
        var features: [BasemapFeature] = []
        var inWay = false
        var refs: [Int64] = []
        var tags: [String: String] = [:]
        try stream.run { event in
            switch event {
            case .start(let name, _, _):
                switch name {
                case "node":
                    guard let id = stream.attribute("id").flatMap({ Int64($0) }),
                        let lat = stream.attribute("lat").flatMap({ Double($0) }),
                        let lon = stream.attribute("lon").flatMap({ Double($0) }),
                        let coordinate = try? Coordinate(latitude: lat, longitude: lon)
                    else { return }
                    if nodes.count >= maxNodes {
                        throw BasemapError.tooLarge(file: path, what: "nodes", limit: maxNodes)
                    }
                    nodes[id] = coordinate
                case "way":
                    inWay = true
                    refs.removeAll(keepingCapacity: true)
                    tags.removeAll(keepingCapacity: true)
                case "nd" where inWay:
                    if let ref = stream.attribute("ref").flatMap({ Int64($0) }) { refs.append(ref) }
                case "tag" where inWay:
                    if let key = stream.attribute("k"), let value = stream.attribute("v") {
                        tags[key] = value
                    }
                default: break
                }
            case .end(let name) where name == "way":
                inWay = false
                let closed = refs.count >= 4 && refs.first == refs.last
                guard let (kind, isArea) = BasemapFeature.classify(tags, closed: closed) else { return }
                // A way cut at the extract's edge keeps the nodes it has.
                let points = refs.compactMap { nodes[$0] }
                guard points.count >= (isArea ? 4 : 2) else { return }
                if features.count >= maxFeatures {
                    throw BasemapError.tooLarge(
                        file: path, what: "streets, paths, buildings and waters", limit: maxFeatures)
                }
                features.append(
                    BasemapFeature(kind: kind, name: tags["name"], points: points, isArea: isArea))
            default: break
            }
        }
        return features
    }
}
