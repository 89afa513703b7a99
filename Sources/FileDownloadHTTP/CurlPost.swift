internal import CCurl
import Foundation
import Synchronization

/// One libcurl easy handle doing one POST for ``WebhookPoster``, run with `curl_easy_perform` on
/// a thread of its own (never on the task's executor, which it would block).
///
/// Configured on the caller's task, then run by that thread alone; the caller reads its state
/// again only after the thread finished. Only ``cancelled`` is touched from both sides, and it is
/// atomic: that hand-over is what makes the `@unchecked Sendable` sound.
final class CurlPost: CurlEasyHandle, @unchecked Sendable {
    /// libcurl's global state, made once before the first handle (libcurl counts the calls).
    private static let globalInit: Bool = ccurl_global_init() == CURLE_OK

    let easy: UnsafeMutableRawPointer
    var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Set when the waiting task is cancelled; libcurl's progress callback then aborts the exchange.
    let cancelled = Atomic<Bool>(false)

    init() throws {
        guard Self.globalInit, let easy = curl_easy_init() else {
            throw WebhookPoster.Failure(description: "libcurl could not create a transfer handle")
        }
        self.easy = easy
        let size = Int(ccurl_errorsize())
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        // The answer's body is read and dropped (libcurl would write it to stdout).
        _ = ccurl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION) { _, size, count, _ in size * count }
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, me)
        _ = ccurl_easy_setopt_xferinfo_function(easy) { me, _, _, _, _ in
            let post = Unmanaged<CurlPost>.fromOpaque(me!).takeUnretainedValue()
            return post.cancelled.load(ordering: .relaxed) ? 1 : 0
        }
        set(CURLOPT_NOPROGRESS, 0)
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// The error a refused option throws: libcurl's text for `code`, naming the option.
    func refused(_ option: CURLoption, _ code: CURLcode) -> any Error {
        WebhookPoster.Failure(description: "libcurl refused option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))")
    }

    /// Sets the body libcurl POSTs: its size, then a copy of its bytes (`CURLOPT_COPYPOSTFIELDS`).
    func setBody(_ body: Data) {
        _ = ccurl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
        var bytes = [UInt8](body)
        if bytes.isEmpty { bytes = [0] }
        bytes.withUnsafeMutableBytes { _ = ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
    }

    /// Runs the exchange on a new thread and returns libcurl's result and the answer's status
    /// (0 when none was read) once that thread is done; a cancelled task sets ``cancelled``,
    /// which ends the exchange within libcurl's progress interval.
    func perform() async -> (code: CURLcode, status: Int) {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<(code: CURLcode, status: Int), Never>) in
                let thread = Thread { [self] in
                    let code = curl_easy_perform(easy)
                    var status = 0
                    _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                    continuation.resume(returning: (code, status))
                }
                thread.name = "fdl webhook POST"
                thread.start()
            }
        } onCancel: {
            cancelled.store(true, ordering: .relaxed)
        }
    }

    /// What libcurl said of a failed exchange: its text for `code` and its detail message.
    func describe(_ code: CURLcode) -> String {
        let text = String(cString: curl_easy_strerror(code))
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? text : "\(text) (\(detail))"
    }
}
