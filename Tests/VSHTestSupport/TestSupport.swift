public import Foundation
import Synchronization

/// Paths and helpers shared by the test targets.
public enum TestSupport {
    /// The package root (the folder holding Package.swift).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url
            }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// The conformance corpus (real photos, GPX files and point-in-polygon fixtures that others
    /// made, with the peers' answers in `reference/`): the folder `$VSH_CORPUS` names, else
    /// `corpus/` in the package, where `make corpus` fetches it. Nil when it is not there.
    public static var corpus: URL? {
        let url =
            corpusVariable.map { URL(fileURLWithPath: $0, relativeTo: packageRoot).standardizedFileURL }
            ?? packageRoot.appendingPathComponent("corpus")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("reference/gpx.json").path)
            ? url : nil
    }

    /// Whether the conformance tests run: when the corpus is there, or when `VSH_CORPUS` is set (as CI
    /// sets it), so that a corpus missing there fails them instead of skipping them.
    public static var corpusExpected: Bool { corpus != nil || corpusVariable != nil }

    private static var corpusVariable: String? {
        ProcessInfo.processInfo.environment["VSH_CORPUS"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A loopback TCP port free at the time of asking (the system picks it).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("no socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw FixtureError("cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on this loopback port.
    public static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A new empty folder under the system's temporary folder, private to this user (0700),
    /// removed with everything in it when the test process exits.
    public static func temporaryDirectory(_ name: String = "vsh-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        TemporaryFolders.shared.keep(url)
        return url
    }

    /// Removes a folder a test made, with everything in it (ignoring a folder already gone).
    public static func remove(_ folder: URL) {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The folder holding the built executables (`vsh`, `vsh-master`): beside the test bundle.
    public static var productsDirectory: URL {
        if let override = ProcessInfo.processInfo.environment["VSH_BIN"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        // On Linux the runner is `<products>/vshPackageTests.xctest`; be tolerant of bundles.
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("vsh").path),
            directory.path != "/"
        {
            directory.deleteLastPathComponent()
        }
        return directory
    }

    /// How long a test lets a command run before it counts as hung (and is killed).
    public static let hangLimitSeconds = 300.0

    /// What a finished process left behind.
    public struct ProcessResult: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String

        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// Runs a built executable with arguments and environment additions, waiting for it to end.
    public static func run(
        _ tool: String, _ arguments: [String], environment: [String: String] = [:],
        currentDirectory: URL? = nil,
        stdin: Data? = nil,
        hangLimitSeconds: Double? = TestSupport.hangLimitSeconds
    ) throws -> ProcessResult {
        // A built tool by name (vsh, vsh-master), or any program by its absolute path.
        let path = tool.hasPrefix("/") ? tool : productsDirectory.appendingPathComponent(tool).path
        var env = ProcessInfo.processInfo.environment
        env["VSH_DB"] = nil
        env["VSH_HUNTS"] = nil
        for (key, value) in environment { env[key] = value }
        let input = try Spawn.pipe()
        let out = try Spawn.pipe()
        let err = try Spawn.pipe()
        let pid: Int32
        do {
            pid = try Spawn.start(
                path, arguments, environment: env, directory: currentDirectory?.path, stdin: input.read,
                stdout: out.write, stderr: err.write)
        } catch {
            for fd in [input.read, input.write, out.read, out.write, err.read, err.write] { close(fd) }
            throw error
        }
        for fd in [input.read, out.write, err.write] { close(fd) }
        // A hang guard, not a speed test: past the (generous) limit the process is killed,
        // and its status (SIGKILL) fails whatever the test expected.
        let watch = ProcessWatch()
        if let hangLimitSeconds {
            DispatchQueue.global().asyncAfter(deadline: .now() + hangLimitSeconds) {
                if !watch.ended { kill(pid, SIGKILL) }
            }
        }
        let writer = FileHandle(fileDescriptor: input.write, closeOnDealloc: true)
        if let stdin { writer.write(stdin) }
        try writer.close()
        // Read both pipes to the end before waiting, so a chatty process cannot block.
        nonisolated(unsafe) var errData = Data()
        let errHandle = FileHandle(fileDescriptor: err.read, closeOnDealloc: true)
        let errReader = Thread { errData = errHandle.readDataToEndOfFile() }
        errReader.start()
        let outData = FileHandle(fileDescriptor: out.read, closeOnDealloc: true).readDataToEndOfFile()
        let status = Spawn.wait(pid)
        watch.end()
        while !errReader.isFinished { usleep(1000) }
        return ProcessResult(
            status: status, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// Whether a spawned process was waited for (so the hang guard never signals a reused pid).
final class ProcessWatch: Sendable {
    private let done = Mutex(false)
    var ended: Bool { done.withLock { $0 } }
    func end() { done.withLock { $0 = true } }
}

/// The folders tests made, removed at exit (a test that fails half-way leaves nothing behind either).
final class TemporaryFolders: Sendable {
    static let shared = TemporaryFolders()
    private let folders = Mutex<[String]>([])

    private init() {
        atexit {
            for path in TemporaryFolders.shared.folders.withLock({ $0 }) {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }

    func keep(_ url: URL) { folders.withLock { $0.append(url.path) } }
}

/// A fixture or a command's output that is not shaped as the test expects.
public struct FixtureError: Error, CustomStringConvertible {
    /// What was expected and what was found.
    public let description: String

    /// An error saying what is wrong with the fixture.
    public init(_ description: String) { self.description = description }
}
