/// The answer to `GET /v1/health`: the agent runs, which API it serves, the last event sequence
/// number given (a client that starts from the present can follow on from it), how many event
/// streams are open, and how many downloads it knows.
struct AgentHealth: Encodable, Sendable {
    var status: String
    var api: String
    var lastEventSequence: Int64
    var eventStreams: Int
    var downloads: Int
}
