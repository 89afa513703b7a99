import FileDownload
import Foundation

// snippet: embedding-delegate
/// Prints what happens to each download.
struct PrintingDelegate: DownloaderDelegate {
    func downloadProgressDidChange(id: String, progress: DownloadProgress) async {
        let total = progress.expectedBytes.map { " of \($0)" } ?? ""
        print("\(id): \(progress.receivedBytes)\(total) bytes")
    }

    func downloadDidComplete(id: String, file: URL) async {
        print("\(id): saved to \(file.path)")
    }

    func downloadDidFail(id: String, error: DownloadError, resumeData: ResumeData?) async {
        print("\(id): failed: \(error.messages.joined(separator: ": "))")
    }

    func downloadWasInterrupted(id: String, error: DownloadError, retryIn: Duration?) async {
        print("\(id): interrupted: \(error.message)" + (retryIn.map { ", retrying in \($0)" } ?? ""))
    }
}
// end-snippet
