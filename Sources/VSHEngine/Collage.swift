import Foundation
public import VSHCore
public import VSHPhoto

/// The picture collage the seed app promised: a player's accepted photos of a
/// hunt in a grid with the stop names, written as a JPEG.
///
/// Each photo is decoded with libjpeg's DCT scaling (1/2, 1/4, 1/8) just large
/// enough for its tile, turned upright by its EXIF orientation, and dropped
/// before the next is read: memory depends on the tile size, not on the
/// photos' dimensions. A stored photo that cannot be decoded is skipped with a warning.
public enum Collage {
    /// A photo's tile width in pixels.
    public static let tileWidth = 320
    /// A photo's tile height in pixels (its stop's name goes below).
    public static let tileHeight = 240
    static let label = 48
    static let gap = 8
    static let header = 56

    /// A collage and what was left out of it.
    public struct Result: Sendable {
        /// The picture.
        public var image: RGBImage
        /// Photos that could not be drawn, one line each.
        public var warnings: [String]
        /// How many photos it shows.
        public var photos: Int
    }

    /// Draws one player's collage of one hunt.
    /// - Parameters:
    ///   - player: whose photos.
    ///   - scores: where the plan (stops, visits, photo keys) comes from.
    ///   - photos: where the photos are.
    /// - Throws: `LeagueError` for an unknown player or hunt.
    public static func make(
        player: PlayerRecord, hunt huntID: String, scores: any ScoreStore, photos: any PhotoStore
    )
        async throws -> Result
    {
        try await make(
            player: player, plan: try await scores.collagePlan(player: player.id, hunt: huntID),
            photos: photos)
    }

    /// What a collage shows, as a key: the player's name, the hunt's name, and each tile's stop,
    /// visit and photo (photos are content-addressed, so equal keys draw equal collages).
    public static func key(player: PlayerRecord, plan: CollagePlan) -> String {
        var parts = [player.name, plan.huntName, plan.complete ? "complete" : "open"]
        for tile in plan.tiles {
            parts += [tile.stopID, tile.stopName, tile.visited ? "1" : "0", tile.photoFile ?? ""]
        }
        return SHA256.hex(Array(parts.joined(separator: "\u{1F}").utf8))
    }

    /// Draws a collage from its plan (read beforehand, as `key(player:plan:)` needs it too).
    public static func make(player: PlayerRecord, plan: CollagePlan, photos: any PhotoStore) async throws
        -> Result
    {
        let (huntName, tiles, complete) = (plan.huntName, plan.tiles, plan.complete)
        let player = player.name
        let columns = min(3, max(1, tiles.count))
        let rows = (tiles.count + columns - 1) / columns
        let width = columns * tileWidth + (columns + 1) * gap
        let height = header + rows * (tileHeight + label) + (rows + 1) * gap
        var canvas = RGBImage(width: width, height: height, fill: (20, 16, 42))
        canvas.text(player, x: gap + 4, y: 12, scale: 3, maxWidth: width - 2 * gap, color: (255, 209, 102))
        canvas.text(
            huntName + (complete ? " - COMPLETE!" : ""), x: gap + 4, y: 38, scale: 2,
            maxWidth: width - 2 * gap, color: (245, 240, 255))
        var warnings: [String] = []
        var drawn = 0
        for (index, tile) in tiles.enumerated() {
            let x = gap + (index % columns) * (tileWidth + gap)
            let y = header + gap + (index / columns) * (tileHeight + label + gap)
            canvas.fill(x: x, y: y, width: tileWidth, height: tileHeight, color: (42, 33, 80))
            var drewPhoto = false
            if let file = tile.photoFile {
                do {
                    guard let bytes = try await photos.get(file) else { throw CollageError.missingPhoto }
                    let image = try PhotoDecoder.decode(bytes, covering: tileWidth, tileHeight)
                    let orientation = PhotoReader.metadata(bytes: bytes)?.orientation ?? 1
                    canvas.draw(
                        image, orientation: orientation, x: x, y: y, width: tileWidth, height: tileHeight)
                    drewPhoto = true
                    drawn += 1
                } catch {
                    warnings.append("\(file): photo for \(tile.stopID) skipped: \(error)")
                }
            }
            if !drewPhoto {
                let note = tile.visited ? "VISITED - NO PHOTO" : "NOT YET VISITED"
                canvas.text(
                    note, x: x + 16, y: y + tileHeight / 2 - 7, scale: 2, maxWidth: tileWidth - 32,
                    color: (185, 173, 219))
            }
            canvas.fill(
                x: x, y: y + tileHeight, width: tileWidth, height: label,
                color: tile.visited ? (255, 79, 163) : (59, 47, 107))
            for (line, text) in wrap(tile.stopName, columns: (tileWidth - 16) / 12).prefix(2).enumerated() {
                canvas.text(
                    text, x: x + 8, y: y + tileHeight + 6 + line * 20, scale: 2, maxWidth: tileWidth - 16,
                    color: (255, 255, 255))
            }
        }
        return Result(image: canvas, warnings: warnings, photos: drawn)
    }

    /// Words into lines of at most `columns` characters.
    static func wrap(_ text: String, columns: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= columns {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}

/// Why a collage tile has no photo.
enum CollageError: Error, CustomStringConvertible {
    case missingPhoto

    var description: String { "missing from the photo store" }
}
