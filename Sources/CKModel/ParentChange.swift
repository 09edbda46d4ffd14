
/// What a save does to the record's parent reference.
public enum ParentChange: Sendable, Equatable {
    /// Leave the parent as the server has it (a replace clears it).
    case keep
    /// Set the parent to a record of the same zone; `zone` is the zone the request named, if any.
    case set(String, zone: String?)
    /// Remove the parent.
    case remove
}
