import FileDownload
import FileDownloadCLI
import FileDownloadTestSupport
import Foundation
import Testing

@Suite struct DownloadPlannerTests {
    let options = DownloadOptions()

    @Test func namesComeFromTheURLAndAreMadeUnique() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let planner = DownloadPlanner(outputDirectory: dir.url)
        let plans = planner.plan(urls: [URL(string: "http://a/x/file.bin")!, URL(string: "http://b/y/file.bin")!,
                                        URL(string: "http://a/x/file.bin")!, URL(string: "http://c/")!],
                                 sha256: [], names: [], records: [], options: options)
        #expect(plans.map(\.id) == ["file.bin", "file.1.bin", "c"])
        #expect(plans[0].destination == dir.file("file.bin"))
        #expect(plans.allSatisfy { $0.resume == nil && !$0.alreadyComplete })
    }

    @Test func aStoredDownloadWithCheckpointedBytesAndAValidatorContinues() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let part = dir.file("f.bin.part")
        try Data(count: 100).write(to: part)
        let url = URL(string: "http://h/f.bin")!
        let record = DownloadRecord(id: "f.bin", url: url, destination: dir.file("f.bin"), partPath: part.path,
                                    state: .interrupted, validator: .entityTag("\"e\""), checkpointedBytes: 60,
                                    expectedLength: 500)
        let plan = try #require(DownloadPlanner(outputDirectory: dir.url)
            .plan(urls: [url], sha256: [], names: [], records: [record], options: options).first)
        #expect(plan.id == "f.bin")
        #expect(plan.resume?.bytesOnDisk == 60)
        #expect(plan.resume?.validator == .entityTag("\"e\""))
        #expect(plan.resume?.expectedLength == 500)
    }

    @Test func bytesWithoutAValidatorOrWithoutTheirFileStartOver() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let url = URL(string: "http://h/f.bin")!
        var record = DownloadRecord(id: "f.bin", url: url, destination: dir.file("f.bin"),
                                    partPath: dir.file("f.bin.part").path, state: .interrupted,
                                    validator: .entityTag("\"e\""), checkpointedBytes: 60)
        let planner = DownloadPlanner(outputDirectory: dir.url)
        #expect(planner.plan(urls: [url], sha256: [], names: [], records: [record], options: options)[0].resume == nil)
        try Data(count: 60).write(to: dir.file("f.bin.part"))
        record.validator = nil
        #expect(planner.plan(urls: [url], sha256: [], names: [], records: [record], options: options)[0].resume == nil)
    }

    @Test func aFileThatMatchesItsSHA256IsAlreadyCompleteAndAWrongOneIsFetchedAgain() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try Data("hello".utf8).write(to: dir.file("h.txt"))
        let good = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        #expect(FileDigest.sha256(dir.file("h.txt").path) == good)
        let planner = DownloadPlanner(outputDirectory: dir.url)
        let url = URL(string: "http://h/h.txt")!
        #expect(planner.plan(urls: [url], sha256: [good.uppercased()], names: [], records: [], options: options)[0].alreadyComplete)
        #expect(!planner.plan(urls: [url], sha256: [String(repeating: "0", count: 64)], names: [], records: [],
                              options: options)[0].alreadyComplete)
    }

    @Test func givenNamesWin() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let plans = DownloadPlanner(outputDirectory: dir.url).plan(
            urls: [URL(string: "http://h/a?x=1")!], sha256: [], names: ["model.bin"], records: [], options: options)
        #expect(plans[0].id == "model.bin")
        #expect(plans[0].destination == dir.file("model.bin"))
    }

    @Test func aGivenNameReplacesAStoredDownloadOfAnotherURLAndNeverResumesIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try Data(count: 100).write(to: dir.file("model.bin.part"))
        let old = DownloadRecord(id: "model.bin", url: URL(string: "http://old/model.bin")!, destination: dir.file("model.bin"),
                                 partPath: dir.file("model.bin.part").path, state: .interrupted,
                                 validator: .entityTag("\"e\""), checkpointedBytes: 100)
        let plan = DownloadPlanner(outputDirectory: dir.url).plan(
            urls: [URL(string: "http://new/model.bin")!], sha256: [], names: ["model.bin"], records: [old], options: options)
        #expect(plan[0].id == "model.bin")
        #expect(plan[0].resume == nil)
        #expect(plan[0].destination == dir.file("model.bin"))
    }

    @Test func aStoredDownloadForAnotherDirectoryIsNotReused() throws {
        let dir = try TemporaryDirectory()
        let elsewhere = try TemporaryDirectory()
        defer {
            dir.remove()
            elsewhere.remove()
        }
        let url = URL(string: "http://h/f.bin")!
        let record = DownloadRecord(id: "f.bin", url: url, destination: elsewhere.file("f.bin"), partPath: elsewhere.file("f.bin.part").path,
                                    state: .completed, checkpointedBytes: 10)
        let plan = DownloadPlanner(outputDirectory: dir.url).plan(urls: [url], sha256: [], names: [], records: [record], options: options)
        #expect(plan[0].destination == dir.file("f.1.bin") || plan[0].destination == dir.file("f.bin"))
        #expect(plan[0].destination.deletingLastPathComponent().standardizedFileURL == dir.url.standardizedFileURL)
        #expect(!plan[0].alreadyComplete)
    }
}
