import CKModel

/// Splits a JSON Lines file into lines: shared by the notification log and `ck doctor`'s log check.
package enum JSONLines {
    package struct Line {
        /// 1-based line number.
        package var number: Int
        /// The line without its newline.
        package var bytes: ArraySlice<UInt8>
        /// Offset just past the line's newline (or the end of the file for a last line without one).
        package var next: Int
        /// False for a last line with no newline: perhaps a write cut short.
        package var terminated: Bool
        /// Only spaces, tabs and carriage returns.
        package var isBlank: Bool { bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }
    }

    package static func forEach<E: Error>(_ bytes: [UInt8], _ body: (Line) throws(E) -> Void) throws(E) {
        var number = 0, start = 0
        while start < bytes.count {
            number += 1
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            let terminated = end < bytes.count
            let next = terminated ? end + 1 : end
            try body(Line(number: number, bytes: bytes[start..<end], next: next, terminated: terminated))
            start = next
        }
    }

    /// Like `forEach(_:_:)` over a file read in pieces of `piece` bytes, so memory stays at a piece and the
    /// longest line whatever the file's size. Returns false when the file does not exist.
    package static func forEach(path: String, piece: Int = 8 << 20, _ body: (Line) -> Void) throws(CKError) -> Bool {
        var carry: [UInt8] = [], carryStart = 0, number = 0
        while true {
            guard let chunk = try FileIO.readRange(path, from: carryStart + carry.count, count: piece) else { return false }
            if chunk.isEmpty {
                if !carry.isEmpty {
                    number += 1
                    body(Line(number: number, bytes: carry[...], next: carryStart + carry.count, terminated: false))
                }
                return true
            }
            let data = carry.isEmpty ? chunk : carry + chunk
            var start = 0
            while let end = data[start...].firstIndex(of: 0x0A) {
                number += 1
                body(Line(number: number, bytes: data[start..<end], next: carryStart + end + 1, terminated: true))
                start = end + 1
            }
            carry = Array(data[start...])
            carryStart += start
        }
    }
}
