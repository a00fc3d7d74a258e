/// HTML ids for comments, derived from their ids but never equal to untrusted text.
///
/// An id of at most 64 ASCII letters, digits, `-` and `_` becomes `c-<id>`; anything else
/// becomes `c_<16 hex digits of FNV-1a-64 of its bytes>`. The two shapes cannot collide with
/// each other, ids differing only by case or normalisation get different anchors, and the rare
/// hash collision is resolved by a counter in input order, so anchors are stable.
package enum Anchors {
    package static func make(for records: [CommentRecord]) -> [String] {
        var used = Set<String>(minimumCapacity: records.count)
        var anchors: [String] = []
        anchors.reserveCapacity(records.count)
        for record in records {
            var anchor = anchorBase(record.id)
            // One hash for an anchor not used yet (nearly all): the insert says whether it was.
            if !used.insert(anchor).inserted {
                var k = 2
                while used.contains("\(anchor)-\(k)") { k += 1 }
                anchor = "\(anchor)-\(k)"
                used.insert(anchor)
            }
            anchors.append(anchor)
        }
        return anchors
    }

    static func anchorBase(_ id: CommentID) -> String {
        let bytes = id.string.utf8
        let plain =
            !bytes.isEmpty && bytes.count <= 64
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    return true
                default: return false
                }
            }
        return plain ? "c-" + id.string : "c_" + StableHash.nameHex(bytes)
    }
}
