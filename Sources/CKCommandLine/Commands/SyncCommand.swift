import CKCore

/// `ck sync <device>`: one CKSyncEngine-style sync of an emulated device: push its edits, pull the server's.
enum SyncCommand {
    static let deviceArgument = ArgumentSpec("device", help: "Device name: letters, digits, '-', '_', '.'.", completion: .device)

    static let spec = CommandSpec(
        "sync", summary: "Sync an emulated device with the server: push its edits, then pull.",
        discussion: "A device is one client (an iPhone, a Mac) of the acting user (--as), kept in its own SQLite file; the first sync creates it. A sync pushes the device's pending edits (only the changed keys, with the change tag they were made on) and then pulls the private database's change feeds. When the server changed a record meanwhile (serverRecordChanged), --on-conflict says what happens: merge (the default) merges three ways: keys only the device changed are taken; a key both changed differently is a conflict, won by the device (--conflicts local) or the server (--conflicts server). server keeps the server's record and drops the edit; client saves the device's whole version again under the server's change tag; manual hands the failed save back as CKSyncEngine does: the edit stays pending beside the server record, is not sent again until 'ck device resolve', and the command exits 10 ('ck device conflicts' lists them); a later sync given another --on-conflict sends them again under it. Any other value is the app's merge program, run with /bin/sh -c: it reads {\"ancestor\", \"client\", \"server\"} on stdin and prints the merged record, which is saved under the server's change tag; a program that fails, hangs past --conflict-timeout or prints something else leaves the edit pending as a manual conflict. A record or zone deleted on the server wins over the device's edits of it, and the dropped edit is reported (under client, manual or a program, an edited record deleted on the server is a conflict too). Only custom zones sync: _defaultZone has no change feed in CloudKit. Edits the server refused stay pending, and the command exits 10. A throttled call is retried once its retryAfter has passed on the store's clock; against a fixed clock ('ck clock set', CK_NOW) the sync stops at once (exit 5) and says when to retry. The device's key-value store syncs too (see 'ck kv sync'); its line appears when it moved or reported something. An account change comes first: a sign-out (noAccount) or 'ck device switch-account' clears the device's pending edits and data. A zone the user purged is wiped with its pending edits and never uploaded again; one gone in an encrypted-data reset ('ck zone reset-encrypted') is created again and uploaded. --events (or -o jsonl) prints CKSyncEngine's events as they happen instead of the report. See also 'ck device'.",
        arguments: [deviceArgument],
        options: [OptionSpec("conflicts", value: "side", help: "Who wins a key both sides changed: local (default) or server.",
                             choices: ConflictPolicy.allCases.map(\.rawValue)),
                  OptionSpec("on-conflict", value: "how", help: "A failed save: merge (default), server, client, manual, or a merge command."),
                  OptionSpec("conflict-timeout", value: "seconds", help: "Most seconds a merge command may run (default: 10).",
                             rule: .number(min: 0.001)),
                  OptionSpec("max-wait", value: "seconds", help: "Most seconds to wait in all for retries after retryAfter (default: 5).",
                             rule: .number(min: 0)),
                  OptionSpec("no-retry", help: "Stop at the first retryable error (exit 5, with the wait in the message)."),
                  OptionSpec("events", help: "Print each CKSyncEngine event as it happens, one JSON object a line (as -o jsonl).")],
        examples: [("ck sync phone", "Create device phone on first use and fetch the user's custom zones."),
                   ("ck sync tablet --conflicts server", "Sync tablet; on a conflicting key the server's value wins."),
                   ("ck sync phone --on-conflict manual", "Leave conflicts to the app: 'ck device conflicts phone' lists them."),
                   ("ck sync phone --on-conflict 'python3 merge.py'", "Merge each conflict with the app's own program."),
                   ("ck sync phone -o json", "The sync report as JSON."),
                   ("ck sync phone --events", "The engine's events (stateUpdate, fetchedRecordZoneChanges, …) as JSON Lines.")],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        let name = try inv.single("device name")
        let policy = ConflictPolicy(rawValue: inv.parsed.value("conflicts") ?? "local") ?? .local
        let device = try Device.open(name, database: try inv.database())
        let maxWait = inv.parsed.value("max-wait").flatMap { Double($0) } ?? SyncEngine.defaultMaxWait
        var bar: Progress? = nil
        var phase: SyncProgress.Phase? = nil
        var engine = SyncEngine(device: device, conflicts: policy) { p in
            if phase != p.phase || bar?.total != p.total {
                bar?.finish()
                bar = Progress(inv, total: p.total, verb: p.phase == .push ? "pushed" : "pulled")
                phase = p.phase
            }
            bar?.update(p.done)
        }
        engine.maxWait = maxWait
        if let how = inv.parsed.value("on-conflict") {
            do { engine.onConflict = try ConflictHandling(how) } catch {
                throw UsageError(error.reason, command: inv.command.path)
            }
            engine.retryConflicts = true
        }
        engine.conflictTimeout = inv.parsed.value("conflict-timeout").flatMap { Double($0) } ?? SyncEngine.defaultConflictTimeout
        engine.retry = !inv.parsed.flag("no-retry")
        // The event stream replaces the report: each line is written and flushed as it happens, so a sync that
        // stops (or a crash) leaves a prefix of whole lines.
        let format = try inv.outputFormat()
        let streaming = inv.parsed.flag("events") || format == .jsonl
        if streaming {
            engine.events = { e in
                inv.line(e.json.serialized())
                StreamWriter.stdout.flush()
            }
        }
        let report: SyncReport
        do { report = try engine.sync() } catch {
            bar?.finish()
            // An account that can't sync stops the records; the key-value store notes the status, so that
            // signing in again delivers accountChange.
            // Its own failure is said as a warning: the records' error is what the command reports.
            do {
                if try KeyValueSync.accountStatus(of: device.database) != KeyValueSync.available { _ = try KeyValueSync(device: device).sync() }
            } catch let kvError {
                inv.warn("the key-value store did not note the account status: \(kvError)")
            }
            throw error
        }
        bar?.finish()
        // A sync the server stopped (throttled past --max-wait, the account) reports what it did, then fails.
        if let stopped = report.stopped {
            if !streaming { try inv.emit(Report(report: report)) }
            throw stopped
        }
        // The device's key-value store syncs too, after the records.
        let kv: KVSyncReport
        do { kv = try KeyValueSync(device: device).sync() } catch {
            if !streaming { try inv.emit(Report(report: report)) }
            throw error
        }
        if !streaming { try inv.emit(Report(report: report, keyValue: kv)) }
        if !report.kept.isEmpty || !report.conflicts.isEmpty {
            let n = report.kept.count + report.conflicts.count
            let hint = report.conflicts.isEmpty ? "fix the cause and run 'ck sync \(name)' again; 'ck device show \(name)' counts what is pending"
                : "'ck device conflicts \(name)' lists the conflicts and 'ck device resolve' settles them; then run 'ck sync \(name)' again"
            throw CKError(.partialFailure, "\(plural(n, "edit")) \(n == 1 ? "stays" : "stay") pending on device '\(name)'"
                              + (report.conflicts.isEmpty ? "" : " (\(plural(report.conflicts.count, "conflict")) left to the app)"),
                          hint: hint,
                          items: report.kept.map { CKError.ItemFailure(id: $0.recordName ?? $0.zoneName, error: $0.error) }
                              + report.conflicts.map { CKError.ItemFailure(id: $0.recordName, error: $0.error) })
        }
        try KVSyncCommand.check(kv)
        return ExitCode.success
    }

    /// `title (conflict: server)`-style text for a merge.
    static func mergeText(_ m: SyncReport.Merge) -> String {
        var parts = m.mergedKeys
        parts += m.conflicts.map { "\($0.key) (conflict, \($0.winner.rawValue) won)" }
        return parts.isEmpty ? "server record kept" : parts.joined(separator: ", ")
    }

    static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
}
