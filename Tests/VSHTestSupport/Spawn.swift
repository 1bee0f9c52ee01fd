import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Starts programs with `posix_spawn`, not Foundation's `Process.run()`: on Linux that one reads
/// `/proc/self/fd` entries 256 bytes at a time and crashes now and then when an entry ends its
/// buffer (swift-corelibs-foundation pull request 5472, not in this toolchain); the tests start
/// thousands of processes. The child gets the given descriptors as 0, 1 and 2 and no other
/// (`closefrom`), its own folder and environment.
public enum Spawn {
    private typealias AddCloseFrom = @convention(c) (UnsafeMutableRawPointer, Int32) -> Int32
    private typealias AddChangeDirectory =
        @convention(c) (UnsafeMutableRawPointer, UnsafePointer<CChar>) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34) and `…_addchdir_np` (2.29):
    /// GNU extensions Swift's Glibc module does not declare, looked up by name.
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }
    private static let addChangeDirectory: AddChangeDirectory? = dlsym(
        nil, "posix_spawn_file_actions_addchdir_np"
    ).map { unsafeBitCast($0, to: AddChangeDirectory.self) }

    /// A pipe whose two ends close on exec (children get only what they are handed: those
    /// started here close everything above 2 anyway, Foundation's too).
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard Glibc.pipe(&fds) == 0 else { throw FixtureError("pipe failed: errno \(errno)") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// Starts `path` with `arguments`, the complete `environment`, in `directory`, with `stdin`,
    /// `stdout` and `stderr` as its descriptors 0, 1 and 2. Returns its process id.
    public static func start(
        _ path: String, _ arguments: [String], environment: [String: String], directory: String?,
        stdin: Int32, stdout: Int32, stderr: Int32
    ) throws -> Int32 {
        guard let addCloseFrom, let addChangeDirectory else {
            throw FixtureError(
                "this glibc has no posix_spawn_file_actions_addclosefrom_np (2.34 or later needed)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        _ = withUnsafeMutablePointer(to: &actions) { addCloseFrom(UnsafeMutableRawPointer($0), 3) }
        if let directory {
            _ = withUnsafeMutablePointer(to: &actions) { pointer in
                directory.withCString { addChangeDirectory(UnsafeMutableRawPointer(pointer), $0) }
            }
        }
        let argv = ([path] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: Int32 = 0
        let status = (argv + [nil]).withUnsafeBufferPointer { args in
            (envp + [nil]).withUnsafeBufferPointer { env in
                posix_spawn(
                    &pid, path, &actions, nil, UnsafeMutablePointer(mutating: args.baseAddress!),
                    UnsafeMutablePointer(mutating: env.baseAddress!))
            }
        }
        guard status == 0 else {
            throw FixtureError("cannot start \(path): \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// Waits for the process to end: its exit status, or the number of the signal that ended it
    /// (as Foundation's `terminationStatus` gives it).
    public static func wait(_ pid: Int32) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }
}
