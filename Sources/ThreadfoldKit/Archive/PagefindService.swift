import Foundation
import Synchronization

extension Pagefind {
    /// Why a session with Pagefind's service did not end with its index written.
    enum Failure: Equatable {
        case timedOut
        case interrupted
        /// It ended (or closed its output) before it answered; the words say how.
        case exited(String)
        /// It answered a message with an error, in its words.
        case refused(String)
        /// A page could not be read.
        case unreadable(String)

        var words: String {
            switch self {
            case .timedOut: return "did not finish in time"
            case .interrupted: return "was stopped: the build was interrupted"
            case .exited(let words): return words
            case .refused(let message): return "failed (\(message))"
            case .unreadable(let message): return "could not be given a page (\(message))"
            }
        }
    }

    /// One run of Pagefind's service protocol: messages are base64 of JSON, each followed by a
    /// comma, on its standard input, and its answers come the same way on its standard output,
    /// one per message, in order (it handles them one at a time). What the queue gives is sent
    /// as Pagefind takes it, a few messages ahead, so a page read here overlaps with Pagefind
    /// indexing the last; `WriteFiles` comes last. Standard input stays open until that is
    /// answered: at its end the service exits at once, whatever it was doing.
    struct Session {
        let piped: ChildProcess.Piped
        /// What is to be indexed, as it comes.
        let queue: Queue
        /// The end of what it wrote on its standard error, for messages.
        var errors: [UInt8] = []
        /// Where `WriteFiles` asked it to write, once sent.
        private(set) var output: String?
        /// Messages sent, answers read.
        private var sent = 0, answered = 0
        /// The messages not yet written whole, and how much of them was.
        private var pending: [UInt8] = [], written = 0
        /// Answers read and not yet taken (the start of one at the end), and whether the last came.
        private var incoming: [UInt8] = [], finished = false

        init(piped: ChildProcess.Piped, queue: Queue) {
            self.piped = piped
            self.queue = queue
        }

        /// Sends everything the queue gives and reads every answer, until the index is written
        /// (nil) or `deadline` (nanoseconds of uptime), once the queue has it, has passed.
        mutating func run() -> Failure? {
            send(type: "NewIndex") { w in
                w.key("config")
                w.object { w in
                    w.key("keep_index_url")
                    w.bool(true)
                }
            }
            while !finished {
                if SiteWriter.interrupted { return .interrupted }
                if let deadline = queue.deadline, DispatchTime.now().uptimeNanoseconds >= deadline { return .timedOut }
                let waiting: Int32
                switch fill() {
                case .failed(let failure): return failure
                case .waiting: waiting = 5
                case .sent: waiting = 100
                }
                var fds = [
                    pollfd(fd: piped.output, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: piped.errors, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: piped.input, events: Int16(written < pending.count ? POLLOUT : 0), revents: 0),
                ]
                guard poll(&fds, 3, waiting) >= 0 || errno == EINTR else { return .exited("failed (\(SystemError.last))") }
                if fds[1].revents != 0 { Self.drain(piped.errors, into: &errors, keep: 64 << 10) }
                if fds[2].revents & Int16(POLLOUT | POLLERR | POLLHUP) != 0, let failure = flush() { return failure }
                if fds[0].revents != 0 {
                    let before = incoming.count
                    Self.drain(piped.output, into: &incoming, keep: .max)
                    if incoming.count == before { return .exited("ended early") }
                    if let failure = answers() { return failure }
                }
            }
            return nil
        }

        enum Filled {
            case sent, waiting
            case failed(Failure)
        }

        /// Queues the next messages while few are unanswered (so the pipe never holds much more
        /// than a page), and `WriteFiles` after the last page; `waiting` when the queue has
        /// nothing yet.
        private mutating func fill() -> Filled {
            while written == pending.count && sent - answered < 8 {
                pending.removeAll(keepingCapacity: true)
                written = 0
                switch queue.take() {
                case nil: return .waiting
                case .record(let url, let record): send(type: "AddRecord") { w in Self.encode(record, url: url, into: &w) }
                case .page(let site, let page):
                    let bytes: [UInt8]
                    do {
                        let slash = page.lastIndex(of: "/")!
                        bytes = try SourceFolder.open(site + "/" + page[..<slash]).read(String(page[page.index(after: slash)...])).bytes
                    } catch {
                        return .failed(.unreadable("\(page): \(error.code != 0 ? SystemError.describe(error.code) : "\(error)")"))
                    }
                    guard let record = PagefindRecord.read(bytes) else { continue }
                    send(type: "AddRecord") { w in Self.encode(record, url: "/" + page, into: &w) }
                case .write(let output):
                    self.output = output
                    send(type: "WriteFiles") { w in w.field("output_path", output) }
                }
            }
            return .sent
        }

        static func encode(_ record: PagefindRecord, url: String, into w: inout JSONWriter) {
            w.field("url", url)
            w.field("content", record.content)
            w.field("language", record.language)
            w.key("meta")
            w.object { w in if let title = record.title { w.field("title", title) } }
            w.key("filters")
            w.object { w in for filter in record.filters { w.field(filter.name, strings: filter.values) } }
        }

        /// Adds a message to what is to be written: `{"message_id":n,"payload":{"type":…,"index_id":0,…}}`.
        private mutating func send(type: String, _ fields: (inout JSONWriter) -> Void) {
            var w = JSONWriter(pretty: false)
            w.object { w in
                w.field("message_id", sent)
                w.key("payload")
                w.object { w in
                    w.field("type", type)
                    if type != "NewIndex" { w.field("index_id", 0) }
                    fields(&w)
                }
            }
            pending += Data(w.out).base64EncodedData()
            pending.append(UInt8(ascii: ","))
            sent += 1
        }

