import FileDownloadCLI
import Testing

@Suite struct FormattingTests {
    @Test func bytesUseBinaryUnitsWithOneDecimal() {
        #expect(Formatting.bytes(0) == "0 B")
        #expect(Formatting.bytes(1023) == "1023 B")
        #expect(Formatting.bytes(1536) == "1.5 KiB")
        #expect(Formatting.bytes(20 * 1024 * 1024) == "20.0 MiB")
    }
}
