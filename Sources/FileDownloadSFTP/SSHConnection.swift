internal import CSSH2
import FileDownload
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One SSH session with its SFTP channel, owned by one dedicated `SerialThread` of its own.
///
/// Every method that touches libssh2 runs on ``thread`` (inside a job of ``IOJob``); the pool hands
/// a connection to one transfer at a time, so calls on one session never race. The session is
/// non-blocking: each call that answers `LIBSSH2_ERROR_EAGAIN` waits in `poll()` on the socket
/// (in the directions `libssh2_session_block_directions` names) and the job's wake fd.
final class SSHConnection: @unchecked Sendable {
    let key: SessionKey
    let configuration: SFTPTransport.Configuration
    /// The transport's configuration generation this connection was made under.
    let generation: Int
    let thread: SerialThread

    private var socketFD: Int32 = -1
    private var session: OpaquePointer?
    private var sftp: OpaquePointer?
    private(set) var isReady = false
    /// The known hosts file as it was when the host key was verified.
    private(set) var verifiedStamp: KnownHosts.Stamp?
    /// When the connection was last handed back to the pool.
    var lastUsed = ContinuousClock.now

    /// Set while keyboard-interactive authentication runs: answers the prompts on this thread.
    fileprivate var keyboardInteractiveHandler: ((String, String, [String]) -> [String]?)?

    private static let libraryReady: Bool = libssh2_init(0) == 0

    init(key: SessionKey, configuration: SFTPTransport.Configuration, generation: Int) {
        self.key = key
        self.configuration = configuration
        self.generation = generation
        self.thread = SerialThread(name: "sftp \(key.host):\(key.port)")
    }

    // MARK: connecting

    /// Connects, verifies the host key and authenticates. Runs on ``thread``.
    func connect(target: SFTPTarget, explicit: Credential?, job: IOJob, url: URL) throws {
        guard Self.libraryReady else { throw DownloadError(.transport, "libssh2 could not be initialised") }
        try openSocket(job: job)
        let abstract = Unmanaged.passUnretained(self).toOpaque()
        guard let session = cssh2_session_init(abstract) else {
            throw DownloadError(.transport, "libssh2 could not allocate a session")
        }
        self.session = session
        libssh2_session_set_blocking(session, 0)

        let knownHosts = KnownHosts(path: configuration.knownHostsFile)
        preferKnownHostKeyTypes(knownHosts)
        let rc = try retrying(job) { libssh2_session_handshake(session, self.socketFD) }
        if rc != 0 {
            throw error(rc, "the SSH handshake with \(key.host):\(key.port) failed", connectPhase: true)
        }
        job.progressed()
        try verifyHostKey(knownHosts, job: job, url: url)
        try SSHAuthenticator(connection: self, session: session, job: job, url: url)
            .authenticate(user: key.user, urlPassword: target.password, explicit: explicit)
        job.progressed()
        guard let sftp = try retryingPointer(job, { libssh2_sftp_init(session) }) else {
            throw error(libssh2_session_last_errno(session), "the SFTP subsystem could not be started on \(key.host):\(key.port)")
        }
        self.sftp = sftp
        isReady = true
    }

