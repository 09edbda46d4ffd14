import CKCore
import CKServe
#if canImport(Glibc)
import Glibc
#endif

/// `ck serve`: CloudKit Web Services over HTTP on the store the command line uses (docs/serve.md).
enum ServeCommand {
    static let spec = CommandSpec(
        "serve", summary: "Serve the store over HTTP as CloudKit Web Services.",
        discussion: """
            Serves the store the other commands use (--data-dir, CK_DATA_DIR, the nearest .ck/, else the user store; \
            created if there is none yet) as CloudKit Web Services, so that CloudKit JS, pyicloud and other HTTP \
            clients work against it unchanged. Every container and both environments are served; the path names \
            them: /database/1/{container}/{environment}/{database}/{records,zones,…}/{action}, and \
            /device/1/{container}/{environment}/tokens/{create,register}. ck's own routes live under /_ck/ \
            (GET /_ck/health answers {"status":"ok"}).

            ck serve prints one line, "ck serve: listening on http://HOST:PORT", and stays in the foreground. \
            SIGINT (Ctrl-C) or SIGTERM stops it: it takes no new connections, finishes the requests in flight and \
            exits 0. The command line and the server may work on one store at the same time; each write takes the \
            store's lock as a command does.

            It listens on loopback (127.0.0.1) unless --host says otherwise; on any other address anyone on the \
            network can read and change the store. --no-auth is for quick local work: no token is checked and every \
            request acts as the user given by --as (or CK_USER, default 'default'). See docs/serve.md for \
            authentication, tokens and the request log.

            Open the server's URL in a browser for the console: records (query, edit, conflicts), schema and \
            deploy, zones, subscriptions, notifications, shares, users and roles, quotas, faults, and the live \
            request log with each request's bodies. Under --no-auth its user picker chooses who it acts as; \
            otherwise it asks for a web auth token (ck serve token create). See docs/console.md.
            """,
        options: [
            OptionSpec("host", value: "address", help: "Address to listen on, IPv4 or IPv6 (default: 127.0.0.1, loopback only)."),
            OptionSpec("port", value: "n", help: "Port to listen on; 0 picks a free one (default: 8090).", rule: .integer(min: 0, max: 65535)),
            OptionSpec("no-auth", help: "For quick local work: no token is checked; every request acts as the --as user."),
            OptionSpec("single-use-tokens", help: "A web auth token is good for one request (each response carries the next)."),
            OptionSpec("timeout", value: "seconds", help: "Drop a connection idle or sending this long (default: 60).", rule: .integer(min: 1)),
        ],
        // Every help example runs in HelpExampleTests, so these start the server in the background and stop it.
        examples: [
            ("ck serve --port 0 & sleep 1; kill $!",
             "Serve on a free port (the line printed names it) in the background, then stop it; plain 'ck serve' stays in the foreground on port 8090."),
            ("ck serve --no-auth --as alice --port 0 & sleep 1; kill $!", "Serve without tokens, every request acting as alice."),
        ],
        subcommands: [ServeTokenCommand.spec, ServeKeyCommand.spec, ServeLogCommand.spec],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else {
            throw UsageError("serve takes no arguments; its subcommands are token, key and log", command: inv.command.path)
        }
        var options = ServeOptions()
        if let host = inv.parsed.value("host") {
            guard !host.isEmpty else { throw UsageError("--host: give an address, e.g. 127.0.0.1 or ::1", command: inv.command.path) }
            options.host = host
        }
        if let port = inv.parsed.value("port").flatMap({ Int($0) }) { options.port = port }
        if let timeout = inv.parsed.value("timeout").flatMap({ Int32(exactly: Int($0) ?? 0) }), timeout > 0 { options.timeout = timeout }
        options.singleUseTokens = inv.parsed.flag("single-use-tokens")
        if inv.parsed.flag("no-auth") {
            _ = try inv.caller()
            // A near miss of a listed user (--as alcie beside alice) would start a server refusing every request.
            _ = try inv.container().resolveUser(inv.user)
            options.noAuthUser = inv.user
        }
        let store = try inv.store()
        // Before any thread of the server starts, so that every thread holds them for the waiter below.
        holdStopSignals()
        let server = CloudKitServer(store: store, options: options)
        let http = try HTTPServer(host: options.host, port: options.port, timeout: options.timeout, responder: server)
        let bare = options.host.hasPrefix("[") ? String(options.host.dropFirst().dropLast()) : options.host
        let url = "http://" + (bare.contains(":") ? "[\(bare)]" : bare) + ":\(http.port)"
        server.baseURL = url
        // serve.json tells `ck serve log`, run from another terminal, where this server listens.
        do throws(CKError) {
            try ServeAdvertisement.write(url: url, store: store)
        } catch {
            inv.terminal.writeErr("ck: warning: \(error.reason); 'ck serve log' will need --url \(url)\n")
        }
        if !options.isLoopback && bare != "::1" {
            inv.terminal.writeErr("ck: warning: listening on \(bare), not loopback: anyone who can reach this address can read and change the store\n")
        }
        stopOnSignal { http.stop() }
        signal(SIGPIPE, SIG_IGN)
        inv.line("ck serve: listening on \(url)")
        StreamWriter.stdout.flush()
        http.run()
        ServeAdvertisement.remove(store: store)
        return ExitCode.success
    }
}
