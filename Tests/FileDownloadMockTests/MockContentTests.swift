import FileDownload
import FileDownloadMock
import Foundation
import Testing

@Suite("MockContent", .timeLimit(.minutes(1)))
struct MockContentTests {
    @Test("seeded content is reproducible, random-access and differs by seed")
    func seededContent() {
        let content = MockContent.seeded(seed: 42, size: 100_003)
        let whole = content.data
        #expect(whole.count == 100_003)
        #expect(whole == MockContent.seeded(seed: 42, size: 100_003).data)
        #expect(whole != MockContent.seeded(seed: 43, size: 100_003).data)
        #expect(content.bytes(in: 5..<77) == whole.subdata(in: 5..<77))
        #expect(content.bytes(in: 99_999..<200_000) == whole.subdata(in: 99_999..<100_003))
        #expect(Set(whole.prefix(4096)).count > 200, "the stream should look random")
    }

    @Test("the stream is splitmix64, little-endian: stable across versions and platforms")
    func splitmix64Reference() {
        // The reference splitmix64 outputs for seed 0 are 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4.
        let expected: [UInt8] = [0xaf, 0xcd, 0x1d, 0x7b, 0x39, 0xa8, 0x20, 0xe2,
                                 0xf4, 0x65, 0xb9, 0xa1, 0x6a, 0x9e, 0x78, 0x6e]
        #expect(Array(MockContent.seeded(seed: 0, size: 16).data) == expected)
    }

    @Test("any slice, at any alignment, equals the same slice of the whole")
    func slices() {
        let content = MockContent.seeded(seed: 5, size: 4099)
        let whole = content.data
        var state: UInt64 = 1
        for _ in 0..<500 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let lower = Int64(state >> 33) % 4099
            let upper = lower + Int64(state >> 20) % (4100 - lower)
            #expect(content.bytes(in: lower..<upper) == whole.subdata(in: Int(lower)..<Int(upper)),
                    "slice \(lower)..<\(upper)")
        }
    }

    @Test("the SHA-256 is the digest of the bytes")
    func sha256() {
        #expect(MockContent.bytes(Data("abc".utf8)).sha256
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let seeded = MockContent.seeded(seed: 1, size: 3_000_000)
        #expect(seeded.sha256 == MockContent.bytes(seeded.data).sha256)
    }

    @Test("default validators are strong and change with the content")
    func validators() {
        let a = MockContent.bytes(Data("one".utf8)).defaultValidator
        let b = MockContent.bytes(Data("two".utf8)).defaultValidator
        #expect(a.isStrong && b.isStrong)
        #expect(a != b)
        #expect(MockContent.seeded(seed: 1, size: 10).defaultValidator
                != MockContent.seeded(seed: 1, size: 11).defaultValidator)
    }
}