    private func openSocket(job: IOJob) throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let gai = getaddrinfo(key.host, String(key.port), &hints, &list)
        guard gai == 0, let first = list else {
            var error = DownloadError(.connectionFailed, "cannot resolve \(key.host): \(String(cString: gai_strerror(gai)))")
            // EAI_AGAIN: the name servers did not answer (a retry may help); else they said no.
            error.connectionFailure = gai == EAI_AGAIN ? .timedOut : .nameNotResolved
            throw error
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), info.pointee.ai_protocol)
            if fd < 0 { lastError = errno; continue }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 {
                guard errno == EINPROGRESS else { lastError = errno; Glibc.close(fd); continue }
                do {
                    try job.wait(fd: fd, events: Int16(POLLOUT))
                } catch let error as DownloadError where error.code == .timedOut {
                    Glibc.close(fd)
                    var error = DownloadError(.connectionFailed, "connecting to \(key.host):\(key.port) timed out", isRetryable: true)
                    error.connectionFailure = .timedOut
                    throw error
                } catch {
                    Glibc.close(fd)
                    throw error
                }
                var soError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
                if soError != 0 { lastError = soError; Glibc.close(fd); continue }
            }
            socketFD = fd
            return
        }
        var error = DownloadError(.connectionFailed, "cannot connect to \(key.host):\(key.port): \(String(cString: strerror(lastError)))")
        error.connectionFailure = ConnectionFailure(connectErrno: lastError)
        throw error
    }

    /// Puts the host key types the known hosts file has for this host first, as OpenSSH does,
    /// so that a known host is not reported unknown because it offered another type of key.
    private func preferKnownHostKeyTypes(_ knownHosts: KnownHosts) {
        guard let session else { return }
        let known = knownHosts.knownTypes(host: key.host, port: key.port)
        let order = known + HostKeyType.allCases.filter { !known.contains($0) }
        let list = order.flatMap(\.algorithms).joined(separator: ",")
        _ = libssh2_session_method_pref(session, LIBSSH2_METHOD_HOSTKEY, list)
    }

    private func verifyHostKey(_ knownHosts: KnownHosts, job: IOJob, url: URL) throws {
        guard let session else { return }
        var length = 0
        var rawType: Int32 = 0
        guard let keyPointer = libssh2_session_hostkey(session, &length, &rawType), length > 0 else {
            throw DownloadError(.transport, "the server \(key.host):\(key.port) sent no host key")
        }
        let keyBytes = UnsafeRawBufferPointer(start: keyPointer, count: length)
        let fingerprint = KnownHosts.fingerprint(Data(keyBytes))
        guard let type = HostKeyType(libssh2Type: rawType) else {
            throw DownloadError(.hostKeyUnknown, "the host key of \(key.host):\(key.port) has a type libssh2 cannot verify (\(fingerprint))")
        }
        var stamp = knownHosts.stamp
        let file = configuration.knownHostsFile
        let verdict = knownHosts.check(host: key.host, port: key.port, key: keyBytes, keyType: type)
        switch verdict {
        case .match:
            break
        case .revoked:
            throw DownloadError(.hostKeyMismatch,
                                "the host key of \(key.host):\(key.port) (\(type.name) \(fingerprint)) is revoked in \(file) (@revoked) and is never accepted",
                                isRetryable: false)
        case .mismatch(let expected):
            throw DownloadError(.hostKeyMismatch,
                                "host key for \(key.host):\(key.port) changed (expected \(expected), got \(fingerprint)); if the change is expected, remove the old entry from \(file)",
                                isRetryable: false)
        case .notFound, .certificateAuthorityOnly:
            // A host under a certificate authority is not "seen for the first time": only an
            // explicit answer trusts its plain key.
            let authorityOnly = verdict == .certificateAuthorityOnly
            let why = authorityOnly
                ? "is not in \(file), which names only a certificate authority (@cert-authority) for this host; libssh2 1.10 cannot verify host certificates, so only a plain key line accepts it,"
                : "is not in \(file)"
            let remember: Bool
            switch configuration.hostKeyPolicy {
            case .acceptNew where !authorityOnly:
                remember = true
            case .acceptNew, .strict:
                let challenge = AuthChallenge(kind: .unknownHostKey(host: key.host, port: key.port, keyType: type.name, fingerprint: fingerprint), url: url)
                guard case .trust(let keep) = try job.ask(challenge) else {
                    throw DownloadError(.hostKeyUnknown,
                                        "the host key of \(key.host):\(key.port) (\(type.name) \(fingerprint)) \(why) and was not accepted",
                                        isRetryable: false)
                }
                remember = keep
            }
            if remember {
                try KnownHosts.append(path: configuration.knownHostsFile, host: key.host, port: key.port, key: keyBytes, keyType: type)
                stamp = KnownHosts.Stamp(path: configuration.knownHostsFile)
            }
        }
        verifiedStamp = stamp
    }

    // MARK: downloading

    /// A remote file opened by ``prepare(path:request:output:job:)``: its handle (still open), size,
    /// validator, where the body starts (`nil` when the head said `.complete`) and where it ends
    /// (the size, or the end of a resumed range).
    struct OpenedFile: @unchecked Sendable {
        let handle: OpaquePointer
        let size: Int64
        let validator: Validator
        let start: Int64?
        let end: Int64
    }

    /// Opens `path`, reports the head to `output` and streams the file into it. Runs on ``thread``.
    func download(path: String, request: TransferRequest, output: TransferWriter, job: IOJob) throws {
        let file = try prepare(path: path, request: request, output: output, job: job)
        try stream(file, path: path, request: request, output: output, job: job)
    }

    /// Opens `path`, checks it against the request's validator and reports the head to `output`.
    /// The handle stays open for ``stream(_:path:request:output:job:)``. Runs on ``thread``.
    func prepare(path: String, request: TransferRequest, output: TransferWriter, job: IOJob) throws -> OpenedFile {
        let (handle, size, validator) = try open(path: path, job: job)
        do {
            let disposition: ResumeDisposition
            if let end = request.end {
                disposition = try Self.rangeDisposition(offset: request.offset, end: end, remembered: request.validator,
                                                        current: validator, size: size, path: path)
            } else {
                disposition = Self.disposition(offset: request.offset, remembered: request.validator, current: validator)
            }
            try output.begin(TransferHead(disposition: disposition, expectedLength: size, validator: validator))
            job.progressed()
            switch disposition {
            case .complete: return OpenedFile(handle: handle, size: size, validator: validator, start: nil, end: size)
            case .resumed(let at):
                return OpenedFile(handle: handle, size: size, validator: validator, start: at,
                                  end: min(request.end ?? size, size))
            case .restarted: return OpenedFile(handle: handle, size: size, validator: validator, start: 0, end: size)
            }
        } catch {
            closeHandle(handle, job: job)
            throw error
        }
    }

    /// Streams a prepared file from its start to its size into `output`, then closes it. Reads at
    /// most ``SFTPTransport/Configuration/bufferSize`` bytes at a time, less under a rate limit.
    func stream(_ file: OpenedFile, path: String, request: TransferRequest, output: TransferWriter, job: IOJob) throws {
        defer { closeHandle(file.handle, job: job) }
        guard var offset = file.start else { return }
        if offset > 0 { libssh2_sftp_seek64(file.handle, UInt64(offset)) }
        let capacity = configuration.bufferSize
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        let limiter = request.options.maxBytesPerSecond.flatMap { $0 > 0 ? RateLimiter(bytesPerSecond: $0) : nil }  // 0: none
        let chunk = limiter.map { min(capacity, $0.chunkSize) } ?? capacity
        while offset < file.end {
            // Ask for no more than is left: libssh2 sends read-ahead requests for four times the
            // length asked, and requests past the end only come back as EOF.
            let want = min(chunk, Int(clamping: file.end - offset))
            let n = try read(file.handle, into: buffer, want, at: offset, path: path, job: job)
            try output.write(UnsafeRawBufferPointer(start: buffer, count: n))
            offset += Int64(n)
            if let limiter { try job.pause(until: limiter.consumed(n)) }
            try pace(output.pacingDelay, job: job)
        }
    }

    /// Reads segments `parity`, `parity + count`, `parity + 2 × count`, ... of `segmentSize` bytes
    /// of a prepared file (segment 0 starts at the file's start), each into a buffer of its own,
    /// and hands each to `writer`, which writes them to the transfer's writer in order. Other
    /// connections read the other segments meanwhile. Reads through `handle` when this connection
    /// has the file open already; otherwise opens it and checks first that it still has the
    /// prepared validator. Closes the handle at the end. Runs on ``thread``.
    func streamSegments(_ file: OpenedFile, handle: OpaquePointer?, path: String, parity: Int, of count: Int,
                        segmentSize: Int64, writer: OrderedWriter, job: IOJob) throws {
        let handle = try handle ?? reopen(file, path: path, job: job)
        defer { closeHandle(handle, job: job) }
        guard let first = file.start else { return }
        let capacity = configuration.bufferSize
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Int(segmentSize), alignment: 16)
        defer { buffer.deallocate() }
        var index = parity
        while first + Int64(index) * segmentSize < file.end {
            let start = first + Int64(index) * segmentSize
            let end = min(file.end, start + segmentSize)
            libssh2_sftp_seek64(handle, UInt64(start))
            var offset = start
            while offset < end {
                // A quarter of what is left (at least 32 KiB): libssh2's read-ahead of four times
                // the length asked then never passes the segment's end.
                let left = Int(end - offset)
                let want = min(capacity, max(left / 4, min(left, 32 * 1024)))
                offset += Int64(try read(handle, into: buffer + Int(offset - start), want, at: offset, path: path, job: job))
            }
            try writer.write(segment: index, UnsafeRawBufferPointer(start: buffer, count: Int(end - start)))
            job.progressed()
            try pace(writer.pacingDelay, job: job)
            index += count
        }
    }

    /// Waits on this connection's thread while `delay` (the writer's pacing delay: the downloader's
    /// overall limit) is above zero, asking it again at least every 100 ms so that a raised limit
    /// takes effect at once. Cancellation still ends the wait.
    private func pace(_ delay: @autoclosure () -> Duration, job: IOJob) throws {
        while true {
            let wait = delay()
            guard wait > .zero else { return }
            try job.pause(until: .now + min(wait, .milliseconds(100)))
        }
    }

    /// Opens a prepared file again on this connection; fails when it no longer has the
    /// prepared validator.
    private func reopen(_ file: OpenedFile, path: String, job: IOJob) throws -> OpaquePointer {
        let (handle, _, validator) = try open(path: path, job: job)
        guard validator == file.validator else {
            closeHandle(handle, job: job)
            throw DownloadError(.protocolViolation, "\(path) changed while it was being opened (\(file.validator) became \(validator))")
        }
        return handle
    }

    /// One `libssh2_sftp_read` of up to `length` bytes, waiting on EAGAIN; never returns 0.
    private func read(_ handle: OpaquePointer, into buffer: UnsafeMutableRawPointer, _ length: Int, at offset: Int64,
                      path: String, job: IOJob) throws -> Int {
        let chars = buffer.assumingMemoryBound(to: CChar.self)
        while true {
            let n = libssh2_sftp_read(handle, chars, length)
            if n > 0 {
                job.progressed()
                return n
            } else if n == 0 {
                throw DownloadError(.protocolViolation,
                                    "\(path) ended at byte \(offset), before the size it had when it was opened; it shrank during the transfer")
            } else if n == Int(LIBSSH2_ERROR_EAGAIN) {
                try waitForSocket(job)
            } else {
                throw error(Int32(n), "reading \(path) from \(key.host):\(key.port) failed at byte \(offset)")
            }
        }
    }

    /// Opens `path` for reading and `fstat`s it: the handle, size and validator.
    private func open(path: String, job: IOJob) throws -> (OpaquePointer, Int64, Validator) {
        guard let sftp, let session else { throw DownloadError(.transport, "the SFTP session is not open") }
        let handle = try path.withCString { chars in
            try retryingPointer(job) { cssh2_sftp_open(sftp, chars, UInt32(strlen(chars))) }
        }
        guard let handle else {
            throw error(libssh2_session_last_errno(session), "cannot open \(path) on \(key.host):\(key.port)")
        }
        do {
            var attributes = LIBSSH2_SFTP_ATTRIBUTES()
            let statRC = try retrying(job) { cssh2_sftp_fstat(handle, &attributes) }
            if statRC != 0 { throw error(statRC, "cannot read the attributes of \(path)") }
            guard cssh2_is_regular_file(&attributes) != 0 else {
                throw DownloadError(.notFound, "\(path) on \(key.host):\(key.port) is not a regular file", isRetryable: false)
            }
            guard attributes.flags & UInt(LIBSSH2_SFTP_ATTR_SIZE) != 0 else {
                throw DownloadError(.protocolViolation, "the server did not report the size of \(path)", isRetryable: false)
            }
            let size = Int64(attributes.filesize)
            let mtime = attributes.flags & UInt(LIBSSH2_SFTP_ATTR_ACMODTIME) != 0 ? Int64(attributes.mtime) : 0
            return (handle, size, Validator.sizeAndModificationTime(size: size, mtime: mtime))
        } catch {
            closeHandle(handle, job: job)
            throw error
        }
    }

    /// Closes an SFTP handle; a failure only matters to the session, which reports it next time.
    private func closeHandle(_ handle: OpaquePointer, job: IOJob) {
        _ = try? retrying(job) { libssh2_sftp_close_handle(handle) }
    }

    /// What to do with the requested offset, given the validator remembered from the previous
    /// attempt and the file's current one. Never splices: an offset without a remembered
    /// validator, or with a different one, restarts from zero.
    static func disposition(offset: Int64, remembered: Validator?, current: Validator) -> ResumeDisposition {
        guard offset > 0 else { return .resumed(at: 0) }
        guard let remembered, remembered == current else { return .restarted(.validatorChanged) }
        let size = Int64(current.value.split(separator: ":").first ?? "") ?? -1
        if offset == size { return .complete }
        if offset > size { return .restarted(.validatorChanged) }
        return .resumed(at: offset)
    }

    /// What to do with a ranged request (`TransferRequest.end`), by the "Ranges" rules of the
    /// `Transport` contract: the validator is checked at every offset (an offset above zero
    /// without one restarts, as for a resume), then a range starting at or past the end of the
    /// file throws `DownloadError.Code.rangeNotSatisfiable`; otherwise the range is resumed.
    static func rangeDisposition(offset: Int64, end: Int64, remembered: Validator?, current: Validator,
                                 size: Int64, path: String) throws -> ResumeDisposition {
        if let remembered, remembered != current { return .restarted(.validatorChanged) }
        if remembered == nil, offset > 0 { return .restarted(.validatorChanged) }
        guard offset < size else {
            throw DownloadError(.rangeNotSatisfiable,
                                "the range from byte \(offset) starts past the end of \(path) (\(size) bytes)", isRetryable: false)
        }
        return .resumed(at: offset)
    }

    // MARK: libssh2 plumbing

    /// Calls `body` until it answers something other than EAGAIN, waiting in poll() between.
    func retrying(_ job: IOJob, _ body: () -> Int32) throws -> Int32 {
        while true {
            let rc = body()
            if rc != LIBSSH2_ERROR_EAGAIN { return rc }
            try waitForSocket(job)
        }
    }

    /// Calls `body` until it returns a value or fails with something other than EAGAIN (libssh2
    /// calls that answer a pointer, `nil` on failure).
    func retryingPointer<T>(_ job: IOJob, _ body: () -> T?) throws -> T? {
        while true {
            if let value = body() { return value }
            guard let session, libssh2_session_last_errno(session) == LIBSSH2_ERROR_EAGAIN else { return nil }
            try waitForSocket(job)
        }
    }

    /// Waits until the socket can move in the direction libssh2 is blocked on.
    func waitForSocket(_ job: IOJob) throws {
        guard let session else { return }
        let directions = libssh2_session_block_directions(session)
        var events: Int16 = 0
        if directions & LIBSSH2_SESSION_BLOCK_INBOUND != 0 { events |= Int16(POLLIN) }
        if directions & LIBSSH2_SESSION_BLOCK_OUTBOUND != 0 { events |= Int16(POLLOUT) }
        if events == 0 { events = Int16(POLLIN) }
        try job.wait(fd: socketFD, events: events)
    }

    /// Translates a libssh2 return code into the core's error.
    func error(_ rc: Int32, _ context: String, connectPhase: Bool = false) -> DownloadError {
        var message: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        var detail = ""
        if let session {
            _ = libssh2_session_last_error(session, &message, &length, 0)
            if let message { detail = String(cString: message) }
        }
        let text = detail.isEmpty ? "\(context) (libssh2 error \(rc))" : "\(context): \(detail)"
        switch rc {
        case LIBSSH2_ERROR_SFTP_PROTOCOL:
            let status = sftp.map { libssh2_sftp_last_error($0) } ?? 0
            return Self.sftpError(status: status, context: context)
        case LIBSSH2_ERROR_SOCKET_SEND, LIBSSH2_ERROR_SOCKET_RECV, LIBSSH2_ERROR_SOCKET_DISCONNECT,
             LIBSSH2_ERROR_BANNER_RECV, LIBSSH2_ERROR_BANNER_SEND, LIBSSH2_ERROR_SOCKET_TIMEOUT, LIBSSH2_ERROR_TIMEOUT,
             LIBSSH2_ERROR_CHANNEL_CLOSED, LIBSSH2_ERROR_CHANNEL_EOF_SENT, LIBSSH2_ERROR_CHANNEL_FAILURE,
             LIBSSH2_ERROR_BAD_SOCKET:
            return DownloadError(connectPhase ? .connectionFailed : .connectionLost, text, isRetryable: true)
        case LIBSSH2_ERROR_AUTHENTICATION_FAILED, LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED, LIBSSH2_ERROR_PASSWORD_EXPIRED,
             LIBSSH2_ERROR_KEYFILE_AUTH_FAILED:
            return DownloadError(.authenticationFailed, text, isRetryable: false)
        default:
            return DownloadError(.transport, text, isRetryable: false)
        }
    }

    /// Maps an SFTP status (`SSH_FX_*`) to the core's error.
    static func sftpError(status: UInt, context: String) -> DownloadError {
        switch status {
        case LIBSSH2_FX_NO_SUCH_FILE, LIBSSH2_FX_NO_SUCH_PATH, LIBSSH2_FX_NOT_A_DIRECTORY:
            return DownloadError(.notFound, "\(context): no such file", isRetryable: false)
        case LIBSSH2_FX_PERMISSION_DENIED, LIBSSH2_FX_WRITE_PROTECT:
            return DownloadError(.permissionDenied, "\(context): permission denied", isRetryable: false)
        case LIBSSH2_FX_NO_CONNECTION, LIBSSH2_FX_CONNECTION_LOST:
            return DownloadError(.connectionLost, "\(context): the connection was lost", isRetryable: true)
        default:
            return DownloadError(.transport, "\(context): SFTP status \(status)", isRetryable: false)
        }
    }

    // MARK: closing

    /// Frees the session and closes the socket on ``thread``, then calls `done` there and ends the
    /// thread. Does not wait for the server: the socket is shut down first, so nothing can block.
    func close(then done: @escaping @Sendable () -> Void) {
        let accepted = thread.submit { [self] in
            defer { done() }
            if socketFD >= 0 { shutdown(socketFD, Int32(SHUT_RDWR)) }
            if let session {
                libssh2_session_set_blocking(session, 1)
                if let sftp { libssh2_sftp_shutdown(sftp) }
                libssh2_session_free(session)
            }
            sftp = nil
            session = nil
            isReady = false
            if socketFD >= 0 { Glibc.close(socketFD) }
            socketFD = -1
        }
        thread.stop()
        if !accepted { done() }  // closed before: nothing left to release
    }

    // MARK: keyboard-interactive

    /// The C callback libssh2 calls with keyboard-interactive prompts; finds the connection through
    /// the session's abstract pointer and lets its handler fill the responses.
    static let keyboardInteractiveCallback: cssh2_kbdint_callback = { name, nameLength, instruction, instructionLength, count, prompts, responses, abstract in
        guard let abstract, let pointer = abstract.pointee, let responses else { return }
        let connection = Unmanaged<SSHConnection>.fromOpaque(pointer).takeUnretainedValue()
        func text(_ chars: UnsafePointer<CChar>?, _ length: Int32) -> String {
            guard let chars, length > 0 else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: chars, count: Int(length)), as: UTF8.self)
        }
        var promptTexts: [String] = []
        for index in 0..<Int(count) {
            let prompt = prompts![index]
            promptTexts.append(text(prompt.text, Int32(prompt.length)))
        }
        guard let answers = connection.keyboardInteractiveHandler?(text(name, nameLength), text(instruction, instructionLength), promptTexts) else { return }
        for (index, answer) in answers.prefix(Int(count)).enumerated() {
            _ = cssh2_kbdint_set_response(responses, Int32(index), answer)
        }
    }

    /// Runs keyboard-interactive authentication with `handler` answering the prompts.
    func keyboardInteractive(user: String, job: IOJob, handler: @escaping (String, String, [String]) -> [String]?) throws -> Int32 {
        guard let session else { return LIBSSH2_ERROR_BAD_USE }
        keyboardInteractiveHandler = handler
        defer { keyboardInteractiveHandler = nil }
        return try retrying(job) { cssh2_userauth_keyboard_interactive(session, user, Self.keyboardInteractiveCallback) }
    }
}
