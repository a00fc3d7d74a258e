/// A depth-first walk over comments nested in arrays (`replies`, `children`, Reddit's reply
/// Listings), with an explicit stack: a reply chain of any depth is a loop, not recursion.
///
/// Each array is pushed with what its elements share: the record that holds them, the path
/// fragment to the array, and their parent's id. Elements come out in document pre-order when
/// the caller pushes a comment's replies right after taking the comment.
struct ReplyWalk {
    struct Frame: ArrayFrame {
        var array: Int
        var position: Int
        var element: Int
        /// Index of the record whose replies these are, or -1 at top level.
        var container: Int32
        /// Path from the container to the array (`.replies`, `.data.replies.data.children`).
        var key: String?
        var parent: CommentID?
    }

    let document: JSONDocument
    private var stack: [Frame] = []

    init(document: JSONDocument) { self.document = document }

    /// Adds an array to walk next; does nothing for an empty one.
    mutating func push(_ array: Int, container: Int32, key: String?, parent: CommentID?) {
        guard document.count(array) > 0 else { return }
        stack.append(Frame(array: array, position: 0, element: array + 1, container: container, key: key, parent: parent))
    }

    /// The next element and the frame it belongs to (its `position` is the element's index).
    mutating func next() -> (element: Int, frame: Frame)? { stack.nextElement(in: document) }
}

/// A frame of a walk over nested arrays: the array, and the place and tape index of its next
/// element.
protocol ArrayFrame {
    var array: Int { get }
    var position: Int { get set }
    var element: Int { get set }
}

extension Array where Element: ArrayFrame {
    /// The next element of the innermost array not yet done, with its frame as it stood (its
    /// `position` the element's index); the frames done are dropped.
    mutating func nextElement(in document: JSONDocument) -> (element: Int, frame: Element)? {
        while let top = last {
            guard top.position < document.count(top.array) else {
                removeLast()
                continue
            }
            self[count - 1].position += 1
            self[count - 1].element = document.next(top.element)
            return (top.element, top)
        }
        return nil
    }
}
