import Foundation
public import VSHCore
import VSHGeodesy

/// Draws hunts (and a walked track) as a standalone SVG map: stops as
/// polygons (holes cut out) with their names, the track as a line, a scale
/// bar and a north arrow. A local equirectangular projection around the
/// map's centre: at a city's scale its distortion is far below a pixel.
public enum MapRenderer {
    /// The map's width in SVG units; its height follows the area's shape.
    public static let width = 1000.0
    static let margin = 48.0

    /// The hunts' stops (and `track`, a walk, when given) as one SVG document under `title`.
    public static func svg(hunts: [Hunt], track: [Coordinate] = [], title: String? = nil) -> String {
        var box: BoundingBox?
        for hunt in hunts {
            for stop in hunt.stops {
                for p in stop.geofence.allPositions {
                    if box == nil { box = BoundingBox(around: p) } else { box!.include(p) }
                }
            }
        }
        for p in track { if box == nil { box = BoundingBox(around: p) } else { box!.include(p) } }
        let bounds = box ?? BoundingBox(around: Coordinate(unchecked: 36.17, -115.14))
        let center = bounds.center
        let cosLat = cos(center.latitude * .pi / 180)
        let spanX = max((bounds.maxLongitude - bounds.minLongitude) * cosLat, 1e-6)
        let spanY = max(bounds.maxLatitude - bounds.minLatitude, 1e-6)
        // Pixels per degree of projected longitude: fill the width, but keep a tall map under 1,400 px.
        let fit = min((width - 2 * margin) / spanX, 1400 / spanY)
        let height = max(spanY * fit + 2 * margin + 40, 300)
        func project(_ p: Coordinate) -> (x: Double, y: Double) {
            let x =
                margin + (p.longitude - bounds.minLongitude) * cosLat * fit
                + ((width - 2 * margin) - spanX * fit) / 2
            let y = margin + 30 + (bounds.maxLatitude - p.latitude) * fit
            return (x, y)
        }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }

        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif">
            <rect width="100%" height="100%" fill="#f7f4ec"/>

            """
        let heading = title ?? hunts.map(\.name).joined(separator: " · ")
        out +=
            "<text x=\"\(f(margin))\" y=\"34\" font-size=\"20\" font-weight=\"bold\" fill=\"#1d3557\">\(escape(heading))</text>\n"
        let colours = ["#e76f51", "#2a9d8f", "#e9c46a", "#8e7dbe", "#f4a261"]
        for (index, hunt) in hunts.enumerated() {
            let colour = colours[index % colours.count]
            out +=
                "<g fill=\"\(colour)\" fill-opacity=\"0.45\" stroke=\"\(colour)\" stroke-width=\"1.5\" fill-rule=\"evenodd\">\n"
            for stop in hunt.stops {
                var d = ""
                for polygon in stop.geofence.polygons {
                    for ring in polygon.rings {
                        for (i, p) in ring.positions.enumerated() {
                            let q = project(p)
                            d += (i == 0 ? "M" : "L") + f(q.x) + " " + f(q.y) + " "
                        }
                        d += "Z "
                    }
                }
                out += "<path d=\"\(d)\"><title>\(escape(stop.name))</title></path>\n"
            }
            out += "</g>\n"
        }
        if !track.isEmpty {
            var points: [String] = []
            var last: (x: Double, y: Double)?
            for p in track {
                let q = project(p)
                if let l = last, abs(l.x - q.x) < 1, abs(l.y - q.y) < 1 { continue }
                points.append(f(q.x) + "," + f(q.y))
                last = q
            }
            out +=
                "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"#264653\" stroke-width=\"2\" stroke-linejoin=\"round\" stroke-opacity=\"0.85\"/>\n"
            let start = project(track[0])
            out += "<circle cx=\"\(f(start.x))\" cy=\"\(f(start.y))\" r=\"5\" fill=\"#264653\"/>\n"
        }
        out +=
            "<g font-size=\"12\" fill=\"#1d3557\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\" text-anchor=\"middle\">\n"
        // Labels go above their stop, or just below, or further off, whichever first
        // clears the labels already placed (boxes of 6.6 px a character by 14 px).
        var placed: [(x0: Double, y0: Double, x1: Double, y1: Double)] = []
        for hunt in hunts {
            for stop in hunt.stops {
                let c = project(stop.geofence.bounds.center)
                let half = Double(stop.name.count) * 3.3
                let x = min(max(c.x, half + 4), width - half - 4)
                var y = c.y - 4
                for offset in [-4.0, 16, -20, 32, -36, 48] {
                    let candidate = (x0: x - half, y0: c.y + offset - 11, x1: x + half, y1: c.y + offset + 3)
                    let clear = !placed.contains {
                        $0.x0 < candidate.x1 && candidate.x0 < $0.x1 && $0.y0 < candidate.y1
                            && candidate.y0 < $0.y1
                    }
                    if clear {
                        y = c.y + offset
                        placed.append(candidate)
                        break
                    }
                }
                out += "<text x=\"\(f(x))\" y=\"\(f(y))\">\(escape(stop.name))</text>\n"
            }
        }
        out += "</g>\n"
        // Scale bar: a round length near a fifth of the width.
        let metersPerPixel = Geodesic.distanceMeters(
            Coordinate(unchecked: center.latitude, center.longitude),
            Coordinate(unchecked: center.latitude, min(180, center.longitude + 1 / (fit * cosLat))))
        let target = metersPerPixel * width / 5
        let nice =
            [1.0, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000].last {
                $0 <= target
            } ?? 1
        let barPixels = nice / metersPerPixel
        let y0 = height - 24
        out +=
            "<g stroke=\"#1d3557\" stroke-width=\"2\"><line x1=\"\(f(margin))\" y1=\"\(f(y0))\" x2=\"\(f(margin + barPixels))\" y2=\"\(f(y0))\"/>"
        out +=
            "<line x1=\"\(f(margin))\" y1=\"\(f(y0 - 5))\" x2=\"\(f(margin))\" y2=\"\(f(y0 + 5))\"/><line x1=\"\(f(margin + barPixels))\" y1=\"\(f(y0 - 5))\" x2=\"\(f(margin + barPixels))\" y2=\"\(f(y0 + 5))\"/></g>\n"
        let label = nice >= 1000 ? "\(Int(nice / 1000)) km" : "\(Int(nice)) m"
        out +=
            "<text x=\"\(f(margin + barPixels + 8))\" y=\"\(f(y0 + 4))\" font-size=\"12\" fill=\"#1d3557\">\(label)</text>\n"
        // North arrow.
        let nx = width - margin
        out +=
            "<g fill=\"#1d3557\"><path d=\"M\(f(nx)) 48 L\(f(nx - 9)) 74 L\(f(nx)) 68 L\(f(nx + 9)) 74 Z\"/><text x=\"\(f(nx))\" y=\"44\" font-size=\"14\" text-anchor=\"middle\">N</text></g>\n"
        out += "</svg>\n"
        return out
    }

    /// Writes the map atomically (temporary file, then rename).
    public static func write(hunts: [Hunt], track: [Coordinate] = [], title: String? = nil, to path: String)
        throws
    {
        let text = svg(hunts: hunts, track: track, title: title)
        let temporary = path + ".tmp-\(getpid())"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            if FileManager.default.fileExists(atPath: path) {
                try FileManager.default.removeItem(atPath: path)
            }
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw FileAccessError.cannotWrite(path: path)
        }
    }

    static func escape(_ text: String) -> String { Markup.escaped(text) }
}
