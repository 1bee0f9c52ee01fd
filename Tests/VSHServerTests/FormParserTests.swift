import Foundation
import Testing
import VSHServer

/// The multipart parser on its own: the same parts whichever way the body is cut into pieces,
/// content that looks almost like a boundary kept whole, and malformed bodies refused.
@Suite struct FormParserTests {
    /// A parse's result: each part's headers and content, and whether the close delimiter came.
    struct Parsed: Equatable {
        var parts: [(headers: [String], content: [UInt8])] = []
        var finished = false

        static func == (a: Parsed, b: Parsed) -> Bool {
            a.finished == b.finished && a.parts.count == b.parts.count
                && zip(a.parts, b.parts).allSatisfy { $0.headers == $1.headers && $0.content == $1.content }
        }
    }

    /// Parses `body` fed in `pieces` (the sizes of its successive pieces; the rest in one).
    static func parse(_ body: [UInt8], boundary: String, pieces: [Int] = []) throws -> Parsed {
        var parsed = Parsed()
        var headers: [String] = []
        var content: [UInt8] = []
        var parser = FormParser(boundary: boundary)
        parser.onHeader = { headers.append("\($0)=\($1)") }
        parser.onBody = { content.append(contentsOf: $0) }
        parser.onPartComplete = {
            parsed.parts.append((headers, content))
            headers = []
            content = []
        }
        var start = 0
        for size in pieces + [body.count] {
            let end = min(body.count, start + size)
            try body[start..<end].withUnsafeBytes { try parser.execute($0) }
            start = end
            if start == body.count { break }
        }
        parsed.finished = parser.isFinished
        return parsed
    }

    static let boundary = "----vshFormBoundary7MA4YWxk"

    /// A form as a browser sends it: two fields and a file whose bytes hold line breaks, dashes,
    /// the boundary without its line break, and the line break and dashes without the boundary.
    static var form: (body: [UInt8], file: [UInt8]) {
        var file: [UInt8] = Array(0...255)
        file += Array("\r\n--\(boundary.dropLast())x\r\n--".utf8)
        file += Array("--\(boundary)".utf8)  // not after a line break: content
        file += [13, 10, 13, 10, 45, 45]
        var body = Array("--\(boundary)\r\n".utf8)
        body += Array("Content-Disposition: form-data; name=\"lat\"\r\n\r\n36.0820\r\n".utf8)
        body += Array("--\(boundary)\r\n".utf8)
        body += Array(
            "Content-Disposition: form-data; name=\"photo\"; filename=\"p.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
                .utf8)
        body += file
        body += Array("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"hunt\"\r\n\r\n\r\n".utf8)
        body += Array("--\(boundary)--\r\nan epilogue, ignored".utf8)
        return (body, file)
    }

    @Test func thePartsAreTheSameWhereverTheBodyIsCut() throws {
        let (body, file) = Self.form
        let whole = try Self.parse(body, boundary: Self.boundary)
        #expect(whole.finished)
        #expect(whole.parts.count == 3)
        #expect(whole.parts.map(\.headers.count) == [1, 2, 1])
        #expect(whole.parts[0].headers == ["Content-Disposition=form-data; name=\"lat\""])
        #expect(whole.parts[0].content == Array("36.0820".utf8))
        #expect(whole.parts[1].headers[1] == "Content-Type=image/jpeg")
        #expect(whole.parts[1].content == file)
        #expect(whole.parts[2].content == [])
        // Cut in two at every byte, and fed a byte at a time.
        for cut in 1..<body.count {
            #expect(try Self.parse(body, boundary: Self.boundary, pieces: [cut]) == whole, "cut at \(cut)")
        }
        let bytes = try Self.parse(
            body, boundary: Self.boundary, pieces: Array(repeating: 1, count: body.count))
        #expect(bytes == whole)
    }

    @Test func aPreambleAndPaddingAreAllowed() throws {
        let body = Array(
            "a preamble\r\n--b  \t\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nyes\r\n--b--".utf8)
        let parsed = try Self.parse(body, boundary: "b")
        #expect(parsed.finished && parsed.parts.count == 1 && parsed.parts[0].content == Array("yes".utf8))
    }

    @Test func aCutShortBodyIsNotFinished() throws {
        let (body, _) = Self.form
        for end in [10, body.count / 2, body.count - 30] {
            #expect(!(try Self.parse(Array(body.prefix(end)), boundary: Self.boundary).finished), "\(end)")
        }
        // Not the boundary at all: nothing is a part.
        let other = try Self.parse(body, boundary: "something-else")
        #expect(!other.finished && other.parts.isEmpty)
    }

    @Test func malformedBodiesAreRefused() throws {
        let cases: [(String, String)] = [
            ("--b\r\nno colon here\r\n\r\nx\r\n--b--", "a part's header line has no colon"),
            (
                "--bX\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nx\r\n--b--",
                "a boundary is not followed by a line break"
            ),
            (
                "--b" + String(repeating: " ", count: 300) + "\r\n\r\nx\r\n--b--",
                "too much space after a boundary"
            ),
            (
                "--b\r\nX-Long: " + String(repeating: "a", count: FormParser.maxHeaderBytes)
                    + "\r\n\r\nx\r\n--b--",
                "a part's headers are longer than \(FormParser.maxHeaderBytes) bytes"
            ),
        ]
        for (text, reason) in cases {
            #expect(throws: FormParser.Malformed(reason: reason)) {
                try Self.parse(Array(text.utf8), boundary: "b")
            }
            // The same refusal when the bytes come one at a time.
            #expect(throws: FormParser.Malformed(reason: reason)) {
                try Self.parse(
                    Array(text.utf8), boundary: "b", pieces: Array(repeating: 1, count: text.utf8.count))
            }
        }
        // Headers that never end are refused once past the limit, not gathered without end.
        var parser = FormParser(boundary: "b")
        let head = Array("--b\r\nX: ".utf8)
        try head.withUnsafeBytes { try parser.execute($0) }
        let chunk = [UInt8](repeating: 97, count: 4096)
        var refused = false
        for _ in 0..<10 {
            do { try chunk.withUnsafeBytes { try parser.execute($0) } } catch is FormParser.Malformed {
                refused = true
                break
            }
        }
        #expect(refused)
    }
}
