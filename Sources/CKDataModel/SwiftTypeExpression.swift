import CKModel

/// A Swift type as written in a declaration, parsed far enough to find optionals, arrays, dictionaries and names.
package indirect enum SwiftTypeExpression: Sendable, Equatable {
    /// `Foo`, `SchemaV1.Item`, `Set<String>`: the dotted path and generic arguments.
    case named([String], [SwiftTypeExpression])
    case optional(SwiftTypeExpression)
    case array(SwiftTypeExpression)
    case dictionary(SwiftTypeExpression, SwiftTypeExpression)
    /// Tuples, functions, `any P`, metatypes: types a model attribute can't be read from.
    case unsupported(String)

    /// Parses tokens that make one type; anything else is `.unsupported` with the text.
    package static func parse(_ tokens: [SwiftToken]) -> SwiftTypeExpression {
        var i = 0
        guard let t = parse(tokens, &i, depth: 0), i == tokens.count else { return .unsupported(text(tokens)) }
        return t
    }

    /// Nesting deeper than this is not a model attribute; stopping keeps hostile input off the stack.
    package static let maxDepth = 32

    private static func parse(_ tokens: [SwiftToken], _ i: inout Int, depth: Int) -> SwiftTypeExpression? {
        guard let first = tokens[safe: i], depth < maxDepth else { return nil }
        var result: SwiftTypeExpression
        if first.isSymbol("[") {
            i += 1
            guard let key = parse(tokens, &i, depth: depth + 1) else { return nil }
            if tokens[safe: i]?.isSymbol(":") == true {
                i += 1
                guard let value = parse(tokens, &i, depth: depth + 1) else { return nil }
                guard tokens[safe: i]?.isSymbol("]") == true else { return nil }
                i += 1
                result = .dictionary(key, value)
            } else {
                guard tokens[safe: i]?.isSymbol("]") == true else { return nil }
                i += 1
                result = .array(key)
            }
        } else if let name = first.identifier, name != "any", name != "some" {
            var path = [name]
            i += 1
            while tokens[safe: i]?.isSymbol(".") == true, let n = tokens[safe: i + 1]?.identifier {
                if n == "Type" || n == "Protocol" { return nil }
                path.append(n)
                i += 2
            }
            var args: [SwiftTypeExpression] = []
            if tokens[safe: i]?.isSymbol("<") == true {
                i += 1
                while true {
                    guard let arg = parse(tokens, &i, depth: depth + 1) else { return nil }
                    args.append(arg)
                    if tokens[safe: i]?.isSymbol(",") == true { i += 1; continue }
                    break
                }
                guard tokens[safe: i]?.isSymbol(">") == true else { return nil }
                i += 1
            }
            if ["Swift", "Foundation"].contains(path[0]) && path.count > 1 { path.removeFirst() }
            switch (path, args.count) {
            case (["Optional"], 1): result = .optional(args[0])
            case (["Array"], 1): result = .array(args[0])
            case (["Dictionary"], 2): result = .dictionary(args[0], args[1])
            default: result = .named(path, args)
            }
        } else {
            return nil
        }
        while let t = tokens[safe: i], t.isSymbol("?") || t.isSymbol("!") {
            result = .optional(result)
            i += 1
        }
        return result
    }

    /// Tokens as source text: a space after `,` and `:`, none elsewhere.
    package static func text(_ tokens: [SwiftToken]) -> String {
        var s = ""
        for t in tokens {
            s += t.text
            if t.isSymbol(",") || t.isSymbol(":") { s += " " }
        }
        return s
    }
}