        /// Writes what the pipe takes of the pending messages.
        private mutating func flush() -> Failure? {
            while written < pending.count {
                let count = pending.withUnsafeBytes { raw in ChildProcess.write(piped.input, UnsafeRawBufferPointer(rebasing: raw[written...])) }
                if count < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN { return nil }
                    return .exited("ended early")
                }
                written += count
            }
            return nil
        }

        /// Takes the complete answers read so far: an error ends the session, `WriteFiles` finishes it.
        private mutating func answers() -> Failure? {
            var start = 0
            while let comma = incoming[start...].firstIndex(of: UInt8(ascii: ",")) {
                let message = Data(incoming[start..<comma])
                start = comma + 1
                guard let decoded = Data(base64Encoded: message),
                    let object = try? JSONSerialization.jsonObject(with: decoded) as? [String: Any],
                    let payload = object["payload"] as? [String: Any], let type = payload["type"] as? String
                else { return .refused("an answer that is not one of its service's: \(String(decoding: message.prefix(200), as: UTF8.self))") }
                answered += 1
                if type == "Error" { return .refused(payload["message"] as? String ?? "an error without a message") }
                if type == "WriteFiles" { finished = true }
            }
            incoming.removeFirst(start)
            return nil
        }

        /// Once `WriteFiles` is answered, waits until Pagefind holds no file open under the folder
        /// it wrote (its `/proc` descriptors), by `deadline` and ten seconds at most. It answers
        /// when each file's bytes are handed to a thread of its runtime's, which writes and closes
        /// the file after: ended at once, it can leave a file empty or cut short (seen under load:
        /// a published index without its `pagefind-entry.json`).
        func awaitWrites() {
            guard let output else { return }
            let folders = Set([output, URL(fileURLWithPath: output).resolvingSymlinksInPath().path].map { $0.hasSuffix("/") ? $0 : $0 + "/" })
            let descriptors = "/proc/\(piped.pid)/fd"
            let end = min(queue.deadline ?? .max, DispatchTime.now().uptimeNanoseconds + 10_000_000_000)
            while DispatchTime.now().uptimeNanoseconds < end {
                guard let names = try? FileManager.default.contentsOfDirectory(atPath: descriptors) else { return }
                let writing = names.contains { name in
                    guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + name) else { return false }
                    return folders.contains { target.hasPrefix($0) }
                }
                if !writing { return }
                usleep(2_000)
            }
        }

        /// Reads what is ready on the non-blocking `fd` into `buffer`, keeping its last `keep` bytes.
        static func drain(_ fd: Int32, into buffer: inout [UInt8], keep: Int) {
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = read(fd, &chunk, chunk.count)
                guard count > 0 else { return }
                buffer += chunk.prefix(count)
                if buffer.count > keep { buffer.removeFirst(buffer.count - keep) }
            }
        }
    }

    /// What a session is to send, in order: every page of the staged site in the order its
    /// listing gives, each as the record made when it was rendered or else read from the site,
    /// then where to write the index. Pagefind numbers pages as they come, so the order is the
    /// listing's, never the workers': the same site gives the same index. Filled from any thread.
    final class Queue: Sendable {
        enum Item: Sendable {
            case record(url: String, PagefindRecord)
            /// A page to read, by its path from the site.
            case page(site: String, String)
            case write(output: String)
        }

        private struct State {
            var items: [Item] = []
            var head = 0
            /// The records of the pages rendered, by URL; nil for a page with nothing to index.
            var given: [String: PagefindRecord?] = [:]
            var deadline: UInt64?
        }

        private let state = Mutex(State())

        init() {}

        /// The pages listed, then `WriteFiles` into `site`/pagefind, all by `deadline`.
        init(site: String, pages: [String], deadline: UInt64) {
            state.withLock { state in
                state.items = pages.map { .page(site: site, $0) } + [.write(output: (site as NSString).appendingPathComponent("pagefind"))]
                state.deadline = deadline
            }
        }

        /// Keeps the record of the page at `url` (`/t/…`), or that it has none, until `finish`.
        func add(url: String, _ record: PagefindRecord?) {
            state.withLock { $0.given[url] = record }
        }

        /// Adds `pages` of the staged site, in their order: each given page's record, and the
        /// others to be read; then `WriteFiles` into `site`/pagefind. The session must be done
        /// by `deadline`.
        func finish(site: String, pages: [String], deadline: UInt64) {
            state.withLock { state in
                for page in pages {
                    let url = "/" + page
                    guard let given = state.given[url] else {
                        state.items.append(.page(site: site, page))
                        continue
                    }
                    if let record = given { state.items.append(.record(url: url, record)) }
                }
                state.given = [:]
                state.items.append(.write(output: (site as NSString).appendingPathComponent("pagefind")))
                state.deadline = deadline
            }
        }

        var deadline: UInt64? { state.withLock { $0.deadline } }

        /// The next item, or nil when there is none yet.
        func take() -> Item? {
            state.withLock { state in
                guard state.head < state.items.count else { return nil }
                defer {
                    state.head += 1
                    if state.head >= 4096 && state.head * 2 >= state.items.count {
                        state.items.removeFirst(state.head)
                        state.head = 0
                    }
                }
                return state.items[state.head]
            }
        }
    }
}
