public import Foundation

/// Paths and helpers shared by the test targets.
public enum TestSupport {
    /// The package root (the folder holding Package.swift).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// The shared real-world corpus: `$VSH_CORPUS`, else `../shared/corpus` beside the
    /// package. Tests that need it fail (never skip) when it is missing.
    public static var corpus: URL? {
        let env = ProcessInfo.processInfo.environment["VSH_CORPUS"].flatMap { $0.isEmpty ? nil : $0 }
        let url =
            env.map { URL(fileURLWithPath: $0, relativeTo: packageRoot).standardizedFileURL }
            ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("README.md").path) ? url : nil
    }

    /// A new empty folder under the system's temporary folder.
    public static func temporaryDirectory(_ name: String = "vsh-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
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
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("vsh").path), directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory
    }

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
        _ tool: String, _ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil,
        stdin: Data? = nil
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent(tool)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["VSH_DB"] = nil
        env["VSH_HUNTS"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a chatty process cannot block.
        nonisolated(unsafe) var errData = Data()
        let errReader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errReader.isFinished { usleep(1000) }
        return ProcessResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
