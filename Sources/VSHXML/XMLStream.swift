internal import CLazyLoad
internal import CLibXML2
import Foundation
public import VSHCore

/// Why an XML file could not be read.
public enum XMLFileError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    case unreadable(file: String)
    case malformed(file: String, line: Int, message: String)
    case wrongRoot(file: String, expected: String, root: String)
    /// KML coordinates that are not `lon,lat[,alt]` in range.
    case badCoordinates(file: String, line: Int, text: String)

    public var description: String {
        switch self {
        case .unreadable(let file): return "\(file): cannot open the file"
        case .malformed(let file, let line, let message): return "\(file):\(line): malformed XML: \(message)"
        case .wrongRoot(let file, let expected, let root):
            return
                "\(file): not a \(expected.uppercased()) file (the root element is <\(root)>, not <\(expected)>)"
        case .badCoordinates(let file, let line, let text):
            return "\(file): placemark at line \(line): \"\(text)\" is not lon,lat in range"
        }
    }

    /// Unavailable input for a file that cannot be opened, else invalid data.
    public var errorKind: ErrorKind {
        if case .unreadable = self { return .unavailableInput }
        return .invalidData
    }
}

/// libxml2, which the shim loads on first use rather than at the process's start: checked once,
/// before the first parse. A machine without it stops the command with one line and exit status
/// 69, as for PROJ (it is installed with vsh: Debian's libxml2).
enum XMLLibrary {
    static let loaded: Void = vsh_lazy_require("libxml2", vsh_xml_load_error(), "libxml2")
}

/// A pull loop over libxml2's `xmlTextReader`: element starts, text and ends in
/// document order, with local names (namespaces ignored) and line numbers.
/// Memory stays flat whatever the file's size; entities are not expanded and
/// the network is never used; libxml2's own messages become one typed error.
final class XMLStream {
    enum Event {
        case start(name: String, line: Int, isEmpty: Bool)
        case text(String)
        case end(name: String)
    }

    private let reader: xmlTextReaderPtr
    private let errors = ErrorSink()
    let path: String
    private(set) var root: String?
    /// The root element's `version` attribute (GPX's 1.0 or 1.1).
    private(set) var rootVersion: String?

    /// libxml2's generic error handler of this thread before the stream silenced it.
    private let savedHandler: vsh_xml_error_handler

    init(path: String, expectedRoot: String) throws {
        self.path = path
        XMLLibrary.loaded
        savedHandler = vsh_xml_silence()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            RegularFile.check(path), FileManager.default.isReadableFile(atPath: path),
            let reader = vsh_xmlReaderForFile(
                path, nil, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue))
        else {
            vsh_xml_restore(savedHandler)
            throw XMLFileError.unreadable(file: path)
        }
        self.reader = reader
        vsh_xmlTextReaderSetStructuredErrorHandler(
            reader,
            { context, error in
                guard let context, let error else { return }
                let sink = Unmanaged<ErrorSink>.fromOpaque(context).takeUnretainedValue()
                if sink.message == nil {
                    sink.line = Int(error.pointee.line)
                    sink.message =
                        error.pointee.message.map {
                            String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines)
                        } ?? "error"
                }
            }, Unmanaged.passUnretained(errors).toOpaque())
        self.expectedRoot = expectedRoot
    }

    private let expectedRoot: String

    deinit {
        vsh_xmlFreeTextReader(reader)
        vsh_xml_restore(savedHandler)
    }

    final class ErrorSink {
        var message: String?
        var line: Int?
    }

    /// The value of an attribute of the element just started.
    func attribute(_ name: String) -> String? {
        guard let value = vsh_xmlTextReaderGetAttribute(reader, name) else { return nil }
        defer { vsh_xml_free(value) }
        return String(cString: value)
    }

    /// Reads to the end, calling `handle` for each event after the root element's start.
    func run(_ handle: (Event) throws -> Void) throws {
        while true {
            let status = vsh_xmlTextReaderRead(reader)
            if status == 0 { break }
            if status < 0 || errors.message != nil {
                throw XMLFileError.malformed(
                    file: path, line: errors.line ?? Int(vsh_xmlTextReaderGetParserLineNumber(reader)),
                    message: errors.message ?? "unreadable XML")
            }
            switch vsh_xmlTextReaderNodeType(reader) {
            case 1:
                let name = vsh_xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
                if root == nil {
                    root = name
                    guard name == expectedRoot else {
                        throw XMLFileError.wrongRoot(file: path, expected: expectedRoot, root: name)
                    }
                    rootVersion = attribute("version")
                    continue
                }
                // The node's own line: the parser itself may already be further on.
                let line =
                    vsh_xmlTextReaderCurrentNode(reader).map { Int(vsh_xmlGetLineNo($0)) }
                    ?? Int(vsh_xmlTextReaderGetParserLineNumber(reader))
                try handle(
                    .start(name: name, line: line, isEmpty: vsh_xmlTextReaderIsEmptyElement(reader) == 1))
            case 3, 4:
                if let value = vsh_xmlTextReaderConstValue(reader) {
                    try handle(.text(String(cString: value)))
                }
            case 15:
                try handle(
                    .end(name: vsh_xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""))
            default:
                break
            }
        }
        guard root != nil else {
            throw XMLFileError.malformed(file: path, line: 1, message: "the file has no XML element")
        }
    }
}

/// Whether a path names a regular file (after symbolic links): a FIFO, device or socket would
/// make a blocking open wait forever for a writer, so readers refuse them before opening.
enum RegularFile {
    static func check(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
