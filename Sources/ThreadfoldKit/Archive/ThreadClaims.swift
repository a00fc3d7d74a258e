import Synchronization

/// The thread ids (as bytes) and folders one build's workers have taken, with where they came
/// from, so two threads with one id or folder fail the build naming both. Claims are packed: each
/// claim's id, folder and source as bytes in one buffer, found by a 64-bit hash of its id and of
/// its folder (a second claim whose hash is taken by a different id or folder is kept by its
/// bytes). As dictionaries of strings, 100,000 threads held about 400 bytes each; packed, a
/// Reddit thread's claim is about 180.
final class ThreadClaims: Sendable {
    private let state = Mutex(State())
    private let hash: @Sendable ([UInt8]) -> UInt64

    /// `hash` is for tests, which make every claim collide.
    init(hash: @escaping @Sendable ([UInt8]) -> UInt64 = { StableHash.content($0) }) {
        self.hash = hash
    }

    private struct State {
        /// Each claim's id, folder and source, length-prefixed, one claim after another.
        var bytes: [UInt8] = []
        var starts: [Int] = []
        var ids: [UInt64: Int32] = [:]
        var folders: [UInt64: Int32] = [:]
        var otherIDs: [[UInt8]: Int32] = [:]
        var otherFolders: [[UInt8]: Int32] = [:]

        /// Field `k` (0 id, 1 folder, 2 source) of claim `c`.
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

    /// Takes `id` and `folder` for `source`, or returns the source of the claim holding either.
    func claim(id: [UInt8], folder: String, source: String) -> String? {
        let folder = Array(folder.utf8)
        let idHash = hash(id), folderHash = hash(folder)
        return state.withLock { state -> String? in
            if let c = state.find(id, hash: idHash, field: 0, in: state.ids, state.otherIDs)
                ?? state.find(folder, hash: folderHash, field: 1, in: state.folders, state.otherFolders)
            {
                return String(decoding: state.field(c, 2), as: UTF8.self)
            }
            let c = Int32(state.starts.count)
            state.starts.append(state.bytes.count)
            state.append(id)
            state.append(folder)
            state.append(Array(source.utf8))
            if state.ids[idHash] == nil { state.ids[idHash] = c } else { state.otherIDs[id] = c }
            if state.folders[folderHash] == nil { state.folders[folderHash] = c } else { state.otherFolders[folder] = c }
            return nil
        }
    }
}
