extension [Problem] {
    /// Whether a file's errors reached `ThreadDecoder.errorLimit`, where reading the file stops:
    /// past that many, more would tell the reader nothing new.
    var isFull: Bool { count >= ThreadDecoder.errorLimit }

    /// Appends `problem`, unless the list is full.
    mutating func appendUnlessFull(_ problem: Problem) {
        if !isFull { append(problem) }
    }
}
