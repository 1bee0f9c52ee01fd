import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// A `multipart/form-data` body read as it streams in: one file part kept in memory while it is
/// small (at most `memoryEach` bytes, and `memoryInAll` across every upload at once), else written
/// to a private temporary file in large writes (so slow uploads hold little memory); small text
/// fields kept in memory, every size capped before it is exceeded, and a body that ends before its
/// closing boundary refused.
final class MultipartForm {
    /// The largest file part kept in memory: a phone photo of 100 KB is never written before it is
    /// stored (one write, where it is kept, instead of three).
    static let memoryEach = 256 * 1024
    /// The memory every upload in progress may hold at once; past it, file parts go to disk.
    static let memoryInAll = 64 * 1024 * 1024
    /// The bytes held by uploads in memory now.
    private static let held = Mutex(0)
    /// The size of a write to the temporary file.
    private static let writeSize = 256 * 1024

    /// The text fields by name.
    private(set) var fields: [String: String] = [:]
    /// The file part's temporary file, if it went to disk (removed by `discard()`).
    private var filePath: String?
    /// Whether the form had a file part.
    private var hasFile = false
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
    /// The file part's bytes: all of them while in memory, else those not yet written.
    private var pending: [UInt8] = []
    /// The bytes of `held` this form reserved (`memoryEach`), or 0 when its file part is on disk.
    private var reserved = 0
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
        var parser = FormParser(boundary: boundary)
        parser.onHeader = { [unowned form] name, value in form.header(name, value) }
        parser.onBody = { [unowned form] bytes in form.body(bytes) }
        parser.onPartComplete = { [unowned form] in form.partComplete() }
        do {
            for try await chunk in request.body {
                try chunk.withUnsafeReadableBytes { try parser.execute($0) }
                if let failure = form.failure { throw failure }
            }
        } catch let problem as Problem {
            form.discard()
            throw problem
        } catch let malformed as FormParser.Malformed {
            form.discard()
            throw Problem(
                .badRequest, "Malformed form", "the multipart body cannot be read: \(malformed.reason)")
        } catch {
            form.discard()
            throw Problem(.badRequest, "Malformed form", "the multipart body cannot be read")
        }
        if let failure = form.failure {
            form.discard()
            throw failure
        }
        // A part still open: the body ended before its closing boundary (a dropped upload).
        if !parser.isFinished || form.currentName != nil || form.completedParts == 0 {
            form.discard()
            throw Problem(.badRequest, "Incomplete form", "the body ended before the form's closing boundary")
        }
        return form
    }

    /// The boundary of a `multipart/form-data` content type (quoted or not, 1 to 70 characters).
    static func boundary(of contentType: String) -> String? {
        var isForm = false
        var boundary: String?
        HeaderItems.forEach(in: contentType) { index, item in
            if index == 0 {
                isForm = HeaderItems.matches(item, "multipart/form-data")
            } else if isForm, boundary == nil, HeaderItems.hasPrefix(item, "boundary=") {
                boundary = HeaderItems.unquoted(item, after: "boundary=".utf8.count)
            }
        }
        guard isForm, let boundary else { return nil }
        return (1...70).contains(boundary.count) ? boundary : nil
    }

    /// The part's name in a `Content-Disposition` value (`form-data; name="lat"`): its `name=`
    /// parameter, unquoted (the last when there are several; `filename=` is another parameter).
    static func partName(ofDisposition value: String) -> String? {
        var name: String?
        HeaderItems.forEach(in: value) { _, item in
            if HeaderItems.hasPrefix(item, "name=") {
                name = HeaderItems.unquoted(item, after: "name=".utf8.count)
            }
        }
        return name
    }

    /// The file part's bytes (nil without one).
    func fileContents() throws -> [UInt8]? {
        if reserved > 0 { return pending }
        guard let filePath else { return nil }
        guard let data = FileManager.default.contents(atPath: filePath) else {
            throw Problem(.internalServerError, "Internal error", "the upload could not be read back")
        }
        return [UInt8](data)
    }

    /// Removes the temporary file and gives back the memory held.
    func discard() {
        try? handle?.close()
        handle = nil
        if let filePath { unlink(filePath) }
        filePath = nil
        pending = []
        release()
    }

    deinit { release() }

    private func release() {
        guard reserved > 0 else { return }
        let amount = reserved
        Self.held.withLock { $0 -= amount }
        reserved = 0
    }

    private func header(_ name: String, _ value: String) {
        guard HeaderItems.matches(name, "content-disposition") else { return }
        guard let partName = Self.partName(ofDisposition: value) else {
            fail(Problem(.badRequest, "Malformed form", "a part has no name"))
            return
        }
        guard partName == fileField || allowedFields.contains(partName) else {
            fail(Problem(.unprocessableContent, "Unknown field", "unknown part \"\(partName.prefix(64))\""))
            return
        }
        guard fields[partName] == nil, !(partName == fileField && hasFile) else {
            fail(Problem(.unprocessableContent, "Repeated field", "the part \"\(partName)\" comes twice"))
            return
        }
        currentName = partName
        currentText = []
        if partName == fileField { openFile() }
    }

    private func body(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, let name = currentName else { return }
        if name == fileField {
            fileBytes += bytes.count
            guard fileBytes <= fileLimit else {
                fail(Problem(.contentTooLarge, "Too large", "the photo is over \(fileLimit / 1_048_576) MiB"))
                return
            }
            if reserved > 0, pending.count + bytes.count > reserved { spill() }
            pending.append(contentsOf: bytes)
            if reserved == 0, pending.count >= Self.writeSize { flush() }
        } else {
            // Capped before it is kept: a field's bytes past the limit are refused, not gathered.
            guard currentText.count + bytes.count <= fieldLimit else {
                fail(
                    Problem(
                        .contentTooLarge, "Too large", "the field \"\(name)\" is over \(fieldLimit) bytes"))
                return
            }
            currentText.append(contentsOf: bytes)
        }
    }

    private func partComplete() {
        guard failure == nil, let name = currentName else { return }
        if name == fileField {
            if reserved == 0 { flush() }
            try? handle?.close()
            handle = nil
        } else {
            fields[name] = String(decoding: currentText, as: UTF8.self)
        }
        currentName = nil
        completedParts += 1
    }

    /// Begins the file part: in memory when the budget allows, else in a temporary file.
    private func openFile() {
        hasFile = true
        let each = Self.memoryEach
        if Self.held.withLock({ held in
            guard held + each <= Self.memoryInAll else { return false }
            held += each
            return true
        }) {
            reserved = each
            return
        }
        createFile()
    }

    /// Moves a file part that outgrew memory to a temporary file.
    private func spill() {
        release()
        createFile()
        flush()
    }

    /// Writes the pending bytes to the temporary file.
    private func flush() {
        guard !pending.isEmpty else { return }
        handle?.write(Data(pending))
        pending.removeAll(keepingCapacity: true)
    }

    private func createFile() {
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

/// The `;`-separated items of a header value (`multipart/form-data; boundary=x`), read as UTF-8
/// bytes: splitting, trimming and lowercasing them as `String`s (grapheme by grapheme, each piece a
/// string of its own) was about 2.5 % of a device-fix check-in's CPU, for five form fields.
/// Names and keys are compared as ASCII in any case, which is what lowercasing did for these.
enum HeaderItems {
    /// Calls `each` with the place and bytes of every item of `value` that is not empty, trimmed of
    /// spaces and tabs (an item of spaces alone is passed, empty).
    static func forEach(in value: String, _ each: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        var text = value
        text.withUTF8 { bytes in
            var index = 0
            var start = 0
            for end in 0...bytes.count where end == bytes.count || bytes[end] == 0x3B {
                defer { start = end + 1 }
                guard end > start else { continue }
                var from = start
                var to = end
                while from < to, bytes[from] == 0x20 || bytes[from] == 0x09 { from += 1 }
                while to > from, bytes[to - 1] == 0x20 || bytes[to - 1] == 0x09 { to -= 1 }
                each(index, UnsafeBufferPointer(rebasing: bytes[from..<to]))
                index += 1
            }
        }
    }

    /// Whether `item` starts with `prefix` (lowercase ASCII), in any case.
    static func hasPrefix(_ item: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard item.count >= prefix.utf8CodeUnitCount else { return false }
        return prefix.withUTF8Buffer { wanted in
            zip(item, wanted).allSatisfy { Self.lower($0) == $1 }
        }
    }

    /// Whether `item` is `word` (lowercase ASCII), in any case.
    static func matches(_ item: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        item.count == word.utf8CodeUnitCount && hasPrefix(item, word)
    }

    /// Whether `text` is `word` (lowercase ASCII), in any case.
    static func matches(_ text: String, _ word: StaticString) -> Bool {
        var text = text
        return text.withUTF8 { matches($0, word) }
    }

    /// The item's text after its first `count` bytes, without one pair of double quotes around it.
    static func unquoted(_ item: UnsafeBufferPointer<UInt8>, after count: Int) -> String {
        var rest = UnsafeBufferPointer(rebasing: item[count...])
        if rest.count >= 2, rest.first == 0x22, rest.last == 0x22 {
            rest = UnsafeBufferPointer(rebasing: rest[1..<(rest.count - 1)])
        }
        return String(decoding: rest, as: UTF8.self)
    }

    private static func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
}
