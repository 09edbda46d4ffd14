import Foundation

/// A position in a change feed (CKServerChangeToken): opaque to users, bound to one environment,
/// database, owner and — for zone tokens — one incarnation of one zone.
package struct ChangeToken: Equatable {
    package enum Kind: String { case zone = "z", database = "d" }

    package var kind: Kind
    package var environment: Environment
    package var database: DatabaseScope
    package var owner: String
    /// Zone name and the sequence number of the zone's creation (zone tokens only).
    package var zoneName: String = ""
    package var zoneSeq: Int64 = 0
    /// The zone's compaction point when the token was made: the log it read had lost nothing since.
    package var compacted: Int64 = 0
    /// Every change up to this sequence number has been delivered.
    package var position: Int64

    package static let prefix = "ckt1."

    package var encoded: String {
        var o: [String: JSON] = ["k": .string(kind.rawValue), "e": .string(environment.rawValue),
                                 "d": .string(database.rawValue), "o": .string(owner), "p": .int(position)]
        if kind == .zone {
            o["z"] = .string(zoneName)
            o["c"] = .int(zoneSeq)
            if compacted > 0 { o["g"] = .int(compacted) }
        }
        return ChangeToken.prefix + Base64URL.encode(Array(JSON.object(o).serialized().utf8))
    }

    package init(kind: Kind, environment: Environment, database: DatabaseScope, owner: String,
         zoneName: String = "", zoneSeq: Int64 = 0, compacted: Int64 = 0, position: Int64) {
        self.kind = kind
        self.environment = environment
        self.database = database
        self.owner = owner
        self.zoneName = zoneName
        self.zoneSeq = zoneSeq
        self.compacted = compacted
        self.position = position
    }

    /// Reads a token printed by ck; anything else is invalidArguments.
    package init(decoding text: String) throws(CKError) {
        let bad = CKError.invalid("invalid change token: it was not made by ck, or it is damaged",
                                  hint: "pass the syncToken printed by the previous changes call, or omit it to start from the beginning")
        guard text.hasPrefix(ChangeToken.prefix),
              let bytes = Base64URL.decode(String(text.dropFirst(ChangeToken.prefix.count))),
              let json = try? JSON.parse(utf8: bytes),
              let kind = json["k"]?.stringValue.flatMap(Kind.init(rawValue:)),
              let env = json["e"]?.stringValue.flatMap(Environment.init(rawValue:)),
              let db = json["d"]?.stringValue.flatMap(DatabaseScope.init(rawValue:)),
              let owner = json["o"]?.stringValue, let position = json["p"]?.int64Value, position >= 0 else { throw bad }
        self.init(kind: kind, environment: env, database: db, owner: owner, position: position)
        if kind == .zone {
            guard let z = json["z"]?.stringValue, let c = json["c"]?.int64Value else { throw bad }
            zoneName = z
            zoneSeq = c
            compacted = json["g"]?.int64Value ?? 0
        }
    }
}
