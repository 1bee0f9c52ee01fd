import Foundation
import HTTPTypes
import Hummingbird
import VSHCore

/// JSON in and out, with the project's strict parser and stable writer.
enum JSONBodies {
    /// A response with a JSON body.
    static func response(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: value.compactText)))
    }

    /// The request's JSON object, read up to the context's limit, with exactly the keys allowed.
    /// - Throws: `Problem` 415 for another media type, 413 past the limit, 400 for malformed JSON,
    ///   422 for an unknown key or a required one missing.
    static func object(
        _ request: Request, context: some RequestContext, required: [String], optional: [String] = []
    ) async throws -> JSONObject {
        let type = request.headers[.contentType] ?? ""
        guard type.lowercased().hasPrefix("application/json") else {
            throw Problem(.unsupportedMediaType, "Unsupported media type", "send application/json")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw Problem(.contentTooLarge, "Too large", "the body is over \(context.maxUploadSize) bytes")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(buffer.readableBytesView))
        } catch {
            throw Problem(.badRequest, "Malformed JSON", "the body is not JSON: \(error)")
        }
        guard case .object(let object) = value else {
            throw Problem(.badRequest, "Malformed JSON", "the body must be a JSON object")
        }
        let allowed = Set(required + optional)
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw Problem(.unprocessableContent, "Unknown field", "unknown field \"\(unknown)\"")
        }
        for key in required where object[key] == nil {
            throw Problem(.unprocessableContent, "Missing field", "\"\(key)\" is required")
        }
        return object
    }

    /// A string field of a checked object.
    static func string(_ object: JSONObject, _ key: String) throws -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw Problem(.unprocessableContent, "Invalid field", "\"\(key)\" must be a string")
        }
    }
}
