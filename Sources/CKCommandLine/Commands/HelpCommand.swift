import CKCore

/// `ck help [topic | command …]`: command help and topic pages, all from the command tree and shared tables.
enum HelpCommand {
    static let spec = CommandSpec(
        "help", summary: "Show help for a command or a topic.",
        discussion: "Topics: \(topics.keys.sorted().joined(separator: ", ")). Any command path works too, e.g. 'ck help record save'.",
        arguments: [ArgumentSpec("topic", help: "A topic or a command path.", optional: true, repeatable: true,
                                 completion: .command, choices: topicNames)],
        run: run)

    static var topicNames: [String] { topics.keys.sorted() }

    static let topics: [String: @Sendable () -> String] = [
        "exit-codes": exitCodes,
        "environment": environment,
        "formats": formats,
        "output": formats,
        "store": store,
        "predicates": predicates,
        "model": model,
        "permissions": permissions,
        "faults": faults,
        "clock": ClockHelpTopic.text,
        "kv": KVHelpTopic.text,
        "sharing": SharingHelpTopic.text,
    ]

    static func run(_ inv: Invocation) throws -> Int32 {
        let words = inv.positionals
        if words.count == 1, let topic = topics[words[0]] { inv.out(topic()); return ExitCode.success }
        var cmd = CommandTree.root
        for w in words {
            guard let sub = cmd.subcommand(w) else {
                throw UsageError("no help topic or command '\(words.joined(separator: " "))'; topics: \(topics.keys.sorted().joined(separator: ", "))", command: "ck help")
            }
            cmd = sub
        }
        inv.out(HelpRenderer.help(cmd, globals: GlobalOptions.all))
        return ExitCode.success
    }

    static func exitCodes() -> String {
        var out = "EXIT CODES\n\nck exits with one of these codes; the error line on stderr names the CloudKit\nerror.\n\n"
        for row in ExitCode.table {
            out += String(row.code).padding(toLength: 5, withPad: " ", startingAt: 0) + row.meaning + "\n"
            if !row.errors.isEmpty { out += HelpRenderer.wrap(row.errorText, indent: 5) + "\n" }
        }
        out += "\n" + HelpRenderer.wrap("'ck cktool' (and ck run as cktool) exits as cktool does: 0, 64 for an incorrect invocation, and 1 for every other failure.", indent: 0) + "\n"
        return out
    }

    static func faults() -> String {
        var out = """
        INJECTED FAULTS

        'ck fault add --error <name>' makes matching operations of the environment
        fail with a CloudKit error, before anything is written. Rules live in
        faults.json and are consumed under the store's lock: a --times 1 rule
        fires exactly once across parallel ck processes, and a --probability rule
        draws from its seed, the same sequence on every run.

        --op save|fetch|delete|query|zone|subscription|changes|notification|any
        --type T, --record NAME   records inside save and delete requests: in a
                                  batch those fail (partialFailure) and, in an
                                  atomic zone, the others get batchRequestFailed
        --zone, --db, --as        given on the 'fault add' line: only there
        --times N | --probability P [--seed S], --after N, --id ID
        --retry-after SECONDS     requestRateLimited, zoneBusy, serviceUnavailable,
                                  accountTemporarilyUnavailable (default 2; exit 5)
        --after-commit            networkFailure only: applied, response lost

        Throttling is by time, as CloudKit's: once a requestRateLimited, zoneBusy
        or serviceUnavailable rule (or any rule with --retry-after) fires, it
        refuses every matching operation until its retryAfter has passed on the
        store's clock, each refusal carrying the time left; --times counts such
        windows. 'ck clock advance' moves the clock past one (see 'ck help clock').

        'ck sync' retries retryable errors after retryAfter (--max-wait, --no-retry),
        keeps saves pending once the quota is exceeded but still sends deletions,
        stops with edits kept when the account can't sync, and recreates a zone the
        user deleted ('ck zone purge'). See docs/faults.md and docs/quotas.md.

        Errors --error accepts:

        """
        out += HelpRenderer.wrap(FaultCommand.errorNames.joined(separator: ", "), indent: 2) + "\n"
        return out
    }

    static func environment() -> String {
        var out = "ENVIRONMENT\n\nA flag beats its environment variable, which beats the store's default.\n\n"
        for v in GlobalOptions.environmentVariables {
            out += v.name.padding(toLength: 16, withPad: " ", startingAt: 0) + v.meaning + "\n"
        }
        return out
    }

