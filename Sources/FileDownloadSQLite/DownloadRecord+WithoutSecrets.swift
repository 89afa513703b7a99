import FileDownload
import Foundation

extension DownloadRecord {
    /// The record as it may be persisted: no user password in the URL or the proxy URL, no
    /// sensitive header field. `DownloadRecord.init` strips most of this already; the fields are
    /// mutable, so the store strips again.
    var withoutSecrets: DownloadRecord {
        var copy = self
        copy.url = url.removingCredentials
        copy.options.transfer = options.transfer.withoutSecrets
        copy.options.transfer.proxy = options.transfer.proxy?.removingCredentials
        return copy
    }
}
