/// How a body is written: Markdown (rendered by cmark), HTML (sanitised), or plain text.
public enum BodyFormat: String, Sendable, CaseIterable {
    case markdown, html, text
}
