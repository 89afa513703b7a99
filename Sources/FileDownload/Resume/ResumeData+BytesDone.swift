extension ResumeData {
    /// The bytes of the file on disk when the resume data was made, counted as progress counts
    /// them (`DownloadProgress.receivedBytes` of the download then, `DownloadRecord.bytesDone` of
    /// its record): with ``segments``, the sum of theirs (never less than ``bytesOnDisk``);
    /// otherwise ``bytesOnDisk``.
    ///
    /// This is the number to show a person ("paused at 3.2 MiB", "continuing from 3.2 MiB"); where
    /// one stream continues the file is ``bytesOnDisk``, which with segments is only their
    /// contiguous prefix.
    public var bytesDone: Int64 {
        segments.isEmpty ? bytesOnDisk : Swift.max(bytesOnDisk, segments.bytesDone)
    }
}
