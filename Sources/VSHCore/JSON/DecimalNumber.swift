#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finite decimal numbers read from bytes in place (GPX attributes, CSV fields, stored geometry):
/// digits, sign, point and exponent only, because `strtod` would also take "inf", "nan" and
/// hexadecimal. Leading and trailing whitespace (any byte up to 0x20) is ignored.
public enum DecimalNumber {
    /// A decimal number (`-12.5`, `1e3`) from bytes, or nil when they are not one.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var start = bytes.startIndex
        var stop = bytes.endIndex
        while start < stop, bytes[start] <= 0x20 { start += 1 }
        while stop > start, bytes[stop - 1] <= 0x20 { stop -= 1 }
        let count = stop - start
        guard count > 0, count < 64 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer -> Double? in
            var i = 0
            for b in bytes[start..<stop] {
                guard isNumberByte(b) else { return nil }
                buffer[i] = CChar(bitPattern: b)
                i += 1
            }
            buffer[count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(buffer.baseAddress!, &end)
            guard end == buffer.baseAddress! + count, value.isFinite else { return nil }
            return value
        }
    }

    /// A decimal number from bytes, or nil.
    public static func parse(_ bytes: ArraySlice<UInt8>) -> Double? {
        bytes.withUnsafeBufferPointer { parse($0) }
    }

    /// Whether a byte can be part of a decimal number: 0-9 . - + e E.

    /// Whether a byte can be part of a decimal number.
    public static func isNumberByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x2D || b == 0x2B || b == 0x65 || b == 0x45
    }
}
