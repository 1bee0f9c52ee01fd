import Foundation
internal import HummingbirdBcrypt
import Synchronization
public import VSHCore

/// Passwords: checked for length, hashed with bcrypt (the only importer of it), verified.
public enum Passwords {
    /// bcrypt's work factor by default: 2^12 rounds, about a quarter of a second on this project's
    /// machines (the API contract asks for at least 10).
    public static let defaultCost: UInt8 = 12
    /// The work factors a service may choose (`vsh serve --password-cost`): each step doubles the
    /// time a password takes, for its owner's sign-up and for anyone guessing it from a stolen hash.
    public static let costs: ClosedRange<UInt8> = 10...14
    /// The work factor new hashes get in this process.
    public static var cost: UInt8 { configured.load(ordering: .relaxed) }
    private static let configured = Atomic<UInt8>(defaultCost)
    /// The decoy of each work factor used so far (a wrong name must take what a wrong password takes).
    private static let decoys = Mutex<[UInt8: String]>([:])

    /// Makes new hashes in this process take `cost` (one of `costs`); hashes made before keep
    /// theirs, which `verify` reads from the hash.
    public static func use(cost: UInt8) {
        precondition(costs.contains(cost), "bcrypt cost \(cost) is outside \(costs)")
        configured.store(cost, ordering: .relaxed)
        _ = decoyHash
    }
    /// The shortest password accepted, in characters.
    public static let minimumCharacters = 8
    /// bcrypt reads at most 72 bytes; a longer password would be cut silently, so it is refused.
    public static let maximumBytes = 72

    /// The password, if it is acceptable.
    public static func validate(_ password: String) -> Result<String, PasswordError> {
        guard password.count >= minimumCharacters else {
            return .failure(.tooShort(minimum: minimumCharacters))
        }
        guard password.utf8.count <= maximumBytes else {
            return .failure(.tooLong(maximumBytes: maximumBytes))
        }
        guard !password.contains(where: { $0.isNewline }) else { return .failure(.lineBreak) }
        return .success(password)
    }

    /// The bcrypt hash of a valid password (`$2b$12$…`): slow on purpose.
    /// - Throws: `PasswordError` for a password `validate` refuses.
    public static func hash(_ password: String) throws(PasswordError) -> String {
        Bcrypt.hash(try validate(password).get(), cost: cost)
    }

    /// The work factor a bcrypt hash was made with (`$2b$12$…`: 12); the current one for text that
    /// is not such a hash.
    public static func cost(of hash: String) -> UInt8 {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count > 2, let made = UInt8(parts[2]) else { return cost }
        return made
    }

    /// Whether `password` is the one `hash` was made from.
    public static func verify(_ password: String, hash: String) -> Bool {
        guard password.utf8.count <= maximumBytes else { return false }
        return Bcrypt.verify(password, hash: hash)
    }

    /// A hash of nothing anyone knows, at the current work factor: verified against when a name is
    /// unknown, so that a wrong name takes as long as a wrong password.
    public static var decoyHash: String {
        let cost = cost
        return decoys.withLock { decoys in
            if let decoy = decoys[cost] { return decoy }
            let decoy = Bcrypt.hash(UUID().uuidString, cost: cost)
            decoys[cost] = decoy
            return decoy
        }
    }
}

/// Why a password is refused.
public enum PasswordError: Error, Equatable, Sendable, CustomStringConvertible, ClassifiedError {
    /// Fewer characters than the minimum.
    case tooShort(minimum: Int)
    /// More bytes than bcrypt reads.
    case tooLong(maximumBytes: Int)
    /// A line break inside the password.
    case lineBreak

    /// What is wrong with it (never the password itself).
    public var description: String {
        switch self {
        case .tooShort(let minimum): return "a password needs at least \(minimum) characters"
        case .tooLong(let maximum): return "a password can be at most \(maximum) bytes long"
        case .lineBreak: return "a password cannot contain a line break"
        }
    }

    /// Bad input data.
    public var errorKind: ErrorKind { .invalidData }
}
