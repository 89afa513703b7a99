import Foundation

/// A JSON value of aria2's JSON-RPC: the parameters of a call as they came, and the results and
/// errors as they are sent (aria2 sends numbers as strings: `"totalLength": "123"`).
enum Aria2JSON: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([Aria2JSON])
    case object([String: Aria2JSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([Aria2JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: Aria2JSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The string, when this is one.
    var string: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The whole number, when this is one or a string of one (aria2's clients send either).
    var integer: Int64? {
        switch self {
        case .int(let value): value
        case .string(let value): Int64(value)
        default: nil
        }
    }

    /// A number as aria2 sends it: a string of its decimal digits.
    static func number(_ value: some BinaryInteger) -> Aria2JSON { .string(String(value)) }

    /// The compact JSON text (keys sorted, `/` not escaped).
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }
}

extension Aria2JSON: ExpressibleByStringLiteral {
    init(stringLiteral value: String) {
        self = .string(value)
    }
}
