/// aria2's download handles (GIDs: 16 hexadecimal digits) for the agent's download ids, derived
/// from the id and not stored: a download added through the RPC gets a GID as its id, so its GID
/// is its id; any other id (one a caller of `POST /v1/downloads` chose) has as GID the 64-bit
/// FNV-1a hash of its UTF-8 bytes in hexadecimal. So a GID never changes, survives restarts
/// without a table in the store, and every download the agent holds has one, whoever added it.
enum Aria2GID {
    /// The GID of download `id`: the id itself when it is 16 lower-case hexadecimal digits, else
    /// the FNV-1a hash of the id.
    static func of(_ id: String) -> String {
        if isGID(id) { return id }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hex(hash)
    }

    /// Whether `text` has the form of a GID (16 lower-case hexadecimal digits).
    static func isGID(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// A new random GID (64 bits of the system's generator).
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex(generator.next())
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
