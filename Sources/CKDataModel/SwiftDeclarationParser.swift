import CKModel

/// Reads declarations from Swift tokens: types and their nesting, attributes, stored properties with their
/// types and default expressions, typealiases and macros. Functions and statements are skipped whole.
package struct SwiftDeclarationParser {
    private let tokens: [SwiftToken]
    private let file: String
    private var p = 0
    private var out: SwiftDeclarations

    private static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "open", "package", "final", "static", "override", "required",
        "convenience", "lazy", "weak", "unowned", "mutating", "nonmutating", "dynamic", "optional", "indirect",
        "nonisolated", "isolated", "consuming", "borrowing", "distributed", "prefix", "postfix", "infix",
    ]
    private static let declarationWords: Set<String> = modifiers.union([
        "var", "let", "func", "init", "deinit", "subscript", "case", "class", "struct", "enum", "actor", "protocol",
        "extension", "typealias", "import", "associatedtype", "operator", "precedencegroup", "macro",
    ])
    private static let typeWords: [String: SwiftDeclarations.TypeKind] = [
        "class": .classType, "struct": .structType, "enum": .enumType, "protocol": .protocolType, "actor": .actor,
    ]
    /// Attributes that don't change what SwiftData stores.
    package static let neutralAttributes: Set<String> = [
        "available", "MainActor", "objc", "nonobjc", "discardableResult", "inlinable", "usableFromInline",
        "preconcurrency", "frozen", "Sendable", "unchecked", "retroactive", "ObservationIgnored",
    ]

    package init(tokens: [SwiftToken], file: String) {
        self.tokens = tokens
        self.file = file
        out = SwiftDeclarations(file: file)
    }

    package static func parse(_ text: String, file: String) throws(ModelReadFailure) -> SwiftDeclarations {
        var parser = SwiftDeclarationParser(tokens: try SwiftTokenizer.tokenize(text), file: file)
        try parser.body(context: [], model: nil, opener: nil)
        return parser.out
    }

    // MARK: Tokens

    private func peek(_ k: Int = 0) -> SwiftToken {
        let i = p + k
        return i < tokens.count ? tokens[i] : (tokens.last ?? SwiftToken(kind: .end, line: 1, column: 1, newlineBefore: true))
    }

    private func location(_ t: SwiftToken) -> ModelLocation { ModelLocation(file: file, line: t.line, column: t.column) }

    private func fail(_ t: SwiftToken, _ message: String) -> ModelReadFailure {
        ModelReadFailure(line: t.line, column: t.column, message: message)
    }

    private static let closers: [Character: Character] = ["(": ")", "[": "]", "{": "}"]

    /// Consumes a bracketed group from its opener to the matching closer; returns the tokens inside.
    @discardableResult
    private mutating func balanced() throws(ModelReadFailure) -> [SwiftToken] {
        let open = peek()
        guard case .symbol(let o) = open.kind, let close = Self.closers[o] else { return [] }
        p += 1
        var stack: [(Character, SwiftToken)] = [(close, open)]
        var inner: [SwiftToken] = []
        while let (want, opener) = stack.last {
            let t = peek()
            switch t.kind {
            case .end:
                throw fail(opener, "'\(opener.text)' is never closed (expected '\(want)')")
            case .symbol(let c) where Self.closers[c] != nil:
                if let cl = Self.closers[c] { stack.append((cl, t)) }
            case .symbol(let c) where c == ")" || c == "]" || c == "}":
                guard c == want else {
                    throw fail(t, "found '\(c)', expected '\(want)' to close '\(opener.text)' at \(opener.line):\(opener.column)")
                }
                stack.removeLast()
                if stack.isEmpty { p += 1; return inner }
            default: break
            }
            inner.append(t)
            p += 1
        }
        return inner
    }

    /// Skips `<…>` generic parameters or arguments.
    private mutating func skipAngles() -> [SwiftToken] {
        guard peek().isSymbol("<") else { return [] }
        var depth = 0
        var inner: [SwiftToken] = []
        repeat {
            let t = peek()
            if t.kind == .end { break }
            if t.isSymbol("<") { depth += 1 } else if t.isSymbol(">") { depth -= 1 }
            if depth > 0 && !(depth == 1 && t.isSymbol("<")) { inner.append(t) }
            p += 1
        } while depth > 0
        return inner
    }

    private static func isOperator(_ t: SwiftToken) -> Bool {
        guard case .symbol(let c) = t.kind else { return false }
        return "+-*/%&|^=<>?!:~".contains(c)
    }

    /// Whether `next`, on a new line, continues the expression that ended with `previous`.
    private static func continues(_ previous: SwiftToken, _ next: SwiftToken) -> Bool {
        if next.isSymbol(".") { return true }
        if isOperator(next) && !next.isSymbol("!") { return true }
        return isOperator(previous) || previous.isSymbol(",") || previous.isSymbol(".")
    }

    /// Collects an expression or a statement up to its end: a line break that doesn't continue it, `;`, an
    /// unmatched closer, a top-level comma (for bindings), or an accessor block (`{ didSet … }`).
    private mutating func expression(stopAtComma: Bool, stopAtAccessor: Bool) throws(ModelReadFailure) -> [SwiftToken] {
        var collected: [SwiftToken] = []
        while true {
            let t = peek()
            if t.kind == .end || t.isSymbol(";") || t.isSymbol("}") || t.isSymbol(")") || t.isSymbol("]") { break }
            if stopAtComma && t.isSymbol(",") { break }
            if let last = collected.last, t.newlineBefore, !Self.continues(last, t) { break }
            if t.isSymbol("{") {
                if stopAtAccessor, let w = peek(1).identifier, ["willSet", "didSet", "get", "set"].contains(w) { break }
                collected.append(t)
                collected += try balanced()
                if let last = tokens[safe: p - 1] { collected.append(last) }
                continue
            }
            if t.isSymbol("(") || t.isSymbol("[") {
                collected.append(t)
                collected += try balanced()
                if let last = tokens[safe: p - 1] { collected.append(last) }
                continue
            }
            collected.append(t)
            p += 1
        }
        return collected
    }

    // MARK: Declarations

    /// Reads declarations until the closing brace of `opener` (or the end of the file at top level).
    private mutating func body(context: [String], model: Int?, opener: SwiftToken?) throws(ModelReadFailure) {
        while true {
            let t = peek()
            if t.kind == .end {
                if let opener { throw fail(opener, "'{' is never closed (expected '}')") }
                return
            }
            if t.isSymbol("}") {
                guard opener != nil else { throw fail(t, "found '}' with no '{' to close") }
                p += 1
                return
            }
            if t.isSymbol(";") { p += 1; continue }
            if t.isSymbol(")") || t.isSymbol("]") { throw fail(t, "found '\(t.text)' with nothing to close") }
            if t.isSymbol("#") {
                try macro(model: model)
                continue
            }
            var attributes: [SwiftDeclarations.AttributeUse] = []
            while peek().isSymbol("@") {
                attributes.append(try attribute())
            }
            var isStatic = false
            while let w = peek().identifier, Self.modifiers.contains(w) || (w == "class" && isModifierClass()) {
                if w == "static" || w == "class" { isStatic = true }
                p += 1
                // private(set), nonisolated(unsafe), unowned(unsafe)
                if peek().isSymbol("("), !peek().newlineBefore { try balanced() }
            }
            let word = peek()
            switch word.identifier {
            case let w? where Self.typeWords[w] != nil || w == "extension":
                try typeDeclaration(context: context, attributes: attributes)
            case "var", "let":
                try properties(context: context, model: isStatic ? nil : model, attributes: attributes, isStatic: isStatic)
            case "typealias":
                p += 1
                guard let name = peek().identifier else { throw fail(peek(), "expected a name after typealias") }
                p += 1
                _ = skipAngles()
                guard peek().isSymbol("=") else { throw fail(peek(), "expected '=' in typealias \(name)") }
                p += 1
                let target = try expression(stopAtComma: false, stopAtAccessor: false)
                out.aliases.append(.init(name: name, qualifiedName: (context + [name]).joined(separator: "."), target: target))
            case "func", "init", "deinit", "subscript", "macro":
                try function()
            default:
                // A statement, enum case, import or anything else: nothing a model declares.
                if word.kind != .end, !word.isSymbol("}") {
                    let before = p
                    _ = try expression(stopAtComma: false, stopAtAccessor: false)
                    if p == before { p += 1 }
                }
            }
        }
    }

    /// `class` is a modifier when a member declaration follows it (`class var`, `class func`).
    private func isModifierClass() -> Bool {
        guard let next = peek(1).identifier else { return false }
        return Self.declarationWords.contains(next) && Self.typeWords[next] == nil && next != "extension"
    }

    private mutating func attribute() throws(ModelReadFailure) -> SwiftDeclarations.AttributeUse {
        let at = peek()
        p += 1
        guard var name = peek().identifier else { throw fail(peek(), "expected an attribute name after '@'") }
        p += 1
        while peek().isSymbol("."), let n = peek(1).identifier { name = n; p += 2 }
        var args: [SwiftToken] = []
        if peek().isSymbol("("), !peek().newlineBefore { args = try balanced() }
        return .init(name: name, location: location(at), arguments: args)
    }

    /// `#if`/`#else` lines are read through (both branches); `#Unique` records a constraint; other macros are skipped.
    private mutating func macro(model: Int?) throws(ModelReadFailure) {
        let hash = peek()
        p += 1
        guard let name = peek().identifier else { throw fail(peek(), "expected a directive or macro name after '#'") }
        p += 1
        if ["if", "elseif", "else", "endif", "sourceLocation", "warning", "error"].contains(name) {
            while !peek().newlineBefore && peek().kind != .end {
                if peek().isSymbol("(") { try balanced() } else { p += 1 }
            }
            if name == "if", let model {
                out.findings.append(ModelFinding(.warning, "conditional-compilation", at: location(hash), subject: out.types[model].name,
                    summary: "#if inside a @Model class: every branch is read, as a reader can't know which is compiled",
                    fix: "check that each branch declares the same stored properties"))
            }
            return
        }
        let generic = skipAngles()
        var args: [SwiftToken] = []
        if peek().isSymbol("("), !peek().newlineBefore { args = try balanced() }
        if peek().isSymbol("{"), !peek().newlineBefore { try balanced() }
        guard let model else { return }
        switch name {
        case "Unique":
            let text = "#Unique<" + generic.map(\.text).joined() + ">(" + args.map(\.text).joined() + ")"
            out.types[model].uniqueMacros.append(ModelUniqueConstraint(location: location(hash), text: text))
        case "Index":
            break
        default:
            out.findings.append(ModelFinding(.warning, "unknown-macro", at: location(hash), subject: out.types[model].name,
                summary: "macro #\(name) in a @Model class is not one ck knows; what it adds to the model is not read"))
        }
    }

    private mutating func typeDeclaration(context: [String], attributes: [SwiftDeclarations.AttributeUse]) throws(ModelReadFailure) {
        let keyword = peek()
        p += 1
        guard var name = peek().identifier else { throw fail(peek(), "expected a name after \(keyword.text)") }
        let nameToken = peek()
        p += 1
        // `extension SchemaV1.Item` names a path.
        var path = [name]
        while peek().isSymbol("."), let n = peek(1).identifier { path.append(n); name = n; p += 2 }
        _ = skipAngles()
        var inherits: [String] = []
        if peek().isSymbol(":") {
            p += 1
            var current = ""
            var depth = 0
            while true {
                let t = peek()
                if t.kind == .end { break }
                if depth == 0 && (t.isSymbol("{") || t.isWord("where")) { break }
                if t.isSymbol("<") || t.isSymbol("(") { depth += 1 }
                if t.isSymbol(">") || t.isSymbol(")") { depth -= 1 }
                if depth == 0 && t.isSymbol(",") {
                    inherits.append(current)
                    current = ""
                } else if depth == 0 {
                    current += t.text
                }
                p += 1
            }
            if !current.isEmpty { inherits.append(current) }
        }
        while !peek().isSymbol("{") {
            if peek().kind == .end { throw fail(keyword, "\(keyword.text) \(name) has no body: expected '{'") }
            if peek().isSymbol("}") { throw fail(peek(), "found '}', expected '{' to open \(keyword.text) \(name)") }
            p += 1
        }
        let brace = peek()
        p += 1
        // Real code nests types a few levels; the limit keeps hostile input off the stack.
        if context.count >= 64 { throw fail(keyword, "types nested more than 64 deep") }
        if keyword.isWord("extension") {
            try body(context: path, model: nil, opener: brace)
            return
        }
        let isModel = keyword.isWord("class") && attributes.contains { $0.name == "Model" }
        let qualified = (context + [name]).joined(separator: ".")
        var decl = SwiftDeclarations.TypeDecl(name: name, qualifiedName: qualified,
                                              kind: isModel ? .model : (Self.typeWords[keyword.identifier ?? ""] ?? .classType),
                                              location: location(nameToken), inherits: inherits)
        decl.enclosing = context.isEmpty ? nil : context.joined(separator: ".")
        out.types.append(decl)
        let index = out.types.count - 1
        try body(context: context + [name], model: isModel ? index : nil, opener: brace)
    }

    /// `var a: T = x, b = y` — one or more bindings; stored ones of a @Model class are recorded.
    private mutating func properties(context: [String], model: Int?, attributes: [SwiftDeclarations.AttributeUse], isStatic: Bool) throws(ModelReadFailure) {
        let keyword = peek()
        p += 1
        while true {
            let nameToken = peek()
            guard let name = nameToken.identifier else {
                if model != nil {
                    out.findings.append(ModelFinding(.warning, "unreadable-declaration", at: location(nameToken), subject: out.types[model ?? 0].name,
                        summary: "a \(keyword.text) with a pattern (not a plain name) is not read"))
                }
                _ = try expression(stopAtComma: false, stopAtAccessor: false)
                return
            }
            p += 1
            var typeTokens: [SwiftToken]?
            if peek().isSymbol(":") {
                p += 1
                var collected: [SwiftToken] = []
                var depth = 0
                while true {
                    let t = peek()
                    if t.kind == .end { break }
                    if depth == 0 && (t.isSymbol("=") || t.isSymbol("{") || t.isSymbol(",") || t.isSymbol(";") || t.isSymbol("}")) { break }
                    if depth == 0 && !collected.isEmpty && t.newlineBefore { break }
                    if t.isSymbol("(") || t.isSymbol("[") || t.isSymbol("<") { depth += 1 }
                    if t.isSymbol(")") || t.isSymbol("]") || (t.isSymbol(">") && !(collected.last?.isSymbol("-") ?? false)) { depth -= 1 }
                    collected.append(t)
                    p += 1
                }
                typeTokens = collected
            }
            var defaultTokens: [SwiftToken]?
            if peek().isSymbol("=") {
                p += 1
                defaultTokens = try expression(stopAtComma: true, stopAtAccessor: true)
            }
            var computed = false
            if peek().isSymbol("{") {
                let first = peek(1).identifier
                computed = !(first == "willSet" || first == "didSet")
                try balanced()
            }
            if context.last != nil, isStatic, name == "versionIdentifier", let d = defaultTokens {
                out.versions[context.joined(separator: ".")] = d.compactMap { if case .number(let n) = $0.kind { return Int(n) }; return nil }
            }
            if let model, !computed {
                out.types[model].properties.append(.init(name: name, location: location(nameToken), typeTokens: typeTokens,
                                                         defaultTokens: defaultTokens, attributes: attributes, isLet: keyword.isWord("let")))
            }
            guard peek().isSymbol(",") else { return }
            p += 1
            // Another binding is `name:` or `name =`; anything else continues an expression ck doesn't parse
            // (`Dictionary<String, Int>()` has a comma at the top level of its tokens).
            guard peek().identifier != nil, peek(1).isSymbol(":") || peek(1).isSymbol("=") else {
                _ = try expression(stopAtComma: false, stopAtAccessor: true)
                if peek().isSymbol("{") { try balanced() }
                return
            }
        }
    }

    /// Skips a function, initializer or subscript: its signature and body.
    private mutating func function() throws(ModelReadFailure) {
        p += 1
        var started = false
        while true {
            let t = peek()
            if t.kind == .end || t.isSymbol("}") || t.isSymbol(";") { return }
            if started && t.newlineBefore, let w = t.identifier, Self.declarationWords.contains(w) { return }
            if started && t.newlineBefore && (t.isSymbol("@") || t.isSymbol("#")) { return }
            if t.isSymbol("{") { try balanced(); return }
            if t.isSymbol("(") || t.isSymbol("[") { try balanced() } else { p += 1 }
            started = true
        }
    }
}

extension Array {
    package subscript(safe i: Int) -> Element? { i >= 0 && i < count ? self[i] : nil }
}
