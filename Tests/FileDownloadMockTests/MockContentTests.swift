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
