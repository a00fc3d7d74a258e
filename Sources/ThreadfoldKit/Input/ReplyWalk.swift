/// A depth-first walk over comments nested in arrays (`replies`, `children`, Reddit's reply
/// Listings), with an explicit stack: a reply chain of any depth is a loop, not recursion.
///
/// Each array is pushed with what its elements share: the record that holds them, the path
/// fragment to the array, their parent's id, and whatever else a reader keeps per array
/// (`Extra`: a mapping's thread and whether the items are left out). Elements come out in
/// document pre-order when the caller pushes a comment's replies right after taking the comment.
struct ReplyWalk<Extra> {
    struct Frame {
        var array: Int
        /// The place of the next element in the array, and its tape index.
        var position = 0
        var element: Int
        /// Index of the record whose replies these are, or -1 at top level.
        var container: Int32
        /// Path from the container to the array (`.replies`, `.data.replies.data.children`).
        var key: String?
        var parent: CommentID?
        var extra: Extra
    }

    let json: JSONReader
    private var stack: [Frame] = []

    init(json: JSONReader) { self.json = json }

    /// Adds an array to walk next; does nothing for an empty one, or for anything but an array.
    mutating func push(_ array: Int, container: Int32, key: String?, parent: CommentID?, extra: Extra) {
        guard let first = json.firstElement(array) else { return }
        stack.append(Frame(array: array, element: first, container: container, key: key, parent: parent, extra: extra))
    }

    /// The next element and the frame it belongs to (its `position` is the element's index): the
    /// next element of the innermost array not yet done; the frames done are dropped.
    mutating func next() -> (element: Int, frame: Frame)? {
        while let top = stack.last {
            guard top.position < json.size(top.array) else {
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].position += 1
            stack[stack.count - 1].element = json.document.next(top.element)
            return (top.element, top)
        }
        return nil
    }
}

extension ReplyWalk where Extra == Void {
    /// Adds an array to walk next; does nothing for an empty one.
    mutating func push(_ array: Int, container: Int32, key: String?, parent: CommentID?) {
        push(array, container: container, key: key, parent: parent, extra: ())
    }
}
