import FileDownload
@testable import FileDownloadHTTP
import Testing

/// `FTPExchange` on made-up reply lines: which `213` is `SIZE`'s, the weak size-only validator of
/// a server without `MDTM` (vsftpd always answers `MDTM`, so only these tests reach that path), and
/// the check when the server accepts `REST`.
@Suite("FTP exchange: reply lines, size-only servers")
struct FTPExchangeTests {
    private static let mtime: Int64 = 1_700_000_000

    /// An exchange that read `lines`, the `MDTM` time libcurl parsed being `mtime`.
    private func exchange(
        _ lines: [String], mtime: Int64?, offset: Int64 = 0, validator: Validator? = nil, expectedLength: Int64? = nil
    ) -> (FTPExchange, [Bool]) {
        let exchange = FTPExchange(FTPExchange.Context(offset: offset, end: nil, validator: validator,
                                                       expectedLength: expectedLength, restartReason: nil))
        let results = lines.map { exchange.consume(line: $0 + "\r\n") { mtime } }
        return (exchange, results)
    }

    @Test("MDTM and SIZE answered: the second 213 is the size, the validator is strong")
    func mdtmAndSize() {
        let (exchange, _) = exchange(["220 ready", "213 20231114221320", "200 Switching to Binary mode.", "213 1000"],
                                     mtime: Self.mtime)
        let facts = exchange.remoteFacts(mtime: Self.mtime)
        #expect(facts.size == 1000)
        #expect(facts.mtime == Self.mtime)
        let validator = FTPExchange.validator(size: facts.size, mtime: facts.mtime)
        #expect(validator == .sizeAndModificationTime(size: 1000, mtime: Self.mtime))
        #expect(validator?.isStrong == true)
    }

    @Test("no MDTM (500): the only 213 is SIZE's, the validator is the weak ftp-size")
    func sizeOnly() {
        let (exchange, _) = exchange(["220 ready", "500 Unknown command.", "200 Switching to Binary mode.", "213 1000"],
                                     mtime: nil)
        let facts = exchange.remoteFacts(mtime: nil)
        #expect(facts.size == 1000)
        #expect(facts.mtime == nil)
        let validator = FTPExchange.validator(size: facts.size, mtime: facts.mtime)
        #expect(validator == .ftpSize(1000))
        #expect(validator?.kind == .ftpSize)
        #expect(validator?.isStrong == false)
    }

    @Test("MDTM answered but SIZE refused: MDTM's 213 is not taken for a size; no validator")
    func mdtmWithoutSize() {
        let (exchange, _) = exchange(["213 20231114221320", "550 Could not get file size."], mtime: Self.mtime)
        let facts = exchange.remoteFacts(mtime: Self.mtime)
        #expect(facts.size == nil)
        #expect(FTPExchange.validator(size: facts.size, mtime: facts.mtime) == nil)
    }

    @Test("continuation lines of multi-line replies are not replies")
    func continuationLines() {
        let (exchange, _) = exchange(["220-Welcome", " 213 1234 inside the banner", "213-Status follows:", "220 ready",
                                      "500 Unknown command.", "213 77"], mtime: nil)
        #expect(exchange.remoteFacts(mtime: nil).size == 77)
        #expect(exchange.lastReply == "213 77")
    }

    @Test("size-only resume: REST accepted with the same size goes on; another size stops before RETR")
    func sizeOnlyResume() {
        let same = ["500 Unknown command.", "213 1000", "350 Restart position accepted (400)."]
        let (kept, keptResults) = exchange(same, mtime: nil, offset: 400, validator: .ftpSize(1000))
        #expect(keptResults == [true, true, true])
        #expect(kept.restAccepted)
        #expect(kept.restart == nil)

        let grown = ["500 Unknown command.", "213 1001", "350 Restart position accepted (400)."]
        let (changed, changedResults) = exchange(grown, mtime: nil, offset: 400, validator: .ftpSize(1000))
        #expect(changedResults.last == false)
        #expect(changed.restart == .validatorChanged)
    }

    @Test("a remembered size and time, and a server that now answers no MDTM: restart, not a weaker resume")
    func strongValidatorServerLostMDTM() {
        let lines = ["500 Unknown command.", "213 1000", "350 Restart position accepted (400)."]
        let (exchange, results) = exchange(lines, mtime: nil, offset: 400,
                                           validator: .sizeAndModificationTime(size: 1000, mtime: Self.mtime))
        #expect(results.last == false)
        #expect(exchange.restart == .validatorChanged)
    }

    @Test("a remembered validator and no SIZE answer: resumeUnsupported")
    func noSize() {
        let lines = ["500 Unknown command.", "550 Could not get file size.", "350 Restart position accepted (400)."]
        let (exchange, results) = exchange(lines, mtime: nil, offset: 400, validator: .ftpSize(1000))
        #expect(results.last == false)
        #expect(exchange.restart == .resumeUnsupported)
    }

    @Test("the size differs from the known length: restart even without a remembered validator")
    func expectedLengthDiffers() {
        let lines = ["213 20231114221320", "213 999", "350 Restart position accepted (400)."]
        let (exchange, results) = exchange(lines, mtime: Self.mtime, offset: 400, expectedLength: 1000)
        #expect(results.last == false)
        #expect(exchange.restart == .validatorChanged)
    }
}
