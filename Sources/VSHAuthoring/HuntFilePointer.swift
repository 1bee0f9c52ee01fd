import Foundation
public import VSHCore

/// Where in a hunt file a problem or a warning is: a JSON Pointer (RFC 6901) into the document,
/// for the organisers' console to show each message next to what it is about.
public enum HuntFilePointer {
    /// The pointer of a validation error in `document` (the hunt file as parsed; nil when it is
    /// not JSON): `/hunt/name`, `/features/3/properties/points`, `/features/3/geometry`, or ""
    /// for the whole document.
    public static func of(_ error: HuntFileError, in document: JSONValue?) -> String {
        let feature = error.stop.flatMap { featureIndex(of: $0, in: document) }.map { "/features/\($0)" }
        switch error.problem {
        case .syntax, .tooLarge, .notAFeatureCollection, .unreadable: return ""
        case .duplicateHunt, .huntIDMismatch: return "/hunt/id"
        case .duplicateStop(let id, _):
            return (feature ?? featureIndex(of: id, in: document).map { "/features/\($0)" }).map {
                $0 + "/id"
            }
                ?? "/features"
        case .geometry, .tooManyPositions: return feature.map { $0 + "/geometry" } ?? ""
        case .missingField(let field), .wrongType(let field, _, _), .invalidValue(let field, _),
            .unknownField(let field):
            if error.badge != nil { return "" }
            if let feature {
                if field.hasPrefix("geometry") || field == "properties" || field == "id" {
                    return feature + "/" + path(field)
                }
                return feature + "/properties/" + path(field)
            }
            if field.hasPrefix("features[") { return "/" + path(field) }
            if field == "hunt" || field == "features" { return "/" + field }
            return "/hunt/" + path(field.hasPrefix("hunt.") ? String(field.dropFirst(5)) : field)
        }
    }

    /// The pointer of a warning: the stop's feature, or the hunt's metadata.
    public static func of(_ finding: HuntLint.Finding, in document: JSONValue?) -> String {
        finding.stop.flatMap { featureIndex(of: $0, in: document) }.map { "/features/\($0)" } ?? "/hunt"
    }

    /// The index in `features` of the stop with this id.
    static func featureIndex(of stop: String, in document: JSONValue?) -> Int? {
        guard case .object(let object)? = document, case .array(let features)? = object["features"] else {
            return nil
        }
        return features.firstIndex {
            guard case .object(let feature) = $0 else { return false }
            if case .string(let id)? = feature["id"], id == stop { return true }
            return false
        }
    }

    /// `features[3].id` as `features/3/id`, each token escaped (`~` as `~0`, `/` as `~1`).
    static func path(_ field: String) -> String {
        var tokens: [String] = []
        for part in field.split(separator: ".", omittingEmptySubsequences: false) {
            var name = Substring(part)
            var indices: [String] = []
            while name.hasSuffix("]"), let open = name.lastIndex(of: "[") {
                indices.insert(
                    String(name[name.index(after: open)..<name.index(before: name.endIndex)]), at: 0)
                name = name[..<open]
            }
            tokens.append(String(name))
            tokens.append(contentsOf: indices)
        }
        return tokens.map {
            $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        }
        .joined(separator: "/")
    }
}
