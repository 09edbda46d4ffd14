import CKCore
import CKServe

/// `ck serve key`: server-to-server keys `ck serve` checks signed requests with (kept in the container's auth.json).
enum ServeKeyCommand {
    static let spec = CommandSpec(
        "key", summary: "Add, list and remove server-to-server keys for ck serve.",
        discussion: "A server-to-server client signs each request with an EC P-256 private key and sends the key's ID in X-Apple-CloudKit-Request-KeyID; ck serve checks the signature with the public key added here under that ID (the NAME). Signed requests reach the public database and act there as the user given with --as on 'key add' (default: default): records they save carry that user as creator. A key works in both environments unless -e is given on the 'key add' line. Make a key pair with: openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem; openssl ec -in eckey.pem -pubout -out public.pem",
        examples: [("ck serve key add ci-key --public-key public.pem --as builder", "Let requests signed by eckey.pem act as builder."),
                   ("ck serve key list", "The keys, with the user each acts as."),
                   ("ck serve key remove ci-key", "Stop accepting the key.")],
        subcommands: [
            CommandSpec("add", summary: "Add a P-256 public key under a key ID.",
                        arguments: [ArgumentSpec("name", help: "The key ID clients send in X-Apple-CloudKit-Request-KeyID.")],
                        options: [OptionSpec("public-key", value: "file", help: "The public key, PEM ('-' reads stdin).", completion: .file)],
                        run: add),
            CommandSpec("list", summary: "List the container's server-to-server keys.", run: list),
            CommandSpec("remove", summary: "Remove a server-to-server key.",
                        arguments: [ArgumentSpec("name", help: "The key ID.")],
                        run: remove),
        ])

    static func add(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count == 1, let name = inv.positionals.first else {
            throw UsageError("expected one key name (the key ID clients send)", command: inv.command.path)
        }
        guard let file = inv.parsed.value("public-key") else {
            throw UsageError("--public-key FILE is required: a PEM public key ('openssl ec -in eckey.pem -pubout -out public.pem')", command: inv.command.path)
        }
        let label = file == "-" ? "<stdin>" : file
        guard let pem = String(validating: try inv.readInput(file, what: "the public key (PEM)", limit: InputLimit.text, limitName: "the most ck reads for a key file"), as: UTF8.self) else {
            throw CKError(.invalidArguments, "\(label): not a PEM file (not UTF-8 text)")
        }
        if let problem = SignatureVerifier.publicKeyProblem(pem) {
            throw CKError(.invalidArguments, "\(label): \(problem)",
                          hint: "make a key pair with 'openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem' and 'openssl ec -in eckey.pem -pubout -out public.pem'")
        }
        // -e on this line narrows the key to that environment; CK_ENV does not.
        let env = inv.parsed.value("env") != nil ? try inv.environment() : nil
        let key = try inv.container().addServerKey(name: name, publicKey: pem, user: inv.user, environment: env)
        try inv.emit(Added(key: key))
        return ExitCode.success
    }

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        try inv.emit(List(keys: try inv.container().serveAuth().keys))
        return ExitCode.success
    }

    static func remove(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count == 1, let name = inv.positionals.first else { throw UsageError("expected one key name", command: inv.command.path) }
        let key = try inv.container().removeServerKey(name)
        try inv.emit(Removed(key: key))
        return ExitCode.success
    }
}
