import CICU
import Foundation
public import VSHCore

/// Unicode Technical Standard #39's confusable skeletons through ICU's spoof checker (the only
/// importer of it): two strings that look alike, such as Latin "BOB", Greek "ΒΟΒ" and Cyrillic
/// "ВОВ", or "Alice" and "AIice" (a capital I for the l), have the same skeleton.
public enum Confusables {
    /// ICU's checker, opened once; skeletons may be asked for from any thread (a checker that no
    /// thread configures is safe to share). Nil when ICU cannot be loaded.
    nonisolated(unsafe) private static let checker: UnsafeRawPointer? = vsh_spoof_open()

    /// Whether ICU was loaded: without it `skeleton` is nil and names are compared by their key only.
    public static var isAvailable: Bool { checker != nil }

    /// The skeleton of `text` (TR 39 section 4: NFD, each character mapped to its prototype,
    /// NFD again), or nil when ICU is not available.
    public static func skeleton(_ text: String) -> String? {
        guard let checker else { return nil }
        let units = Array(text.utf16)
        var capacity = units.count * 4 + 16
        for _ in 0..<2 {
            var out = [UInt16](repeating: 0, count: capacity)
            let written = vsh_spoof_skeleton(checker, units, Int32(units.count), &out, Int32(capacity))
            if written >= 0 { return String(decoding: out[..<Int(written)], as: UTF16.self) }
            guard written < -1 else { return nil }
            capacity = Int(-2 - written) + 1
        }
        return nil
    }
}

extension PlayerName {
    /// The key under which names that look alike meet: the confusable skeleton of the name,
    /// case-folded ("AIice" and "alice" → "alice", "ΒΟΒ" and "bob" → "bob"). Two players may
    /// not have the same one, so that nobody passes for somebody else on a leaderboard. Without
    /// ICU it is the name's `key`, and only names equal but for case and width are refused.
    public static func lookalikeKey(_ name: String) -> String {
        guard let skeleton = Confusables.skeleton(name.precomposedStringWithCompatibilityMapping) else {
            return key(name)
        }
        return key(skeleton)
    }
}
