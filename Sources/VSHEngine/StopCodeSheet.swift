import Foundation
public import VSHCore

/// Printed stop codes: the address a stop's QR code holds, and the sheet an organiser prints,
/// cuts and sticks at each stop (`vsh-master codes`): per stop a card with the stop's name, its
/// QR code and the code in large letters, for a phone without a camera app at hand.
public enum StopCodeSheet {
    /// Paper sizes, in millimetres.
    public enum Paper: String, CaseIterable, Sendable {
        case a4, letter

        /// Width and height in millimetres.
        public var size: (width: Double, height: Double) {
            switch self {
            case .a4: return (210, 297)
            case .letter: return (215.9, 279.4)
            }
        }
    }

    /// Cards on a page: two across, three down.
    public static let columns = 2
    /// Rows of cards on a page.
    public static let rows = 3

    /// The address a stop's QR code holds: its page, which checks in with the code.
    public static func url(publicURL: String, stop: String, code: Secret) -> String {
        let base = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        return "\(base)/stops/\(stop)?code=\(code.revealed)"
    }

    /// A code as people read it: in groups of four (`K7MQ-R2XW-HT`).
    public static func grouped(_ code: String) -> String {
        var groups: [String] = []
        var rest = Substring(code)
        while !rest.isEmpty {
            groups.append(String(rest.prefix(4)))
            rest = rest.dropFirst(4)
        }
        return groups.joined(separator: "-")
    }

    /// The pages (SVG documents, one per page of `paper`) of the cards of `hunt`'s stops with a
    /// printed code; nil when none has one.
    public static func pages(_ hunt: Hunt, publicURL: String, paper: Paper) -> [String]? {
        let stops = hunt.stops.filter { $0.code != nil }
        guard !stops.isEmpty else { return nil }
        let perPage = columns * rows
        return stride(from: 0, to: stops.count, by: perPage).map { start in
            page(
                Array(stops[start..<min(start + perPage, stops.count)]), hunt: hunt, publicURL: publicURL,
                paper: paper)
        }
    }

    static func page(_ stops: [Stop], hunt: Hunt, publicURL: String, paper: Paper) -> String {
        let (width, height) = paper.size
        let margin = 10.0
        let cardWidth = (width - 2 * margin) / Double(columns)
        let cardHeight = (height - 2 * margin) / Double(rows)
        func number(_ value: Double) -> String { String(format: "%.2f", value) }
        var body = ""
        for (index, stop) in stops.enumerated() {
            guard let code = stop.code else { continue }
            let x = margin + Double(index % columns) * cardWidth
            let y = margin + Double(index / columns) * cardHeight
            let url = url(publicURL: publicURL, stop: stop.id, code: code)
            body += """
                <g transform="translate(\(number(x)) \(number(y)))">\
                <rect x="1" y="1" width="\(number(cardWidth - 2))" height="\(number(cardHeight - 2))" rx="3" fill="none" stroke="#999" stroke-width="0.3" stroke-dasharray="2 2"/>\
                <text x="\(number(cardWidth / 2))" y="10" font-size="5" font-weight="bold" text-anchor="middle">\(Markup.escaped(String(stop.name.prefix(40))))</text>\
                <text x="\(number(cardWidth / 2))" y="15" font-size="3" text-anchor="middle" fill="#555">\(Markup.escaped(String(hunt.name.prefix(60))))</text>

                """
            if let qr = QRCode(url) {
                let side = min(cardWidth, cardHeight) - 36
                let module = side / Double(qr.width + 8)
                let path = qr.pathData()
                body += """
                    <g transform="translate(\(number((cardWidth - side) / 2)) 18) scale(\(String(format: "%.4f", module)))">\
                    <rect width="\(qr.width + 8)" height="\(qr.width + 8)" fill="#fff"/><path d="\(path)" fill="#000"/></g>

                    """
                body += """
                    <text x="\(number(cardWidth / 2))" y="\(number(18 + side + 8))" font-size="7" font-family="monospace" text-anchor="middle" letter-spacing="0.5">\(grouped(code.revealed))</text>\
                    <text x="\(number(cardWidth / 2))" y="\(number(18 + side + 13))" font-size="2.8" text-anchor="middle" fill="#555">Scan with your phone's camera, or type the code on the stop's page</text>
                    </g>

                    """
            } else {
                body += "</g>\n"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(number(width))mm" height="\(number(height))mm" viewBox="0 0 \(number(width)) \(number(height))" font-family="sans-serif" shape-rendering="crispEdges">
            <rect width="100%" height="100%" fill="#fff"/>
            \(body)</svg>

            """
    }
}
