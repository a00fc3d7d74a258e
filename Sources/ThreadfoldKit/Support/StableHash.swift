/// The stable hashes: the same value for the same bytes on every machine and every run, unlike
/// Swift's `Hasher` (seeded per process). Not for security. Two algorithms, each with one job, and
/// neither can be swapped for the other without changing what earlier builds published or kept:
///
/// - `name` (FNV-1a, 64 bits) names what a site publishes: anchors (`c_<hash>`), thread and author
///   folders, category section keys; and chooses a thread's shard and a dump line's partition
///   (`spread`). A new algorithm would move every such URL.
/// - `content` (eight bytes a step, multiply-xorshift; `wide` for long runs) tells change: the
///   manifest's unit hashes (`wide`) and file hashes, the settings key, spill digests; and two
///   published values that must not change either, feed entries' `urn:uuid:`s and the stand-in id
///   of a thread without one.
package enum StableHash {
    // MARK: Names

    package static func name<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// `name` with its bits mixed (SplitMix64's finaliser), for splitting by `%`: FNV-1a's low
    /// bits are weak, so `hash % n` alone is lopsided for even `n`.
    package static func spread<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        var z = name(bytes)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `name` as 16 hex digits.
    package static func nameHex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        hex(name(bytes))
    }

    /// The hash's top `bits` (a multiple of 4, at most 64) as hex digits.
    package static func nameHex<S: Sequence>(_ bytes: S, bits: Int) -> String where S.Element == UInt8 {
        String(nameHex(bytes).prefix(bits / 4))
    }

    // MARK: Content

    package static func content(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        bytes.withUnsafeBytes { raw in content(raw, seed: seed) }
    }

    package static func content(_ raw: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let m: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h = seed ^ (UInt64(raw.count) &* m)
        var i = 0
        while i + 8 <= raw.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            h = (h ^ (word &* m)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < raw.count {
            tail |= UInt64(raw[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ (tail &* m)) &* 0x94D0_49BB_1331_11EB
        h ^= h >> 29
        return h
    }

    /// Another hash of the same strength for long runs of bytes, about twice as fast: four lanes
    /// of eight bytes each step, independent of each other, then `content` of the lanes and the
    /// tail. Its values differ from `content`'s, so a value stored by one is never compared with
    /// the other's.
    package static func wide(_ raw: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        var hash = Wide(count: raw.count, seed: seed)
        var i = 0
        while i + 32 <= raw.count {
            hash.step(raw, at: i)
            i += 32
        }
        return hash.finish(tail: UnsafeRawBufferPointer(rebasing: raw[i...]))
    }

    /// `wide` of a run of bytes handed over a piece at a time, for a run too large to hold whole
    /// at once: the same value as `wide` of the run. The run's length is said first (`wide`
    /// mixes it in before the bytes).
    package struct Wide {
        private var a: UInt64, b: UInt64, c: UInt64, d: UInt64
        /// The bytes of a 32-byte step not yet complete.
        private var pending: [UInt8] = []
        private let count: Int
        private var taken = 0

        package init(count: Int, seed: UInt64 = 0) {
            self.count = count
            a = seed ^ (UInt64(count) &* StableHash.wideM)
            b = a ^ 0x2545_F491_4F6C_DD1D
            c = a ^ 0x94D0_49BB_1331_11EB
            d = a ^ StableHash.wideK
        }

        package mutating func update(_ raw: UnsafeRawBufferPointer) {
            taken += raw.count
            var i = 0
            if !pending.isEmpty {
                i = min(32 - pending.count, raw.count)
                pending.append(contentsOf: raw[0..<i])
                guard pending.count == 32 else { return }
                pending.withUnsafeBytes { step($0, at: 0) }
                pending.removeAll(keepingCapacity: true)
            }
            while i + 32 <= raw.count {
                step(raw, at: i)
                i += 32
            }
            pending.append(contentsOf: raw[i...])
        }

        /// The hash, once all `count` bytes are taken.
        package func finish() -> UInt64 {
            precondition(taken == count, "StableHash.Wide took \(taken) bytes of the \(count) it was told of")
            return pending.withUnsafeBytes { finish(tail: $0) }
        }

        /// `content` of the lanes, then of the bytes short of a step. Little-endian, as the words
        /// were read: the same value on every machine.
        fileprivate func finish(tail: UnsafeRawBufferPointer) -> UInt64 {
            let lanes = withUnsafeBytes(of: (a.littleEndian, b.littleEndian, c.littleEndian, d.littleEndian)) { content($0) }
            return content(tail, seed: lanes)
        }

        /// One step: 32 bytes at `i`, eight to each lane.
        @inline(__always)
        fileprivate mutating func step(_ raw: UnsafeRawBufferPointer, at i: Int) {
            let m = StableHash.wideM, k = StableHash.wideK
            @inline(__always) func word(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) &* m }
            a = (a ^ word(i)) &* k
            b = (b ^ word(i + 8)) &* k
            c = (c ^ word(i + 16)) &* k
            d = (d ^ word(i + 24)) &* k
            a ^= a >> 31
            b ^= b >> 31
            c ^= c >> 31
            d ^= d >> 31
        }
    }

    /// `wide`'s multipliers: of each word, and of each lane.
    fileprivate static let wideM: UInt64 = 0x9E37_79B9_7F4A_7C15
    fileprivate static let wideK: UInt64 = 0xBF58_476D_1CE4_E5B9

    package static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
