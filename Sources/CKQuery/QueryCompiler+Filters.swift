import CKModel

extension QueryCompiler {
    /// Adds a Web Services / cktool filter, checking it as CloudKit would.
    package mutating func add(_ f: QueryFilter) throws(CKError) {
        let path = "filter on '\(f.displayName)'"
        if f.comparator == .CONTAINS_ALL_TOKENS || f.comparator == .CONTAINS_ANY_TOKENS {
            guard case .string(let text) = f.value, !Tokenizer.tokens(text).isEmpty else {
                throw CKError.invalid("\(path): \(f.comparator.rawValue) takes a string with searchable words")
            }
            filters.append(QueryFilter(field: "self", displayName: f.displayName, comparator: f.comparator, value: f.value))
            return
        }
        let target = try resolve(f.field, column: 0)
        let ft = QueryCompiler.fieldType(target)
        var out = f
        out.field = QueryCompiler.fieldName(target)
        out.column = nil
        func typedValue(element: Bool) throws(CKError) -> QueryValue {
            do throws(CKError) { return try typed(f.value, for: target, element: element, column: 0) } catch {
                throw CKError(error.code, "\(path): " + error.reason.replacingOccurrences(of: "column 0: ", with: ""), hint: error.hint)
            }
        }
        func typedList() throws(CKError) -> QueryValue {
            guard case .list(let items) = f.value else {
                throw CKError.invalid("\(path): \(f.comparator.rawValue) takes a list value (type \(ft.isList ? ft.wsName : ft.wsName + "_LIST"))")
            }
            var typedItems: [QueryValue] = []
            for i in items {
                do throws(CKError) { typedItems.append(try typed(i, for: target, element: true, column: 0)) } catch {
                    throw CKError(error.code, "\(path): " + error.reason.replacingOccurrences(of: "column 0: ", with: ""), hint: error.hint)
                }
            }
            return .list(typedItems)
        }
        func need(_ ok: Bool, _ what: String) throws(CKError) {
            if !ok { throw CKError.invalid("\(path): \(f.comparator.rawValue) \(what); '\(f.displayName)' is \(ft.wsName)") }
        }
        switch f.comparator {
        case .EQUALS, .NOT_EQUALS:
            try need(!ft.isList && ft.base != .location && ft.base != .asset, "needs a single-valued field")
            out.value = try typedValue(element: false)
        case .LESS_THAN, .LESS_THAN_OR_EQUALS, .GREATER_THAN, .GREATER_THAN_OR_EQUALS:
            try need(!ft.isList && [.string, .int64, .double, .timestamp].contains(ft.base), "needs a STRING, INT64, DOUBLE or TIMESTAMP field")
            out.value = try typedValue(element: false)
        case .IN, .NOT_IN:
            try need(!ft.isList && ft.base != .location && ft.base != .asset, "needs a single-valued field")
            out.value = try typedList()
        case .LIST_CONTAINS, .NOT_LIST_CONTAINS:
            try need(ft.isList, "needs a list field")
            out.value = try typedValue(element: true)
        case .LIST_CONTAINS_ANY, .NOT_LIST_CONTAINS_ANY, .LIST_CONTAINS_ALL, .NOT_LIST_CONTAINS_ALL:
            try need(ft.isList, "needs a list field")
            out.value = try typedList()
        case .BEGINS_WITH, .NOT_BEGINS_WITH:
            try need(!ft.isList && ft.base == .string, "needs a STRING field")
            out.value = try typedValue(element: false)
        case .LIST_MEMBER_BEGINS_WITH, .NOT_LIST_MEMBER_BEGINS_WITH:
            try need(ft.isList && ft.base == .string, "needs a LIST<STRING> field")
            out.value = try typedValue(element: true)
        case .NEAR:
            try need(!ft.isList && ft.base == .location, "needs a LOCATION field")
            guard case .location = f.value else { throw CKError.invalid("\(path): NEAR takes a LOCATION value") }
            guard let d = f.distance, d >= 0 else { throw CKError.invalid("\(path): NEAR needs a distance in metres") }
        case .CONTAINS_ALL_TOKENS, .CONTAINS_ANY_TOKENS: break
        }
        filters.append(out)
    }

    /// Checks sort descriptors: existing, sortable-typed fields.
    package func checkSort(_ sort: [QuerySort]) throws(CKError) -> [QuerySort] {
        var out: [QuerySort] = []
        for s in sort {
            switch s.kind {
            case .field(let name, let asc):
                let target = try resolveSorted(name, s)
                let ft = QueryCompiler.fieldType(target)
                if ft.isList || ![.string, .int64, .double, .timestamp].contains(ft.base) && !(ft.base == .reference && QueryCompiler.fieldName(target).hasPrefix("___")) {
                    throw CKError.invalid("can't sort by '\(name)' (\(ft.wsName))",
                                          hint: ft.base == .location ? "sort by distance: --sort \(name)@latitude,longitude" : "sort by a STRING, INT64, DOUBLE or TIMESTAMP field")
                }
                out.append(QuerySort(QueryCompiler.fieldName(target), ascending: asc))
            case .distance(let name, let from):
                let target = try resolveSorted(name, s)
                guard QueryCompiler.fieldType(target) == .location else {
                    throw CKError.invalid("can't sort '\(name)' by distance: it is not a LOCATION field")
                }
                out.append(QuerySort(distanceOf: QueryCompiler.fieldName(target), from: from))
            }
        }
        return out
    }

    /// The field a sort names; an unknown one is refused naming the sort as given, with the system fields' names
    /// (`created` is `creationDate`) and, for ck's `--sort`, how to sort descending.
    func resolveSorted(_ name: String, _ s: QuerySort) throws(CKError) -> Target {
        do { return try resolve(name, column: 0) } catch {
            guard error.code == .invalidArguments, type.fields[name] == nil, QueryFilter.systemFieldNames[name] == nil else { throw error }
            let ownSyntax = s.source?.hasPrefix("--sort ") ?? false
            let hint = [error.hint, "creationDate and modificationDate sort by when records were made and changed",
                        ownSyntax ? "'--sort -field' sorts descending" : nil].compactMap { $0 }.joined(separator: "; ")
            throw CKError(error.code, (s.source.map { $0 + ": " } ?? "") + error.reason, hint: hint, details: error.details)
        }
    }
}
