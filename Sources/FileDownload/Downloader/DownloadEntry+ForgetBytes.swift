extension DownloadEntry {
    /// Forgets the bytes on disk, their segments and the validator they were received under: the
    /// next attempt starts from zero. (The staging file itself is the caller's: deleted, cut or
    /// already gone.) The one reset of a download's bytes, whether the downloader carries out
    /// ``DownloadAction/discardBytes``, restores a completed download whose file is gone, or a
    /// stored download is changed with no downloader running.
    mutating func forgetBytes() {
        bytesOnDisk = 0
        segments = []
        validator = nil
    }
}
