import Foundation
#if canImport(Glibc)
import Glibc
#endif
import CKCore
import CKServe

/// `ck serve log`: the request log of a running `ck serve`, read over HTTP from its control plane
/// (`GET /_ck/requests`), from another terminal.
enum ServeLogCommand {
    static let spec = CommandSpec(
        "log", summary: "Show the requests a running ck serve answered.",
        discussion: "Reads the request log of the ck serve running on this store (it says where it listens in serve.json at the store's root while it runs), or of the server at --url. Each request shows when it came, its HTTP status, method, Web Services operation, container and database, caller, serverErrorCode and how long it took; -o json prints every field, with the reason and, for a refusal, the rule that decided it. The server keeps the last requests only (1000). --follow prints new requests as they come, until interrupted (Ctrl-C) or the server stops; with -o json it prints one object a line, as -o jsonl does.",
        options: [
            OptionSpec("follow", short: "f", help: "Keep printing new requests until interrupted."),
            OptionSpec("url", value: "url", help: "The server to read (default: the one running on this store)."),
        ],
        examples: [("ck serve log", "The requests the server kept."),
                   ("ck serve log -o json --url http://127.0.0.1:8090", "Every field of each request, from a server named by URL."),
                   ("ck serve log --follow", "Watch requests as they come.")],
        run: run)

    /// How often --follow asks for new requests, in milliseconds.
    static let pollInterval = 200

    static func run(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("log takes no arguments", command: inv.command.path) }
        let follow = inv.parsed.flag("follow")
        var stream = try inv.stream(Log(follow: follow))
        let server = try self.server(inv)
        if follow { StopSignal.catchInterruptAndTerminate() }
        var after: Int64 = 0
        after = try fetchAll(server, after: after) { stream.add($0) }
        guard follow else {
            stream.finish()
            return ExitCode.success
        }
        StreamWriter.stdout.flush()
        while true {
            var pause = timespec(tv_sec: 0, tv_nsec: pollInterval * 1_000_000)
            // A signal cuts the pause short (EINTR), so Ctrl-C ends the follow at once.
            _ = nanosleep(&pause, nil)
            if StopSignal.received != 0 { break }
            do {
                after = try fetchAll(server, after: after) { stream.add($0) }
            } catch let e as CKError where e.code == .networkUnavailable || e.code == .networkFailure {
                stream.finish()
                inv.note("the server at \(server.url) stopped: \(e.reason)")
                return ExitCode.success
            }
            StreamWriter.stdout.flush()
        }
        stream.finish()
        return ExitCode.success
    }

    /// The server to read: --url, else the one the store's serve.json advertises, checked to be running.
    static func server(_ inv: Invocation) throws -> (url: String, pid: Int32?) {
        if let url = inv.parsed.value("url") {
            guard ServeClient.hostAndPort(url) != nil else {
                throw UsageError("invalid value '\(url)' for --url: expected http://HOST:PORT", command: inv.command.path)
            }
            return (url.hasSuffix("/") ? String(url.dropLast()) : url, nil)
        }
        let root = inv.storeLocation.path
        guard let ad = try ServeAdvertisement.read(store: root) else {
            throw CKError(.unknownItem, "no ck serve is running for the store at \(root) (it has no \(ServeAdvertisement.fileName))",
                          serverErrorCode: "NOT_FOUND", hint: "start one with 'ck serve', or name a server with --url")
        }
        guard ServeAdvertisement.isRunning(ad.pid) else { throw gone(ad, root: root) }
        return (ad.url, ad.pid)
    }

    /// The error for a server that advertised itself and is gone.
    static func gone(_ ad: ServeAdvertisement.Advertised, root: String) -> CKError {
        CKError(.unknownItem, "no ck serve is running for the store at \(root) (started with pid \(ad.pid), gone)",
                serverErrorCode: "NOT_FOUND", hint: "start one with 'ck serve'; the stale \(ServeAdvertisement.fileName) is replaced when it starts")
    }

    /// Reads every entry after `after`, a page at a time, handing each page to `page`; returns the sequence number
    /// to ask after next time.
    static func fetchAll(_ server: (url: String, pid: Int32?), after start: Int64, page: ([RequestLog.Entry]) -> Void) throws -> Int64 {
        var after = start
        let limit = 500
        while true {
            let reply: ServeClient.Reply
            do {
                reply = try ServeClient.get(server.url, "/_ck/requests?after=\(after)&limit=\(limit)")
            } catch {
                switch error {
                case .unreachable(let why):
                    if let pid = server.pid, !ServeAdvertisement.isRunning(pid) {
                        throw CKError(.networkUnavailable, "no ck serve is running at \(server.url) (started with pid \(pid), gone)")
                    }
                    throw CKError(.networkUnavailable, why, hint: "is ck serve running? start it with 'ck serve'")
                case .broken(let why):
                    throw CKError(.networkFailure, why)
                }
            }
            let json = try? JSON.parse(utf8: reply.body)
            guard reply.status == 200, let list = json?["requests"]?.arrayValue else {
                let reason = json?["reason"]?.stringValue ?? String(decoding: reply.body.prefix(200), as: UTF8.self)
                throw CKError(.serverRejectedRequest, "\(server.url)/_ck/requests answered \(reply.status): \(reason)",
                              hint: "is it a ck serve? --url names one as http://HOST:PORT")
            }
            let entries = list.compactMap(RequestLog.Entry.init(json:))
            page(entries)
            if let last = entries.last?.seq { after = last } else if let lastSeq = json?["lastSeq"]?.int64Value { after = max(after, lastSeq) }
            if entries.count < limit { return after }
        }
    }
}
