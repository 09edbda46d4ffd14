import CKModel
import CKStorage

/// A change as a feed page holds it: a log entry (a deletion, or a decoded save), or a save's stored bytes.
package enum FeedEntry {
    case entry(LogEntry)
    case stored(seq: Int64, StoredRecord)
}