    static func formats() -> String {
        var out = """
        OUTPUT FORMATS

        -o table   aligned text for people; the default when stdout is a terminal.
                   Lists are tables of one row per record (fields summarised and cut
                   to the terminal's width); one saved or fetched record is a block.
                   An empty list prints nothing on stdout and 'ck: no records' (or
                   the like) on stderr. 'record save --batch' on a terminal prints
                   a page of rows and a summary; -o or a pipe gives every row.
        -o plain   tab-separated lines for scripts; the default when stdout is piped.
                   Tabs, newlines and backslashes in values are escaped as \\t, \\n,
                   \\\\. Columns, in this order:
                     record        name, type, change tag, zone, then key=value fields
                     deletion      name, type, deleted
                     zone          name, owner, capabilities
                     subscription  id, kind, what it watches
                     notification  id, type, what, device, subscription, read
                     device        name, records, pending edits, last sync
        -o json    one JSON document, the CloudKit Web Services shapes: records in
                   {"records": [...]}, failed items apart in "errors" (recordName,
                   reason, serverErrorCode), a query's "continuationMarker"; zones
                   in {"zones"}, subscriptions, notifications; changes with
                   "syncToken" and "moreComing"
        -o jsonl   one compact JSON object per line (changes end with a syncToken
                   line; failed items are only in the stderr error)
        -o name    only names, one per line, for xargs:

        """
        for n in OutputFormat.names { out += "             " + n.command.padding(toLength: 33, withPad: " ", startingAt: 0) + n.prints + "\n" }
        out += """

        Errors print on stderr as 'ck: <ckErrorName> (<code>): <reason>' and a 'hint:'
        line; with -o json or jsonl the error is a JSON object on stderr instead.
        The json, jsonl, plain and name outputs are a promise: keys and columns are
        added, never removed, renamed or reordered. See docs/cli.md, section 3.

        """
        return out
    }

    static func predicates() -> String {
        """
        PREDICATES

        ck query takes an NSPredicate format string in the subset CloudKit accepts.
        Keywords are case-insensitive. What CloudKit refuses is refused before the
        query runs, with the column of the offending token and a hint (exit 8).

        Accepted
          title == 'Milk'   = != <> < <= =< > >= =>    comparisons (string equality
                                                     is case-insensitive)
          count BETWEEN {1, 5}                       inclusive range
          status IN {'open', 'late'}                 one of several values
          title BEGINSWITH 'Shop'                    prefix, case-sensitive
          tags CONTAINS 'work'   'work' IN tags      list membership
          ANY tags IN {'a', 'b'}   ANY tags == 'a'   any member (SOME = ANY)
          self CONTAINS 'oat milk'                   token search: every word, in any
                                                     searchable string field; case and
                                                     accents ignored; stop words dropped
          distanceToLocation:fromLocation:(place, %@) < 5000
                                                     within 5000 m of --arg location:…
          owner == %@  (--arg ref:note-1)            reference equality
          a AND b, a && b, NOT a, TRUEPREDICATE, FALSEPREDICATE
          recordName, recordID, creationDate, modificationDate,
          creatorUserRecordID, lastModifiedUserRecordID      system fields
          now(), CAST('2026-01-01T00:00:00Z', "NSDate")     dates

        Placeholders %@ %K %d %f take --arg values in order, typed like field values:
          --arg 42, --arg 2.5, --arg 2026-01-01T00:00:00Z, --arg string:42,
          --arg ref:note-1, --arg location:37.33,-122.03, --arg string[]:a,b

        Refused (CloudKit does not support them)
          OR, ||               run one query per arm, or field IN {a, b}
          ALL, MATCHES, LIKE, ENDSWITH, SUBQUERY, @count and other aggregates
          name CONTAINS 'x'    on a string: use BEGINSWITH or self CONTAINS 'x'
          [c] [d] [cd]         no modifiers; token search ignores case already
          owner.name           key paths with a dot
          field == nil         CloudKit can't test for a missing value
          NOT (a AND b), NOT with token search, distance or BETWEEN
          unknown fields, values of the wrong type, unknown record types

        Indexes: filter fields must be QUERYABLE (SEARCHABLE for token search) and
        sort fields SORTABLE. Development indexes user fields automatically but not
        system fields: a query with no filter needs ___recordID QUERYABLE, sorting by
        creationDate needs ___createTime SORTABLE ('ck schema index').

        A record that lacks a field matches no condition on it, negative ones too.
        See docs/query.md.

        """
    }

