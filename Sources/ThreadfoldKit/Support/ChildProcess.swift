import Foundation
import Synchronization

/// A program run in a process group of its own (`POSIX_SPAWN_SETPGROUP`), so that it and
/// everything it starts end together: when it overruns its time, when it exits leaving children
/// behind, and when the build ends on SIGINT or SIGTERM (`killAll`, which the signal path calls
/// before the staging folder the program works in is removed). No shell runs it.
package enum ChildProcess {
    package struct Outcome: Sendable {
        /// The exit status, or nil when a signal ended it.
        package var status: Int32?
        /// The signal that ended it.
        package var signal: Int32?
        /// The last 64 KiB of its standard output and standard error, together.
        package var output: [UInt8]
        /// It ran past the time allowed and was killed.
        package var timedOut: Bool
    }

    /// The process groups running, and whether `killAll` has begun (then nothing more starts).
    private static let groups = Mutex<(running: Set<pid_t>, stopped: Bool)>(([], false))

    /// Runs `arguments` (an absolute executable first, and absolute paths: it runs in this
    /// process's folder), standard input from /dev/null, for at most `timeout` seconds; throws
    /// the errno when it cannot be started.
    package static func run(_ arguments: [String], timeout: Double) throws(SystemCallError) -> Outcome {
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else { throw SystemCallError(code: errno) }
        for fd in pipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { close(pipe[0]) }
        let pid: pid_t
        do { pid = try spawn(arguments, output: pipe[1]) } catch {
            close(pipe[1])
            throw error
        }
        close(pipe[1])
        defer { _ = groups.withLock { $0.running.remove(pid) } }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(timeout, 0) * 1e9)
        var output: [UInt8] = []
        var timedOut = false
        var open = true
        while true {
            if open { open = drain(pipe[0], into: &output, waiting: 100) } else { usleep(20_000) }
            // Exited (seen without reaping, so its group id cannot be reused yet): whatever it
            // left running in its group is killed, then it is reaped.
            var info = siginfo_t()
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == pid { break }
            if DispatchTime.now().uptimeNanoseconds >= deadline {
                timedOut = true
                break
            }
        }
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if open { _ = drain(pipe[0], into: &output, waiting: 0) }
        let signalled = status & 0x7F != 0
        return Outcome(
            status: signalled ? nil : (status >> 8) & 0xFF, signal: signalled ? status & 0x7F : nil,
            output: output, timedOut: timedOut)
    }

    /// A program started by `start`, talked to through pipes: the caller writes `input`, reads
    /// `output` and `errors` (all three close-on-exec and non-blocking here), and ends it with `end`.
    package struct Piped: Sendable {
        package let pid: pid_t
        package let input: Int32
        package let output: Int32
        package let errors: Int32
    }

    /// Starts `arguments` like `run` does, its standard input, output and error each a pipe of
    /// the caller's; throws the errno when it cannot be started.
    package static func start(_ arguments: [String]) throws(SystemCallError) -> Piped {
        var fds: [Int32] = []
        defer { for fd in fds where fd >= 0 { close(fd) } }
        for _ in 0..<3 {
            var pipe: [Int32] = [-1, -1]
            guard Glibc.pipe(&pipe) == 0 else { throw SystemCallError(code: errno) }
            for fd in pipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            fds += pipe
        }
        let pid = try spawn(arguments, input: fds[0], output: fds[3], errors: fds[5])
        let piped = Piped(pid: pid, input: fds[1], output: fds[2], errors: fds[4])
        for fd in [piped.input, piped.output, piped.errors] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        for i in [1, 2, 4] { fds[i] = -1 }
        return piped
    }

    /// Ends a program `start` started: closes its pipes, kills its group (it and whatever it left
    /// running) and reaps it. Its exit status, or nil when a signal ended it before it exited.
    @discardableResult
    package static func end(_ piped: Piped) -> Int32? {
        for fd in [piped.input, piped.output, piped.errors] { close(fd) }
        kill(-piped.pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(piped.pid, &status, 0) < 0 && errno == EINTR {}
        _ = groups.withLock { $0.running.remove(piped.pid) }
        return status & 0x7F != 0 ? nil : (status >> 8) & 0xFF
    }

    /// Writes to `fd`, a pipe to a program `start` started, with SIGPIPE blocked in this thread:
    /// when the program has gone, the write fails with EPIPE (and the signal it raised is
    /// taken) instead of ending this process. Returns what `write` returns, errno as it left it.
    package static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var old = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &old)
        let written = Glibc.write(fd, bytes.baseAddress, bytes.count)
        let code = errno
        if written < 0 && code == EPIPE {
            var now = timespec(tv_sec: 0, tv_nsec: 0)
            while sigtimedwait(&pipeSignal, nil, &now) == SIGPIPE {}
        }
        pthread_sigmask(SIG_SETMASK, &old, nil)
        errno = code
        return written
    }

    /// Starts the program in a new process group with default signal handling and an empty
    /// signal mask (the caller's threads block SIGINT and SIGTERM), its output to `output`, and
    /// registers the group in the same step, so `killAll` never misses one.
    private static func spawn(_ arguments: [String], input: Int32? = nil, output: Int32, errors: Int32? = nil) throws(SystemCallError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input { posix_spawn_file_actions_adddup2(&actions, input, 0) } else { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, errors ?? output, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        // A program written a moment ago (a test's stand-in, a build script's download) may
        // still be open for writing in a child another thread is starting, between its fork and
        // its exec: exec then fails with ETXTBSY until that child has exec'd. Tried again for up
        // to a second.
        var attempts = 0
        while true {
            do throws(SystemCallError) {
                return try groups.withLock { (groups) throws(SystemCallError) -> pid_t in
                    guard !groups.stopped else { throw SystemCallError(code: EINTR) }
                    var pid: pid_t = 0
                    let code = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
                    guard code == 0 else { throw SystemCallError(code: code) }
                    groups.running.insert(pid)
                    return pid
                }
            } catch {
                attempts += 1
                guard error.code == ETXTBSY, attempts < 50 else { throw error }
                usleep(20_000)
            }
        }
    }

    /// Reads what is ready on `fd` (waiting up to `milliseconds` for it), keeping the last
    /// 64 KiB in `output`; false at the end of the output.
    private static func drain(_ fd: Int32, into output: inout [UInt8], waiting milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        guard ready > 0 else { return true }
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        let count = read(fd, &buffer, buffer.count)
        if count < 0 { return errno == EINTR || errno == EAGAIN }
        if count == 0 { return false }
        output += buffer.prefix(count)
        if output.count > 64 << 10 { output.removeFirst(output.count - (64 << 10)) }
        return true
    }

    /// Kills every running group (SIGKILL: a program told to stop may take its time), lets no
    /// new one start, and waits up to two seconds until no process of them runs. For the
    /// SIGINT and SIGTERM path, before the staging folder is removed.
    package static func killAll() {
        let running = groups.withLock { groups in
            groups.stopped = true
            return groups.running
        }
        for group in running { kill(-group, SIGKILL) }
        let deadline = DispatchTime.now().uptimeNanoseconds + 2_000_000_000
        while !running.isEmpty && running.contains(where: { isRunning(group: $0) }) && DispatchTime.now().uptimeNanoseconds < deadline {
            usleep(5_000)
        }
    }

    /// Whether a process of the group `group` still runs (a zombie, dead but not yet reaped by
    /// its parent, does not).
    package static func isRunning(group: pid_t) -> Bool {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return false }
        return entries.contains { name in
            guard let pid = pid_t(name), let (state, pgrp) = status(of: pid) else { return false }
            return pgrp == group && state != "Z" && state != "X"
        }
    }

    /// Whether the process `pid` runs (a zombie does not).
    package static func isRunning(_ pid: pid_t) -> Bool {
        guard let (state, _) = status(of: pid) else { return false }
        return state != "Z" && state != "X"
    }

    /// The state letter and process group of `pid`, from /proc/<pid>/stat.
    private static func status(of pid: pid_t) -> (state: Character, group: pid_t)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 2, let state = fields[0].first, let group = pid_t(fields[2]) else { return nil }
        return (state, group)
    }
}
