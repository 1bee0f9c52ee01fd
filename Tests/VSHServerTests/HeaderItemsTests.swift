import Testing

@testable import VSHServer

/// A form's content type and its parts' names, read as bytes (`HeaderItems`), give what reading
/// them as `String`s gave: the same boundary and the same part name for the same header value.
@Suite struct HeaderItemsTests {
    /// The boundary as `MultipartForm.boundary(of:)` read it before, with `String`s.
    static func stringBoundary(of contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingWhiteSpace() }
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

    /// The part's name as `MultipartForm` read it before, with `String`s.
    static func stringPartName(of value: String) -> String? {
        var partName: String?
        for item in value.split(separator: ";").map({ $0.trimmingWhiteSpace() })
        where item.lowercased().hasPrefix("name=") {
            var text = String(item.dropFirst(5))
            if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 {
                text = String(text.dropFirst().dropLast())
            }
            partName = text
        }
        return partName
    }

    @Test func whatBrowsersAndCurlSendIsRead() {
        #expect(
            MultipartForm.boundary(of: "multipart/form-data; boundary=----WebKitFormBoundaryAb1")
                == "----WebKitFormBoundaryAb1")
        #expect(MultipartForm.boundary(of: "Multipart/Form-Data;BOUNDARY=\"a b\"") == "a b")
        #expect(
            MultipartForm.boundary(of: "multipart/form-data; charset=utf-8; boundary=x; boundary=y") == "x")
        #expect(MultipartForm.boundary(of: "multipart/form-data") == nil)
        // An empty item is no item; an item of spaces is an empty one.
        #expect(MultipartForm.boundary(of: ";multipart/form-data;;boundary=x") == "x")
        #expect(MultipartForm.boundary(of: " ;multipart/form-data;boundary=x") == nil)
        #expect(MultipartForm.boundary(of: "multipart/mixed; boundary=x") == nil)
        #expect(MultipartForm.boundary(of: "multipart/form-data; boundary=\"\"") == nil)
        #expect(
            MultipartForm.boundary(of: "multipart/form-data; boundary=" + String(repeating: "b", count: 71))
                == nil)
        #expect(MultipartForm.partName(ofDisposition: "form-data; name=\"lat\"") == "lat")
        #expect(
            MultipartForm.partName(ofDisposition: "form-data; name=\"photo\"; filename=\"p.jpg\"") == "photo")
        #expect(MultipartForm.partName(ofDisposition: "form-data;\tNAME=hunt ") == "hunt")
        #expect(MultipartForm.partName(ofDisposition: "form-data; filename=\"p.jpg\"") == nil)
        #expect(MultipartForm.partName(ofDisposition: "form-data; name=\"née\"") == "née")
        #expect(HeaderItems.matches("Content-Disposition", "content-disposition"))
        #expect(!HeaderItems.matches("Content-Dispositions", "content-disposition"))
    }

    /// Random header values over the characters that matter (separators, spaces, tabs, quotes,
    /// the keys' letters in both cases, a few others and non-ASCII letters): both readings agree.
    @Test func bothReadingsAgreeOnRandomValues() {
        let pieces = [
            ";", " ", "\t", "\"", "=", "name=", "NAME=", "Name=\"", "filename=", "boundary=", "BOUNDARY=\"",
            "multipart/form-data", "MULTIPART/FORM-DATA", "form-data", "x", "lat", "é", "ü", "-", "_", "b",
        ]
        var generator = SystemRandomNumberGenerator()
        var compared = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...9, using: &generator)
            let value = (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(MultipartForm.boundary(of: value) == Self.stringBoundary(of: value), "\(value)")
            #expect(
                MultipartForm.partName(ofDisposition: value) == Self.stringPartName(of: value), "\(value)")
            compared += 1
        }
        #expect(compared == 20_000)
    }

    /// Random header values made of items (the media types, the keys with values quoted or not,
    /// empty items, items of spaces alone), padded with spaces and tabs and joined by `;`.
    @Test func bothReadingsAgreeOnRandomItems() {
        let items = [
            "", " ", "\t", "multipart/form-data", "MULTIPART/Form-Data", "form-data", "text/plain",
            "name=lat", "name=\"lat\"", "NAME=\"a b\"", "name=", "name=\"", "name=\"\"", "filename=\"p.jpg\"",
            "boundary=abc", "boundary=\"q r\"", "Boundary=", "boundary=\"", "charset=utf-8", "é=ü",
            "name=née",
        ]
        let padding = ["", " ", "\t", "  "]
        var generator = SystemRandomNumberGenerator()
        var compared = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 1...6, using: &generator)
            let value = (0..<count).map { _ in
                padding.randomElement(using: &generator)! + items.randomElement(using: &generator)!
                    + padding.randomElement(using: &generator)!
            }.joined(separator: ";")
            #expect(MultipartForm.boundary(of: value) == Self.stringBoundary(of: value), "\(value)")
            #expect(
                MultipartForm.partName(ofDisposition: value) == Self.stringPartName(of: value), "\(value)")
            compared += 1
        }
        #expect(compared == 20_000)
    }
}