    static func permissions() -> String {
        """
        PERMISSIONS

        Who may do what, as CloudKit decides it.

        Users. --as NAME acts as an iCloud user by the name it was created with
        (never by its user record name, the _ and 32 hex digits records show as
        their creator). --anonymous acts with nobody signed in. 'ck user list'
        shows users; 'ck account set' changes a user's account status.

        Databases. A private database is its owner's alone. With no usable
        account (noAccount, restricted, couldNotDetermine, or --anonymous) the
        private and shared databases answer notAuthenticated (exit 7) and the
        public database can be read but not written; temporarilyUnavailable
        answers accountTemporarilyUnavailable (exit 5).

        Public database grants. Each record type's GRANT lines give READ (fetch,
        query, subscriptions), CREATE (new records) and WRITE (update and delete)
        to roles:
          _world     everyone, signed in or not
          _icloud    every signed-in user
          _creator   the user who created that record
          <custom>   a role from CREATE ROLE, given with 'ck role assign'
        A type made just in time gets CloudKit's defaults: WRITE to _creator,
        CREATE to _icloud, READ to _world. A refusal is permissionFailure
        (exit 7; ACCESS_DENIED, "CREATE operation not permitted") naming the
        type, the user and the roles it holds; in a batch it is that record's
        error. Notifications never carry a record their owner may not READ.

        User records. Each user has a record of type Users named by its user
        record name, readable by everyone in the public database and by its
        owner in its private database. Only its owner may add fields to it
        (ck record save Users --name <userRecordName> --if-tag <tag> key=value);
        nobody creates or deletes one, and the type can't be queried.

        Fixtures. 'ck export' and 'ck import' act as the user: what it may see,
        what it created; a user's import never changes the schema's roles or
        grants. --all-users is an administrator's view of everything.

        See docs/users.md.
        """
    }

    static func store() -> String {
        """
        THE STORE

        ck keeps an emulated CloudKit container on disk as JSON files. The store root
        is, first match wins: --data-dir, $CK_DATA_DIR, the nearest .ck/ walking up
        from the working directory (made by 'ck init'), else
        ${XDG_DATA_HOME:-~/.local/share}/ck (made on first use, with the container
        \(CKStore.defaultContainerID)).

        \(storeFiles())
        Zone logs are append-only JSON Lines; the latest line for a record wins. Writers
        hold an exclusive lock and fsync before ck reports success. 'ck gc' compacts
        the logs to their live records. See docs/store.md.

        """
    }

    /// The files of a store, from the layout table the man page, doctor and sync read too.
    static func storeFiles() -> String {
        let plain: (String) -> String = { text in
            text.replacingOccurrences(of: "\u{2011}", with: "-").replacingOccurrences(of: "\u{201C}", with: "'")
                .replacingOccurrences(of: "\u{201D}", with: "'")
        }
        return StoreLayout.entries.filter(\.manual).map { "  \($0.shownPath)\n" + wrapped(plain($0.holds), indent: 6) }.joined()
    }

    /// Words filled into lines of at most 80 columns, each indented by `indent` spaces.
    static func wrapped(_ text: String, indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        var out = "", line = pad
        for word in text.split(separator: " ") {
            if line.count > indent && line.count + 1 + word.count > 80 { out += line + "\n"; line = pad }
            line += (line.count > indent ? " " : "") + word
        }
        return out + line + "\n"
    }

    static func model() -> String {
        """
        MODELS: SWIFTDATA AND CORE DATA WITH CLOUDKIT

        ck model reads @Model classes in .swift files (nested in VersionedSchema
        enums too) and Core Data models (.xcdatamodeld, .xcdatamodel/contents), and
        checks them against the rules of Core Data's CloudKit model validator, which
        only a signed build applies, at launch:

          unique-constraint              no @Attribute(.unique), #Unique or
                                         uniqueness constraints
          attribute-optional-or-default  every attribute optional, or defaulted in
                                         its declaration (not in init())
          relationship-optional          every relationship optional, to-many too:
                                         var items: [Item]? = []
          relationship-inverse           every relationship has an inverse (for
                                         SwiftData a warning)
          ordered-relationship           no ordered relationships
          delete-rule                    no Deny delete rule
          unsupported-attribute-type     no Undefined or Object ID attributes
          unsynced-relationship          no relationship to a model that doesn't sync
          value-transformer              transformers registered, reversible (warning)
          record-size                    a record fits in 700,000 bytes (warning)

        Findings print as file:line:column with the validator's message and a fix;
        ck model check exits 0 when there is no error, else 8.

        ck model schema prints the schema development gets, in cktool's layout:
          one CD_<Entity> type per root entity, with CD_entityName
          Int, Bool -> INT64          Double, Float, Decimal -> DOUBLE
          Date -> TIMESTAMP           String, UUID, URL -> STRING
          Data, enums, collections, Codable, transformable -> BYTES
          to-one relationship -> STRING (the related record's name)
          many-to-many -> CDMR link records; the to-many side of one-to-many -> none
        --mode jit (default): what syncing every attribute once creates.
        --mode initialize: what initializeCloudKitSchema creates: also
          CD_<attribute>_ckAsset for String, Data, transformable and encoded values,
          and CD_moveReceipt.
        --models A,B: only the classes a CloudKit ModelConfiguration lists.
        --import makes it the development schema and creates the zone
        com.apple.coredata.cloudkit.zone: then 'ck schema diff', 'ck schema deploy'.

        ck model diff <paths> --against production (or an export.ckdb): what the
        model adds (+), what production has with another type (!, exit 8), and what
        production keeps though the model dropped it (-).

        ck reads source; it doesn't compile it. A type declared in a file not given
        or a macro it doesn't know is a warning naming it, never a guess.
        See docs/model.md.

        """
    }
}
