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
        if let exact = exactlyRounded(UnsafeBufferPointer(rebasing: bytes[start..<stop])) { return exact }
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

    /// Powers of ten that a Double holds exactly (10^0 ... 10^22): a switch of constants, which
    /// the compiler makes a table, rather than a global array (a lazy global's check and a
    /// bounds check on every number).
    @inline(__always)
    @inlinable public static func exactPower(_ k: Int) -> Double {
        switch k {
        case 0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    /// Clinger's fast path ("How to read floating point numbers accurately", 1990): a plain
    /// decimal (`-36.2339094`: sign, digits, a point, digits) whose digits make an integer below
    /// 2^53 with at most 22 after the point is that integer divided by a power of ten, both
    /// exact, and IEEE division rounds correctly: the value `strtod` gives, without its arbitrary
    /// precision (half of reading a million fixes). Nil for anything else, which `strtod` reads.
    static func exactlyRounded(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        var i = 0
        guard let value = plain(base, &i, bytes.count), i == bytes.count else { return nil }
        return value
    }

    /// The plain decimal that starts at `i` (a sign, digits, a point, digits), read up to the
    /// first byte that cannot continue it, where `i` is left: its exactly rounded value (as
    /// `exactlyRounded`), or nil when it has no digit or more than 15 (which can pass 2^53).
    /// Inlined where lines of numbers are read in one pass (`vsh locate --fixes`).
    @inlinable @inline(__always)
    public static func plain(_ base: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int) -> Double? {
        var negative = false
        if i < end, base[i] == 0x2D || base[i] == 0x2B {
            negative = base[i] == 0x2D
            i += 1
        }
        var mantissa: UInt64 = 0
        let first = i
        // The digits before the point, then those after it: two tight loops (a digit is a byte
        // whose distance from "0" is at most 9).
        while i < end {
            let digit = base[i] &- 0x30
            if digit > 9 { break }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            i += 1
        }
        var digits = i - first
        var scale = 0
        if i < end, base[i] == 0x2E {
            i += 1
            let fraction = i
            while i < end {
                let digit = base[i] &- 0x30
                if digit > 9 { break }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                i += 1
            }
            scale = i - fraction
            digits += scale
        }
        guard digits > 0, digits <= 15 else { return nil }
        let value = Double(mantissa) / exactPower(scale)
        return negative ? -value : value
    }

    /// A decimal number from bytes, or nil.
    public static func parse(_ bytes: ArraySlice<UInt8>) -> Double? {
        bytes.withUnsafeBufferPointer { parse($0) }
    }

    /// Whether a byte can be part of a decimal number: 0-9 . - + e E.
    public static func isNumberByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x2D || b == 0x2B || b == 0x65 || b == 0x45
    }
}
