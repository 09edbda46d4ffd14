import Foundation

/// What a subscription's notifications carry (CKSubscription.NotificationInfo, Web Services §2.14): the alert an
/// app shows, its badge, sound and category, whether it is a silent push, and the record fields it carries.
public struct NotificationInfo: Equatable, Sendable {
    /// The alert's title, its localization key and the key's arguments.
    public var title: String?
    public var titleLocalizationKey: String?
    public var titleLocalizationArgs: [String]
    /// The alert's subtitle, its localization key and the key's arguments.
    public var subtitle: String?
    public var subtitleLocalizationKey: String?
    public var subtitleLocalizationArgs: [String]
    /// The alert's body, its localization key and the key's arguments.
    public var alertBody: String?
    public var alertLocalizationKey: String?
    public var alertLocalizationArgs: [String]
    /// The localization key of the alert's action button.
    public var alertActionLocalizationKey: String?
    /// The launch image shown when the alert opens the app.
    public var alertLaunchImage: String?
    /// The sound played with the alert.
    public var soundName: String?
    /// The notification category: which actions the alert offers.
    public var category: String?
    /// Whether the push sets the app's badge.
    public var shouldBadge: Bool
    /// Whether the push is a silent background one (`content-available: 1`).
    public var shouldSendContentAvailable: Bool
    /// Fields copied into query notifications (only reference, location, timestamp, number and string fields).
    public var desiredKeys: [String]

    /// The optional strings by their JSON key, in CKSubscription.NotificationInfo's property names.
    static var stringKeys: [(String, WritableKeyPath<NotificationInfo, String?>)] { [
        ("title", \.title), ("titleLocalizationKey", \.titleLocalizationKey), ("subtitle", \.subtitle),
        ("subtitleLocalizationKey", \.subtitleLocalizationKey), ("alertBody", \.alertBody),
        ("alertLocalizationKey", \.alertLocalizationKey), ("alertActionLocalizationKey", \.alertActionLocalizationKey),
        ("alertLaunchImage", \.alertLaunchImage), ("soundName", \.soundName), ("category", \.category),
    ] }
    /// The argument lists by their JSON key.
    static var listKeys: [(String, WritableKeyPath<NotificationInfo, [String]>)] { [
        ("titleLocalizationArgs", \.titleLocalizationArgs), ("subtitleLocalizationArgs", \.subtitleLocalizationArgs),
        ("alertLocalizationArgs", \.alertLocalizationArgs),
    ] }

    /// Notification info with an alert body, flags and desired keys; the other alert fields are set afterwards.
    public init(alertBody: String? = nil, shouldBadge: Bool = false, shouldSendContentAvailable: Bool = false, desiredKeys: [String] = []) {
        self.alertBody = alertBody
        self.shouldBadge = shouldBadge
        self.shouldSendContentAvailable = shouldSendContentAvailable
        self.desiredKeys = desiredKeys
        titleLocalizationArgs = []
        subtitleLocalizationArgs = []
        alertLocalizationArgs = []
    }

    /// The alert fields and flags as JSON keys (no desiredKeys): what a subscription's dictionary and a
    /// notification's record both carry.
    package var alertJSON: [String: JSON] {
        var o: [String: JSON] = [:]
        for (k, path) in Self.stringKeys { if let v = self[keyPath: path] { o[k] = .string(v) } }
        for (k, path) in Self.listKeys where !self[keyPath: path].isEmpty { o[k] = .array(self[keyPath: path].map { .string($0) }) }
        return o
    }

    package var json: JSON {
        var o = alertJSON
        o["shouldBadge"] = .bool(shouldBadge)
        o["shouldSendContentAvailable"] = .bool(shouldSendContentAvailable)
        if !desiredKeys.isEmpty { o["desiredKeys"] = .array(desiredKeys.map { .string($0) }) }
        return .object(o)
    }

    package init(json: JSON?, path: String) throws(CKError) {
        guard let json else { self.init(); return }
        guard case .object(let o) = json else { throw CKError.invalid("\(path): expected an object") }
        func bool(_ k: String) throws(CKError) -> Bool {
            guard let v = o[k] else { return false }
            guard let b = v.boolValue else { throw CKError.invalid("\(path).\(k): expected true or false") }
            return b
        }
        func strings(_ k: String, what: String) throws(CKError) -> [String] {
            var out: [String] = []
            for (i, v) in (o[k]?.arrayValue ?? []).enumerated() {
                guard let s = v.stringValue else { throw CKError.invalid("\(path).\(k)[\(i)]: expected \(what)") }
                out.append(s)
            }
            return out
        }
        self.init(shouldBadge: try bool("shouldBadge"), shouldSendContentAvailable: try bool("shouldSendContentAvailable"),
                  desiredKeys: try strings("desiredKeys", what: "a field name"))
        try readAlert(o, path: path)
        for (k, p) in Self.listKeys { self[keyPath: p] = try strings(k, what: "a string") }
    }

    /// Reads the optional alert strings of a subscription's or a notification's dictionary.
    package mutating func readAlert(_ o: [String: JSON], path: String) throws(CKError) {
        for (k, p) in Self.stringKeys {
            guard let v = o[k], !v.isNull else { continue }
            guard let s = v.stringValue else { throw CKError.invalid("\(path).\(k): expected a string") }
            self[keyPath: p] = s
        }
    }
}
