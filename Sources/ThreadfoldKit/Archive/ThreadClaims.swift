import Synchronization

/// The thread ids (as bytes) and folders one build's workers have taken, with where they came
/// from, so two threads with one id or folder fail the build naming both. Claims are packed: each
/// claim's id, folder, source and error file as bytes in one buffer, found by a 64-bit hash of its
/// id and of its folder (a second claim whose hash is taken by a different id or folder is kept
/// by its bytes). As dictionaries of strings, 100,000 threads held about 400 bytes each; packed, a
/// Reddit thread's claim is about 200.
///
/// Workers claim in whatever order they finish, so a clash is only noted when it is found, and
/// settled once every claim is in (`clashes`): of the threads with one id or folder, the one of
/// the earliest input holds it (its rank: the unit or dump partition, then the order it claimed
/// in), and every other one is the error. The messages are the same whatever the timing.
final class ThreadClaims: Sendable {
    private let state = Mutex(State())
    private let hash: @Sendable ([UInt8]) -> UInt64

    /// `hash` is for tests, which make every claim collide.
    init(hash: @escaping @Sendable ([UInt8]) -> UInt64 = { StableHash.content($0) }) {
        self.hash = hash
    }

    private struct State {
        /// Each claim's id, folder, source and error file, length-prefixed, one claim after another.
        var bytes: [UInt8] = []
        var starts: [Int] = []
        var ranks: [Int32] = []
        var ids: [UInt64: Int32] = [:]
        var folders: [UInt64: Int32] = [:]
        var otherIDs: [[UInt8]: Int32] = [:]
        var otherFolders: [[UInt8]: Int32] = [:]
        /// Claims that found their id or folder taken: (the claim holding it, the claim).
        var clashes: [(holder: Int32, claim: Int32)] = []

        /// Field `k` (0 id, 1 folder, 2 source, 3 error file) of claim `c`.
        func field(_ c: Int32, _ k: Int) -> ArraySlice<UInt8> {
            var at = starts[Int(c)]
            for _ in 0..<k { at += 4 + Self.length(bytes, at) }
            return bytes[(at + 4)..<(at + 4 + Self.length(bytes, at))]
        }

        static func length(_ bytes: [UInt8], _ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }

        mutating func append(_ field: [UInt8]) {
            let n = UInt32(field.count)
            bytes += [UInt8(truncatingIfNeeded: n), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 24)]
            bytes += field
        }

        /// The claim holding `key` (field `k`): the one its hash leads to when the bytes match,
        /// else the one kept by its bytes.
        func find(_ key: [UInt8], hash: UInt64, field k: Int, in byHash: [UInt64: Int32], _ byBytes: [[UInt8]: Int32]) -> Int32? {
            guard let c = byHash[hash] else { return nil }
            return field(c, k).elementsEqual(key) ? c : byBytes[key]
        }
    }

    /// One clash, settled: a thread that lost its id or folder to one of an earlier input.
    /// Its `id` and `folder` (`t/<folder>`), its `source` as its claim named it, the `errorFile`
    /// an error about a dump's thread names, the `holder`'s source, and its `rank`: the unit (past
    /// the units, the dump partition) of the thread that lost.
    struct Clash: Equatable {
        var id, folder, source, errorFile, holder: String
        var rank: Int
    }

    /// Takes `id` and `folder` for `source`, a thread of the unit or dump partition `rank` (its
    /// place among the build's inputs). `errorFile` is what an error about the claim names. A claim
    /// that finds either taken is noted, for `clashes`, and false: its thread is not to be written.
    @discardableResult
    func claim(id: [UInt8], folder: String, source: String, rank: Int, errorFile: String) -> Bool {
        let folder = Array(folder.utf8)
        let idHash = hash(id), folderHash = hash(folder)
        return state.withLock { state in
            let c = Int32(state.starts.count)
            state.starts.append(state.bytes.count)
            state.ranks.append(Int32(rank))
            state.append(id)
            state.append(folder)
            state.append(Array(source.utf8))
            state.append(Array(errorFile.utf8))
            if let holder = state.find(id, hash: idHash, field: 0, in: state.ids, state.otherIDs)
                ?? state.find(folder, hash: folderHash, field: 1, in: state.folders, state.otherFolders)
            {
                state.clashes.append((holder, c))
                return false
            }
            if state.ids[idHash] == nil { state.ids[idHash] = c } else { state.otherIDs[id] = c }
            if state.folders[folderHash] == nil { state.folders[folderHash] = c } else { state.otherFolders[folder] = c }
            return true
        }
    }

    /// Every clash, settled whatever order the claims came in: of each claim and the ones that
    /// clashed with it, the earliest (by rank, then by the order claims of one rank came in,
    /// which one worker makes) holds, and each other one is a clash.
    func clashes() -> [Clash] {
        state.withLock { state in
            guard !state.clashes.isEmpty else { return [] }
            var groups: [Int32: [Int32]] = [:]
            for (holder, claim) in state.clashes { groups[holder, default: [holder]].append(claim) }
            func text(_ c: Int32, _ k: Int) -> String { String(decoding: state.field(c, k), as: UTF8.self) }
            var result: [Clash] = []
            for (_, members) in groups {
                let ordered = members.sorted { (state.ranks[Int($0)], $0) < (state.ranks[Int($1)], $1) }
                let holder = text(ordered[0], 2)
                for c in ordered.dropFirst() {
                    result.append(
                        Clash(id: text(c, 0), folder: text(c, 1), source: text(c, 2), errorFile: text(c, 3), holder: holder, rank: Int(state.ranks[Int(c)])))
                }
            }
            return result.sorted { ($0.rank, $0.source, $0.id) < ($1.rank, $1.source, $1.id) }
        }
    }
}
