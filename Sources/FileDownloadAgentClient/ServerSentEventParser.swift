import Foundation

/// Splits a `text/event-stream` body into messages (the WHATWG server-sent events format): lines
/// `field: value`, a blank line ends a message, lines starting with `:` are comments. Bytes may
/// arrive in any pieces.
struct ServerSentEventParser {
    struct Message: Equatable {
        var id: String?
        var event: String?
        var data: String
    }

    private var pending: [UInt8] = []
    private var current = Message(id: nil, event: nil, data: "")
    private var hasData = false

    /// Feeds `bytes`; returns the messages they complete.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Message] {
        pending.append(contentsOf: bytes)
        var messages: [Message] = []
        var start = 0
        while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var line = pending[start..<newline]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            start = newline + 1
            if line.isEmpty {
                if hasData || current.id != nil { messages.append(current) }
                current = Message(id: nil, event: nil, data: "")
                hasData = false
                continue
            }
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix(":") { continue }
            let field: Substring
            var value: Substring
            if let colon = text.firstIndex(of: ":") {
                field = text[..<colon]
                value = text[text.index(after: colon)...]
                if value.first == " " { value = value.dropFirst() }
            } else {
                field = Substring(text)
                value = ""
            }
            switch field {
            case "id": current.id = String(value)
            case "event": current.event = String(value)
            case "data":
                current.data += hasData ? "\n" + value : String(value)
                hasData = true
            default: break
            }
        }
        pending.removeFirst(start)
        return messages
    }
}
