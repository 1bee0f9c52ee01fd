import Foundation
public import VSHCore

/// `vsh-master export`: a hunt as GeoJSON, KML or GPX.
public enum HuntExport {
    public enum Format: String, CaseIterable, Sendable { case geojson, kml, gpx }

    public static func text(_ hunt: Hunt, format: Format, inspector: any GeometryOperations) throws -> String
    {
        switch format {
        case .geojson: return HuntFile.text(of: hunt)
        case .kml: return kml(hunt)
        case .gpx: return try gpx(hunt, inspector: inspector)
        }
    }

    static func xml(_ text: String) -> String { Markup.escaped(text) }

    /// The hunt file's `hunt` fields as KML `ExtendedData` (so an import gives the same hunt back).
    static func huntData(_ hunt: Hunt) -> [(String, String)] {
        [
            ("id", hunt.id), ("difficulty", hunt.difficulty.rawValue),
            ("bonus_points", String(hunt.bonusPoints)),
            ("ordered", hunt.ordered ? "true" : "false"), ("timezone", hunt.timeZone),
            ("starts_at", hunt.startsAt.map(RFC3339.format) ?? ""),
            ("ends_at", hunt.endsAt.map(RFC3339.format) ?? ""),
            ("max_accuracy_m", JSONValue.double(hunt.maxAccuracyMeters).compactText),
            ("max_photo_age_s", JSONValue.double(hunt.maxPhotoAgeSeconds).compactText),
            ("tolerance_m", JSONValue.double(hunt.toleranceMeters).compactText), ("image", hunt.image ?? ""),
            ("max_fix_age_s", JSONValue.double(hunt.maxFixAgeSeconds).compactText),
            ("late_grace_s", JSONValue.double(hunt.lateGraceSeconds).compactText),
            ("proof", hunt.proofText),
            ("max_speed_kmh", JSONValue.double(hunt.maxSpeedKmh).compactText),
            ("min_duration_s", hunt.minDurationSeconds.map { JSONValue.double($0).compactText } ?? ""),
        ]
    }

    /// KML 2.2 for Google Earth: a Placemark a stop with its polygons (holes as
    /// inner boundaries), name, description, and the vsh fields in ExtendedData.
    public static func kml(_ hunt: Hunt) -> String {
        func data(_ pairs: [(String, String)], indent: String) -> String {
            indent + "<ExtendedData>\n"
                + pairs.map { "\(indent)  <Data name=\"\($0.0)\"><value>\(xml($0.1))</value></Data>\n" }
                .joined()
                + indent + "</ExtendedData>\n"
        }
        func ring(_ ring: LinearRing) -> String {
            ring.positions.map {
                "\(JSONValue.double($0.longitude).compactText),\(JSONValue.double($0.latitude).compactText)"
            }
            .joined(separator: " ")
        }
        func polygon(_ p: Polygon, indent: String) -> String {
            var out =
                "\(indent)<Polygon>\n\(indent)  <outerBoundaryIs><LinearRing><coordinates>\(ring(p.shell))</coordinates></LinearRing></outerBoundaryIs>\n"
            for hole in p.holes {
                out +=
                    "\(indent)  <innerBoundaryIs><LinearRing><coordinates>\(ring(hole))</coordinates></LinearRing></innerBoundaryIs>\n"
            }
            return out + "\(indent)</Polygon>\n"
        }
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2">
            <Document>
              <name>\(xml(hunt.name))</name>
              <description>\(xml(hunt.description))</description>

            """
        out += data(huntData(hunt), indent: "  ")
        out +=
            "  <Style id=\"stop\"><LineStyle><color>ff5170e7</color><width>2</width></LineStyle><PolyStyle><color>735170e7</color></PolyStyle></Style>\n"
        for stop in hunt.stops {
            out +=
                "  <Placemark id=\"\(xml(stop.id))\">\n    <name>\(xml(stop.name))</name>\n    <description>\(xml(stop.description))</description>\n"
            out += "    <styleUrl>#stop</styleUrl>\n"
            out += data(
                [
                    ("id", stop.id), ("points", String(stop.points)), ("image", stop.image ?? ""),
                    ("geometry", stop.geofence.kind.rawValue), ("featured", stop.featured ? "true" : "false"),
                    ("sponsor", stop.sponsor ?? ""), ("proof", StopProof.text(stop.proof)),
                ], indent: "    ")
            let geofence = HuntFile.rounded(stop.geofence)
            if geofence.polygons.count == 1 && geofence.kind == .polygon {
                out += polygon(geofence.polygons[0], indent: "    ")
            } else {
                out +=
                    "    <MultiGeometry>\n" + geofence.polygons.map { polygon($0, indent: "      ") }.joined()
                    + "    </MultiGeometry>\n"
            }
            out += "  </Placemark>\n"
        }
        return out + "</Document>\n</kml>\n"
    }

    /// GPX 1.1 for a GPS app: a waypoint a stop, at its centroid (or a point on
    /// its surface when the centroid falls outside, as for a ring-shaped stop).
    public static func gpx(_ hunt: Hunt, inspector: any GeometryOperations) throws -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="vsh-master" xmlns="http://www.topografix.com/GPX/1/1">
              <metadata><name>\(xml(hunt.name))</name><desc>\(xml(hunt.description))</desc></metadata>

            """
        for stop in hunt.stops {
            let p = try inspector.insidePoint(stop.geofence)
            let lat = String(format: "%.7f", p.latitude)
            let lon = String(format: "%.7f", p.longitude)
            out +=
                "  <wpt lat=\"\(lat)\" lon=\"\(lon)\"><name>\(xml(stop.name))</name><desc>\(xml(stop.description))</desc>"
            out += "<sym>Flag, Blue</sym><type>\(xml(hunt.id))/\(xml(stop.id))</type></wpt>\n"
        }
        return out + "</gpx>\n"
    }
}
