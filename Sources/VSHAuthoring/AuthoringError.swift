public import VSHCore

/// Why an authoring step was refused: input that names its culprit (a file, a hunt, a stop).
/// The CLI adds the flags that fix what needs one (`missingHuntID`: `--id`).
public enum AuthoringError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    /// No hunt with this id in the folder; `known` lists the ids there are.
    case unknownHunt(id: String, folder: String, known: [String])
    /// No stop with this id in the folder.
    case unknownStop(id: String, folder: String)
    /// A hunt file could not be written (no permission, disk full).
    case cannotWrite(path: String, reason: String)
    /// A stop image that does not exist.
    case imageNotFound(file: String)
    /// A stop image of a kind browsers do not all show.
    case unsupportedImage(file: String)
    /// A stop image that exists but cannot be read.
    case unreadableImage(file: String)
    /// A stop image that cannot be copied into the hunts folder.
    case cannotWriteImage(path: String)
    /// A file to import that is neither KML nor GeoJSON.
    case unsupportedImportFormat(file: String)
    /// An imported hunt has no usable id (the command line can give one).
    case missingHuntID(file: String)
    /// An imported hunt has no name (the command line can give one).
    case missingHuntName(file: String)
    /// A plain FeatureCollection: it needs an id and a name to become a hunt.
    case notAHuntFile(file: String)
    /// A file that cannot be opened.
    case unreadableFile(file: String)
    /// JSON that does not parse.
    case malformedJSON(file: String, error: String)
    /// JSON that is not a GeoJSON FeatureCollection.
    case notAFeatureCollection(file: String)
    /// A FeatureCollection with other than one feature, where one stop is meant.
    case notOneFeature(file: String)
    /// GeoJSON whose geometry is not a valid stop.
    case badGeometry(file: String, problem: String)
    /// A walked perimeter with fewer than 3 points.
    case tooFewTrackPoints(file: String, found: Int)
    /// A walk that ends too far from where it started, in metres.
    case openPerimeter(file: String, gapMeters: Int, allowedMeters: Int)
    /// A geometry operation refused the input (see `SpatialOperationError`).
    case geometry(file: String, SpatialOperationError)
    /// A corner photo without a usable GPS position.
    case photoWithoutPosition(file: String, note: String)
    /// Corner photos at fewer than 3 places a metre apart.
    case tooFewCorners(found: Int)
    /// A circle's radius outside 1 to 50,000 m.
    case radiusOutOfRange

    /// What is wrong, naming the culprit.
    public var description: String {
        switch self {
        case .unknownHunt(let id, let folder, let known):
            return "no hunt \"\(id)\" in \(folder)"
                + (known.isEmpty ? "" : " (hunts: \(known.joined(separator: ", ")))")
        case .unknownStop(let id, let folder): return "no stop \"\(id)\" in \(folder)"
        case .cannotWrite(let path, let reason): return "\(path): \(reason)"
        case .imageNotFound(let file): return "\(file): image not found"
        case .unsupportedImage(let file): return "\(file): an image should be .jpg, .png, .webp or .gif"
        case .unreadableImage(let file): return "\(file): cannot read the image"
        case .cannotWriteImage(let path): return "\(path): cannot write the image"
        case .unsupportedImportFormat(let file): return "\(file): import reads .kml and .geojson files"
        case .missingHuntID(let file):
            return "\(file): the hunt needs an id (lower-case letters, digits, hyphens)"
        case .missingHuntName(let file): return "\(file): the hunt needs a name"
        case .notAHuntFile(let file):
            return "\(file): this FeatureCollection is not a hunt file; it needs an id and a name"
        case .unreadableFile(let file): return "\(file): cannot open the file"
        case .malformedJSON(let file, let error): return "\(file): malformed JSON at \(error)"
        case .notAFeatureCollection(let file): return "\(file): not a GeoJSON FeatureCollection"
        case .notOneFeature(let file):
            return "\(file): a FeatureCollection must hold exactly one feature here"
        case .badGeometry(let file, let problem): return "\(file): \(problem)"
        case .tooFewTrackPoints(let file, let found):
            return "\(file): a perimeter needs a track of at least 3 points (found \(found))"
        case .openPerimeter(let file, let gap, let allowed):
            return
                "\(file): the walk does not come back near its start (it ends \(gap) m away; at most \(allowed) m): walk the whole perimeter"
        case .geometry(let file, let error): return "\(file): \(error)"
        case .photoWithoutPosition(let file, let note):
            return "\(file): the photo has no GPS position (\(note))"
        case .tooFewCorners(let found):
            return "photos at \(found) different places; take at least 3 corners (more than a metre apart)"
        case .radiusOutOfRange: return "a circle's radius is 1 to 50,000 m"
        }
    }

    /// Unavailable input for files that cannot be opened or written, an invalid request for what
    /// the command must add, else invalid data.
    public var errorKind: ErrorKind {
        switch self {
        case .cannotWrite, .imageNotFound, .unreadableImage, .cannotWriteImage, .unreadableFile:
            return .unavailableInput
        case .unsupportedImportFormat, .missingHuntID, .missingHuntName, .notAHuntFile, .radiusOutOfRange:
            return .invalidRequest
        case .geometry(_, let error): return error.errorKind
        default: return .invalidData
        }
    }
}
