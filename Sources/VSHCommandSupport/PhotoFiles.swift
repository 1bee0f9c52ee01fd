import Foundation
import VSHCore

/// Photos named on the command line: files as given, folders as their
/// `.jpg`/`.jpeg` files (sorted by name, not recursive). A folder of ten
/// thousand photos is one argument, which argument parsing handles in no time.
public enum PhotoFiles {
    public static func expand(_ paths: [String]) throws -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue
            {
                guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
                    throw InputError("\(path): cannot list the folder", status: .noInput)
                }
                files += names.filter {
                    ["jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased())
                }.sorted()
                    .map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        return files
    }
}
