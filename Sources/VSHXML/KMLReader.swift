import Foundation
public import VSHCore

/// What vsh reads from a KML 2.2 file: the document's name, description and
/// `ExtendedData`, and every Placemark with polygons (Polygon or MultiGeometry
/// of Polygons, holes included). Placemarks without polygons (points, paths)
/// are reported so that an import can say what it left out.
public struct KMLDocument: Sendable {
    public struct Placemark: Sendable {
        /// The Placemark's `id` attribute.
        public var id: String?
        public var name: String?
        public var description: String?
        /// `ExtendedData/Data[@name]/value`.
        public var data: [String: String] = [:]
        /// Polygons: rings of positions, the first the outer boundary.
        public var polygons: [[[Coordinate]]] = []
        public var line: Int
    }

    public var name: String?
    public var description: String?
    public var data: [String: String] = [:]
    public var placemarks: [Placemark] = []
    /// Lines of Placemarks that have no polygon, with what they have instead.
    public var skipped: [(line: Int, reason: String)] = []
}

public enum KMLReader {
    /// Reads a KML file.
    /// - Throws: `XMLFileError` for an unreadable or malformed file, or one whose root is not `<kml>`;
    ///   `XMLFileError.badCoordinates` for coordinates that are not `lon,lat[,alt]` in range.
    public static func read(path: String) throws -> KMLDocument {
        let stream = try XMLStream(path: path, expectedRoot: "kml")
        var document = KMLDocument()
        var placemark: KMLDocument.Placemark?
        var polygon: [[Coordinate]]?
        var dataName: String?
        var text = ""
        var sawOtherGeometry: String?
        var documentNameSet = false
        try stream.run { event in
            switch event {
            case .start(let name, let line, _):
                text = ""
                switch name {
                case "Placemark":
                    placemark = KMLDocument.Placemark(id: stream.attribute("id"), line: line)
                    sawOtherGeometry = nil
                case "Polygon": polygon = []
                case "Data": dataName = stream.attribute("name")
                case "Point", "LineString", "Model", "Track": if polygon == nil { sawOtherGeometry = name }
                default: break
                }
            case .text(let value):
                text += value
            case .end(let name):
                let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
                switch name {
                case "name":
                    if placemark != nil {
                        placemark?.name = value
                    } else if !documentNameSet {
                        document.name = value
                        documentNameSet = true
                    }
                case "description":
                    if placemark != nil {
                        placemark?.description = value
                    } else if document.description == nil {
                        document.description = value
                    }
                case "value":
                    if let dataName {
                        if placemark != nil {
                            placemark?.data[dataName] = value
                        } else {
                            document.data[dataName] = value
                        }
                    }
                case "Data":
                    dataName = nil
                case "coordinates":
                    if polygon != nil {
                        polygon?.append(try coordinates(value, line: placemark?.line ?? 0, path: stream.path))
                    }
                case "Polygon":
                    if let rings = polygon, !rings.isEmpty { placemark?.polygons.append(rings) }
                    polygon = nil
                case "Placemark":
                    if let done = placemark {
                        if done.polygons.isEmpty {
                            document.skipped.append(
                                (
                                    done.line,
                                    "placemark \"\(done.name ?? done.id ?? "?")\" has no polygon (\(sawOtherGeometry ?? "no geometry"))"
                                ))
                        } else {
                            document.placemarks.append(done)
                        }
                    }
                    placemark = nil
                default: break
                }
                text = ""
            }
        }
        return document
    }

    /// `lon,lat[,alt]` tuples separated by white space (KML 2.2 §16.9).
    static func coordinates(_ text: String, line: Int, path: String) throws -> [Coordinate] {
        try text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).map { tuple in
            let parts = tuple.split(separator: ",")
            guard parts.count >= 2, let lon = Double(parts[0]), let lat = Double(parts[1]),
                let coordinate = try? Coordinate(latitude: lat, longitude: lon)
            else {
                throw XMLFileError.badCoordinates(file: path, line: line, text: String(tuple))
            }
            return coordinate
        }
    }
}
