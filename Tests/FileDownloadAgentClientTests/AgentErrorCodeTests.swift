import FileDownload
@testable import FileDownloadAgentClient
import Foundation
import Testing

/// The agent's error codes are typed on both sides: the client reads an answer's `error` as an
/// `AgentErrorCode` to match on, and keeps a code it does not name.
@Suite struct AgentErrorCodeTests {
    @Test("an error answer's code is typed; an unknown code is kept as it came; a body that is not the API's is http-STATUS")
    func refusalCodes() {
        let unknown = DownloadAgentClient.refusal(404, Data(#"{"error":"unknown-id","message":"no download has the id 'a'"}"#.utf8))
        #expect(unknown.code == .unknownID && unknown.error == "unknown-id" && unknown.status == 404)
        let newer = DownloadAgentClient.refusal(400, Data(#"{"error":"bad-thing","message":"m"}"#.utf8))
        #expect(newer.code == AgentErrorCode(rawValue: "bad-thing") && newer.code != .badID)
        let html = DownloadAgentClient.refusal(502, Data("<html>bad gateway</html>".utf8))
        #expect(html.code == .http(502) && html.error == "http-502")
    }

    @Test("codes encode as their wire strings, and decode back")
    func wireStrings() throws {
        let codes: [AgentErrorCode] = [.badJSON, .badID, .unknownID, .duplicateID, .invalidState, .eventsMissed, .http(405),
                                       .download(.diskFull)]
        let data = try JSONEncoder().encode(codes)
        #expect(String(decoding: data, as: UTF8.self)
                == #"["bad-json","bad-id","unknown-id","duplicate-id","invalid-state","events-missed","http-405","diskFull"]"#)
        #expect(try JSONDecoder().decode([AgentErrorCode].self, from: data) == codes)
    }

    @Test("a batch item's refusal decodes with a typed code")
    func batchResult() throws {
        let result = try JSONDecoder().decode(AgentBatchResult.self, from: Data(
            #"{"id":"b","status":409,"error":"duplicate-id","message":"a download with the id 'b' already exists"}"#.utf8))
        #expect(result.error == .duplicateID)
    }
}
