/// Where each line of a body starts, as cmark counts lines (`\n`, `\r\n` or `\r`): the passes
/// that read a node's source (block spoilers, tables) find it from the node's line and column.
enum SourceLines {
    static func starts(in source: UnsafeBufferPointer<UInt8>) -> [Int] {
        var starts = [0]
        var i = 0
        while i < source.count {
            if source[i] == 0x0A || (source[i] == 0x0D && (i + 1 == source.count || source[i + 1] != 0x0A)) { starts.append(i + 1) }
            i += 1
        }
        return starts
    }
}
