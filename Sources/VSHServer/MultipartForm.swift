import Foundation
import Hummingbird
import MultipartKit
import NIOCore

/// A `multipart/form-data` body read as it streams in: one file part written to a private temporary
/// file (so a slow upload holds no memory), small text fields kept in memory, every size capped
/// before it is exceeded, and a body that ends before its closing boundary refused.
final class MultipartForm {
    /// The text fields by name.
    private(set) var fields: [String: String] = [:]
    /// The file part's temporary file, if the form had one (removed by `discard()`).
    private(set) var filePath: String?
    /// The file part's size in bytes.
    private(set) var fileBytes = 0

    private let fileField: String
    private let allowedFields: Set<String>
    private let fileLimit: Int
    private let fieldLimit = 1024
    private let folder: String
    private var currentName: String?
    private var currentText: [UInt8] = []
    private var handle: FileHandle?
    private var failure: Problem?
    private var completedParts = 0

    private init(fileField: String, allowedFields: Set<String>, fileLimit: Int, folder: String) {
        self.fileField = fileField
        self.allowedFields = allowedFields
        self.fileLimit = fileLimit
        self.folder = folder
    }

    /// Reads the request's form.
    /// - Parameters:
    ///   - fileField: the name of the one file part (`photo`).
    ///   - fields: the names of the text parts allowed.
    ///   - fileLimit: the file part's largest size in bytes (413 past it).
    ///   - folder: a private folder for the temporary file.
    /// - Throws: `Problem` 415 (not multipart), 400 (malformed or cut short), 413, 422 (an unknown part).
    static func read(
        _ request: Request, fileField: String, fields: Set<String>, fileLimit: Int, folder: String
    ) async throws -> MultipartForm {
        guard let boundary = boundary(of: request.headers[.contentType] ?? "") else {
            throw Problem(
                .unsupportedMediaType, "Unsupported media type", "send multipart/form-data with a boundary")
        }
        let form = MultipartForm(
            fileField: fileField, allowedFields: fields, fileLimit: fileLimit, folder: folder)
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { [unowned form] name, value in form.header(name, value) }
        parser.onBody = { [unowned form] buffer in form.body(&buffer) }
        parser.onPartComplete = { [unowned form] in form.partComplete() }
        do {
            for try await chunk in request.body {
                try parser.execute(chunk)
                if let failure = form.failure { throw failure }
            }
        } catch let problem as Problem {
            form.discard()
            throw problem
        } catch {
            form.discard()
            throw Problem(.badRequest, "Malformed form", "the multipart body cannot be read")
        }
        if let failure = form.failure {
            form.discard()
            throw failure
        }
        // A part still open: the body ended before its closing boundary (a dropped upload).
        if form.currentName != nil || form.completedParts == 0 {
            form.discard()
            throw Problem(.badRequest, "Incomplete form", "the body ended before the form's closing boundary")
        }
        return form
    }

    /// The boundary of a `multipart/form-data` content type (quoted or not, 1 to 70 characters).
    static func boundary(of contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data" else { return nil }
        for part in parts.dropFirst() where part.lowercased().hasPrefix("boundary=") {
            var value = String(part.dropFirst("boundary=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            return (1...70).contains(value.count) ? value : nil
        }
        return nil
    }

    /// The file part's bytes (nil without one).
    func fileContents() throws -> [UInt8]? {
        guard let filePath else { return nil }
        guard let data = FileManager.default.contents(atPath: filePath) else {
            throw Problem(.internalServerError, "Internal error", "the upload could not be read back")
        }
        return [UInt8](data)
    }

    /// Removes the temporary file.
    func discard() {
        try? handle?.close()
        handle = nil
        if let filePath { unlink(filePath) }
        filePath = nil
    }

    private func header(_ name: String, _ value: String) {
        guard name.lowercased() == "content-disposition" else { return }
        var partName: String?
        for item in value.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) })
        where item.lowercased().hasPrefix("name=") {
            var text = String(item.dropFirst(5))
            if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 {
                text = String(text.dropFirst().dropLast())
            }
            partName = text
        }
        guard let partName else {
            fail(Problem(.badRequest, "Malformed form", "a part has no name"))
            return
        }
        guard partName == fileField || allowedFields.contains(partName) else {
            fail(Problem(.unprocessableContent, "Unknown field", "unknown part \"\(partName.prefix(64))\""))
            return
        }
        guard fields[partName] == nil, !(partName == fileField && filePath != nil) else {
            fail(Problem(.unprocessableContent, "Repeated field", "the part \"\(partName)\" comes twice"))
            return
        }
        currentName = partName
        currentText = []
        if partName == fileField { openFile() }
    }

    private func body(_ buffer: inout ByteBuffer) {
        guard failure == nil, let name = currentName else { return }
        if name == fileField {
            fileBytes += buffer.readableBytes
            guard fileBytes <= fileLimit else {
                fail(Problem(.contentTooLarge, "Too large", "the photo is over \(fileLimit / 1_048_576) MiB"))
                return
            }
            if let bytes = buffer.readBytes(length: buffer.readableBytes) { handle?.write(Data(bytes)) }
        } else {
            currentText += buffer.readableBytesView
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            if currentText.count > fieldLimit {
                fail(
                    Problem(
                        .contentTooLarge, "Too large", "the field \"\(name)\" is over \(fieldLimit) bytes"))
            }
        }
    }

    private func partComplete() {
        guard failure == nil, let name = currentName else { return }
        if name == fileField {
            try? handle?.close()
            handle = nil
        } else {
            fields[name] = String(decoding: currentText, as: UTF8.self)
        }
        currentName = nil
        completedParts += 1
    }

    private func openFile() {
        let path = folder + "/upload-\(UUID().uuidString)"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            fail(Problem(.internalServerError, "Internal error", "the upload cannot be stored"))
            return
        }
        filePath = path
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    private func fail(_ problem: Problem) {
        if failure == nil { failure = problem }
    }
}
