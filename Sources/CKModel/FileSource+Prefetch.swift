extension FileSource {
    /// A source that serves from memory the files `inputs` name, read now — before the operation takes a store
    /// lock — so the server reads no client file while it holds one. A value typed ASSET or BYTES names its
    /// file(s) as it will be parsed; an untyped `@name` (the schema may declare the field an asset or bytes) is
    /// read when this source sizes it as a regular file. A file that can't be read now, or one over CloudKit's
    /// asset limit (sized, never loaded), is left to this source at parse time, which reports it as before.
    package func prefetching(_ inputs: [FieldInput]) -> FileSource {
        var names: [String] = []
        for input in inputs {
            guard case .text(let text, let type, _, _) = input else { continue }
            let pieces = type?.isList == true ? ValueParser.split(text, separator: ",") : [text]
            for piece in pieces {
                let name = piece.hasPrefix("@") ? String(piece.dropFirst()) : piece
                switch type?.base {
                case .asset?: names.append(name)
                case .bytes? where piece.hasPrefix("@"): names.append(name)
                case nil where piece.hasPrefix("@") && size(name) != nil: names.append(name)
                default: break
                }
            }
        }
        var found: [String: (bytes: [UInt8], size: Int64?)] = [:]
        for name in names where found[name] == nil {
            let s = size(name)
            if let s, s > Asset.maxSize { continue }
            if let bytes = try? self.read(name, "@" + name, limit: Int(Asset.maxSize), limitName: "CloudKit's limit for an asset file") {
                found[name] = (bytes, s)
            }
        }
        guard !found.isEmpty else { return self }
        let read = found
        let later = self
        return FileSource(read: { (file: String, path: String) throws(CKError) -> [UInt8] in
            if let hit = read[file] { return hit.bytes }
            return try later.read(file, path)
        }, size: { file in read[file].map { $0.size ?? Int64($0.bytes.count) } ?? later.size(file) },
        readUpTo: { (file: String, path: String, limit: Int, limitName: String) throws(CKError) -> [UInt8] in
            // A file read ahead under the asset limit still meets the caller's own (smaller) limit.
            if let hit = read[file] {
                if hit.bytes.count > limit { throw BoundedRead.tooLarge("\(path): file '\(file)'", limit: limit, limitName: limitName) }
                return hit.bytes
            }
            return try later.read(file, path, limit: limit, limitName: limitName)
        })
    }
}
