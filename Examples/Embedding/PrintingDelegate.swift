import FileDownload
import Foundation

// snippet: embedding-delegate
/// Prints what happens, and tells `finished` about every download that is over.
struct PrintingDelegate: DownloaderDelegate {
    let finished: AsyncStream<String>.Continuation

    func downloadProgressDidChange(id: String, progress: DownloadProgress) async {
        let total = progress.expectedBytes.map { " of \($0)" } ?? ""
        print("\(id): \(progress.receivedBytes)\(total) bytes")
    }

    func downloadDidComplete(id: String, file: URL) async {
        print("\(id): saved to \(file.path)")
        finished.yield(id)
    }

    func downloadDidFail(id: String, error: DownloadError, resumeData: ResumeData?) async {
        print("\(id): failed: \(error.messages.joined(separator: ": "))")
        finished.yield(id)
    }
}
// end-snippet
