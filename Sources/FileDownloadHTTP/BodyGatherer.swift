import FileDownload

/// Gathers the body pieces of one fast read into one large write. One per I/O thread, used on
/// that thread only.
///
/// libcurl cuts every read from the socket into pieces of at most 16 KiB (`CURL_MAX_WRITE_SIZE`),
/// whatever `CURLOPT_BUFFERSIZE` says: a 512 KiB read arrives as 32 write callbacks. A full-size
/// piece means more of the same read follows, so full-size pieces are copied here and written with
/// one `pwrite` when a shorter piece ends the read, when the buffer is full, when a piece of another
/// transfer arrives, when the transfer ends, or at the latest when libcurl's pass over its sockets
/// is over (before the thread waits in `poll`). A 1 GiB download makes ~4,000 writes instead of
/// ~65,000. Short pieces (slow links) are written at once by the transfer and never come here, and
/// the one buffer belongs to the thread, so a thousand slow downloads hold none.
final class BodyGatherer {
    /// libcurl's largest piece.
    let largestPiece: Int
    private let capacity: Int
    private var buffer: UnsafeMutableRawBufferPointer?
    private var count = 0
    /// The transfer whose bytes are in the buffer.
    private var owner: CurlTransfer?

    /// `capacity` is rounded down to whole pieces (at least one): a gathered read then always
    /// fits exactly, and the buffer is written when it is full.
    init(largestPiece: Int, capacity: Int = 512 * 1024) {
        self.largestPiece = largestPiece
        self.capacity = max(1, capacity / largestPiece) * largestPiece
    }

    deinit {
        buffer?.deallocate()
    }

    /// Whether `transfer`'s bytes are in the buffer now.
    func holds(_ transfer: CurlTransfer) -> Bool { owner === transfer }

    /// Takes a piece of `transfer`'s body; `false` when writing `transfer`'s bytes failed (the
    /// transfer's failure says why).
    func append(_ bytes: UnsafeRawBufferPointer, for transfer: CurlTransfer) -> Bool {
        precondition(bytes.count <= largestPiece, "libcurl never hands over more than CURL_MAX_WRITE_SIZE")
        if owner !== transfer { flush() }
        let buffer = self.buffer ?? {
            let made = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 64)
            self.buffer = made
            return made
        }()
        owner = transfer
        UnsafeMutableRawBufferPointer(rebasing: buffer[count..<(count + bytes.count)]).copyMemory(from: bytes)
        count += bytes.count
        if bytes.count < largestPiece || count == capacity { return flush() }
        return true
    }

    /// Writes the gathered bytes to their transfer's writer; `false` when that failed (recorded as
    /// the transfer's failure, so its next callback stops it).
    @discardableResult
    func flush() -> Bool {
        guard let owner, let buffer else { return true }
        defer {
            self.owner = nil
            count = 0
        }
        return count == 0 || owner.writeBody(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }

    /// Writes what `transfer` has gathered, if it is the owner.
    @discardableResult
    func flush(for transfer: CurlTransfer) -> Bool {
        owner === transfer ? flush() : true
    }
}
