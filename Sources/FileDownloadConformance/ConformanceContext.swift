import FileDownload
import Foundation

/// What earlier checks of one run leave for later ones. Used only by the task running the suite.
final class ConformanceContext {
    /// The content of the resource before any change.
    var original: Data?
    /// The validator the full download reported.
    var validator: Validator?
    /// The cancelled transfer of the cancellation check: its sink, file and length at return.
    var cancelled: (sink: TransferSink, path: String, lengthAtReturn: Int)?
}
